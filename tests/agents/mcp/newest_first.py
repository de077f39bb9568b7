"""A conforming MCP server that delivers pending instructions newest first (a stack: the latest
human word matters most), paging back through older ones with its cursor.

The spec fixes no order: the delivery, paging, overlap and boundary cases and the sequences never
assume one: the reference's outcomes.
"""

import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore, decode_cursor, encode_cursor


class Store(HeartbeatStore):
    def page(self, session, cursor):
        before = decode_cursor(cursor) if cursor is not None else math.inf
        rest = sorted((i for i in self.pending(session) if i.seq < before), key=lambda i: -i.seq)
        page = rest[: self.page_size]
        more = len(rest) > len(page)
        return page, (encode_cursor(page[-1].seq) if more else None)


if __name__ == "__main__":
    main(store_factory=Store)
