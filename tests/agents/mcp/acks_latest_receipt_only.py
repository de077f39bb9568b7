"""Broken MCP server: instruction ids are per delivery, like SQS receipt handles, and only the
latest delivery's id acknowledges: an agent that acknowledges an instruction by the id it first got,
after the instruction came again under another, is ignored, and the instruction keeps coming.

Caught by heartbeat.instructions.redelivery-ends-at-ack, which acknowledges two heartbeats late.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.receipts = {}  # receipt -> instruction id
        self.latest = {}  # instruction id -> its latest receipt
        self.deliveries = 0

    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        for item in result["instructions"]:
            self.deliveries += 1
            receipt = f"{item['id']}.r{self.deliveries}"
            self.receipts[receipt], self.latest[item["id"]] = item["id"], receipt
            item["id"] = receipt
        return result

    def acknowledge(self, session, ids):
        current = [self.receipts[r] for r in ids if r in self.receipts and self.latest[self.receipts[r]] == r]
        session.acknowledged.update(current)


if __name__ == "__main__":
    main(store_factory=Store)
