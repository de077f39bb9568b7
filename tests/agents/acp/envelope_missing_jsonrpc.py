"""Broken: -32602 error responses go out without `"jsonrpc": "2.0"` (a broken JSON-RPC envelope)."""

import _base

import json

from conformance.reference.acp.agent import ReferenceAgent, main


def drop_jsonrpc_on_invalid_params(data: bytes) -> bytes:
    try:
        frame = json.loads(data)
    except ValueError:
        return data
    if isinstance(frame, dict) and (frame.get("error") or {}).get("code") == -32602:
        frame.pop("jsonrpc", None)
        return json.dumps(frame).encode() + b"\n"
    return data


main(ReferenceAgent, transform_out=drop_jsonrpc_on_invalid_params)
