"""Broken (MUST, JSON-RPC: "the Server MUST reply with a Response"): stdin is read in blocks of
8 KiB, for fewer reads from a pipelining client, and each block is decoded as UTF-8 on its own.
A block that ends inside a multi-byte character does not decode: the agent answers one -32700
(id null) and drops the block, the whole requests in it included. ASCII traffic never shows it,
nor a line of multi-byte text that happens to fit in one block.

--replace: a block that does not decode has its bad bytes replaced (U+FFFD), as a reader that
turns each chunk into a string does: every request is answered, and an id that straddled two blocks
is answered as another id.

Caught by transport.stdio.slow-reader (its burst carries ids of text one to four bytes wide a
character; --replace: its rule echoed-whole). The suite of c9de112 certified both (blind round
21's acp_chunk_decode did the first)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main
from conformance.reference.acp.guard import check_line
from tests.agents._argv import flag

BLOCK = 8 * 1024
REPLACE = flag("--replace")
PARSE_ERROR = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n'


async def pump_blocks(source, writer, guarded):
    carried = ""
    while block := await source.read(BLOCK):
        try:
            text = carried + block.decode("utf-8", errors="replace" if REPLACE else "strict")
        except UnicodeDecodeError:
            writer.write(PARSE_ERROR)
            carried = ""
            continue
        *lines, carried = text.split("\n")
        for line in (raw.encode() for raw in lines if raw.strip()):
            problem = check_line(line)
            if problem is None:
                guarded.feed_data(line + b"\n")
            else:
                writer.write(problem)
    guarded.feed_eof()


_base.replace_guard(pump_blocks)

main(ReferenceAgent)
