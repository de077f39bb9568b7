"""Broken MCP server: paging_skips (its cursor skips the first instruction of every following
page), and every result carries a `nextAction` hint, a string field named like a cursor that is
not one. Sent back as a cursor it brings nothing: the lost instructions are lost, not on a page
behind a cursor the suite does not know (which a name alone once made not testable)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from paging_skips import Store as PagingSkips

from conformance.reference.mcp.server import main


class Store(PagingSkips):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["nextAction"] = "continue"
        return result


if __name__ == "__main__":
    main(store_factory=Store)
