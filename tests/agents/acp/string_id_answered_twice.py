"""Broken: a request whose id is a string is answered twice."""

import _base

import json

from conformance.reference.acp.agent import ReferenceAgent, main


def twice_for_string_ids(data: bytes) -> bytes:
    try:
        frame = json.loads(data)
    except ValueError:
        return data
    if (
        isinstance(frame, dict)
        and isinstance(frame.get("id"), str)
        and ("result" in frame or "error" in frame)
    ):
        return data + data
    return data


main(ReferenceAgent, transform_out=twice_for_string_ids)
