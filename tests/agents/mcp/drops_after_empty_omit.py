"""Broken MCP server: drops_after_empty (once every instruction of a session was acknowledged,
later ones are lost), in results that omit "instructions" and "nextCursor" when they are empty.

Caught by heartbeat.instructions.model-based (rule lost) and heartbeat.overlap.enqueue-in-flight
(rule acknowledging), as drops_after_empty. The suite once read an omitted list as
"no list found" and the sequences were not testable: a pass on the certificate.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from drops_after_empty import Store as DropsAfterEmpty
from omit_empty import Store as OmitEmpty

from conformance.reference.mcp.server import main


class Store(OmitEmpty, DropsAfterEmpty):
    """The omitting results over the broken queue."""


if __name__ == "__main__":
    main(store_factory=Store)
