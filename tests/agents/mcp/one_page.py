"""A conforming MCP server that delivers up to 100 instructions per result: with the few the
suite enqueues, paging never arises.

The paging cases say so (n/a), never pass on a cursor they did not follow.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**{**options, "page_size": 100})


if __name__ == "__main__":
    main(store_factory=Store)
