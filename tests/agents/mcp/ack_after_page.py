"""Broken MCP server: builds a heartbeat's page of instructions before it applies the
acknowledgements the heartbeat carries, so the answer to the acknowledging call still lists what
it acknowledged (later calls do not).

Caught by heartbeat.instructions.ack-answer-omits-acked, and by the sequences' acked-in-answer
rule (each page acknowledged in the call that asks for the next).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(
            session, sid, {k: v for k, v in args.items() if k != "acknowledgedInstructionIds"}
        )
        self.acknowledge(session, args.get("acknowledgedInstructionIds", []))
        return result


if __name__ == "__main__":
    main(store_factory=Store)
