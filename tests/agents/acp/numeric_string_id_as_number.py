"""Broken: its response writer parses request ids as numbers where it can (a JavaScript-style
`Number(id)`), so a string id that reads as a number, "7", comes back as 7.

Caught by transport.jsonrpc.id-types (MUST): the response's id MUST be the same as the request's,
and a client waiting for "7" never sees its answer.
"""

import _base

import json

from conformance.reference.acp.agent import ReferenceAgent, main


def numeric_ids(data: bytes) -> bytes:
    try:
        frame = json.loads(data)
    except ValueError:
        return data
    rid = frame.get("id") if isinstance(frame, dict) else None
    if isinstance(rid, str) and rid.isdigit() and ("result" in frame or "error" in frame):
        frame["id"] = int(rid)
        return json.dumps(frame).encode() + b"\n"
    return data


main(ReferenceAgent, transform_out=numeric_ids)
