"""Broken MCP server: cursor_is_offset (the cursor is an offset into what is pending, so
acknowledging a page while following its cursor skips as many), in results that omit
"instructions" and "nextCursor" when they are empty.

Caught by heartbeat.instructions.model-based (rule cursor-skip). The suite once read an omitted list
as "no list found" and the sequences were not testable: a pass on the certificate.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from cursor_is_offset import Store as CursorIsOffset
from omit_empty import Store as OmitEmpty

from conformance.reference.mcp.server import main


class Store(OmitEmpty, CursorIsOffset):
    """The omitting results over the broken queue."""


if __name__ == "__main__":
    main(store_factory=Store)
