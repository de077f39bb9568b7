"""Broken: a table of requests in flight (for cancellation and a clean shutdown) renumbers each
request with a counter of its own and maps the answer back with ``table.pop(n, None) or n``. A
request whose id is falsy, 0, is answered under the internal number: a client that numbers its
requests from 0 never gets its first answer. Every other id, negative and string ones too, comes
back as sent.

Caught by transport.jsonrpc.id-types (MUST): the response's id MUST be the same as the request's.
Blind round 23's MCP server did the same (mcp_idremap); aee9048 certified both, its ids being
never 0.
"""

import _base

import itertools
import json

from conformance.reference.acp.agent import ReferenceAgent, main

INTERNAL = itertools.count(1000)


def renumbered(data: bytes) -> bytes:
    try:
        frame = json.loads(data)
    except ValueError:
        return data
    if isinstance(frame, dict) and ("result" in frame or "error" in frame):
        rid = frame.get("id")
        if type(rid) is int and not rid:
            frame["id"] = next(INTERNAL)
            return json.dumps(frame).encode() + b"\n"
    return data


main(ReferenceAgent, transform_out=renumbered)
