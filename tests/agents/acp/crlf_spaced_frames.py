"""Conforming: every message the agent writes has whitespace between its JSON tokens and ends with
CRLF, as a Windows-built agent or one whose JSON writer pretty-prints on one line does. JSON allows
whitespace between tokens, and a line reader that splits on LF sees a frame with a trailing CR,
which is whitespace too: a client parses each message as it would the compact one."""

import _base

import json

from conformance.reference.acp.agent import ReferenceAgent, main


def spaced_crlf(data: bytes) -> bytes:
    out = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            frame = json.loads(line)
        except ValueError:
            out.append(line + b"\r\n")
            continue
        out.append(b" " + json.dumps(frame, separators=(" , ", " : ")).encode() + b" \r\n")
    return b"".join(out)


main(ReferenceAgent, transform_out=spaced_crlf)
