"""Broken MCP server over stdio (MUST, JSON-RPC: "the Server MUST reply with a Response"): a
front that reads stdin in blocks of 8 KiB, for fewer reads from a pipelining host, decodes each
block as UTF-8 on its own and hands the reference server the lines it holds. A block that ends
inside a multi-byte character does not decode, and is dropped whole, the requests in it included.
ASCII traffic never shows it, nor a line of multi-byte text that fits in one block.

--replace: a block that does not decode has its bad bytes replaced (U+FFFD), as a reader that
turns each chunk into a string does: every request is answered, and one whose id straddled two
blocks is answered under another id.

Caught by heartbeat.wire.slow-reader (each request of its burst has an id of text one to four
bytes wide a character). The suite of c9de112 certified it, and aee9048 the --replace
configuration (blind round 21's ACP agent did the first).
"""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
BLOCK = 8 * 1024
REPLACE = "--replace" in sys.argv[1:]

server = subprocess.Popen(
    [
        sys.executable,
        "-m",
        "conformance.reference.mcp.server",
        *(a for a in sys.argv[1:] if a != "--replace"),
    ],
    stdin=subprocess.PIPE,
    env={**os.environ, "PYTHONPATH": str(ROOT)},
)
assert server.stdin is not None
carried = ""
while block := os.read(0, BLOCK):
    try:
        text = carried + block.decode("utf-8", errors="replace" if REPLACE else "strict")
    except UnicodeDecodeError:
        carried = ""
        continue
    *lines, carried = text.split("\n")
    for line in lines:
        server.stdin.write(line.encode() + b"\n")
    server.stdin.flush()
server.stdin.close()
sys.exit(server.wait())
