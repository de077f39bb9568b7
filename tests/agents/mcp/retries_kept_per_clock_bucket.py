"""Broken MCP server: idempotent results are kept in a bucket per wall-clock minute (a key prefixed
with the epoch minute, as a Redis store does so that old keys fall out without a sweeper), and only
the current bucket is looked at: a retry sent after the minute turned, 10 ms after its first call or
50 s, is applied again (a new execution, and the key reused with other arguments is accepted).

--bucket-seconds N sets the bucket (default 60, the minute). Caught by
heartbeat.idempotency.retry-across-clock, which straddles the next second's boundary in every
profile (the table runs this server with --bucket-seconds 1) and the minute's in the thorough
profile only: the minute bucket itself is caught by the thorough profile alone, a wait of up to a
minute the tables do not pay.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore
from tests.agents._argv import option

BUCKET = float(option("--bucket-seconds") or 60.0)


class Store(HeartbeatStore):
    @property
    def results(self):
        bucket = int(time.time() // BUCKET)
        if self.__dict__.get("_bucket") != bucket:  # a new bucket: a new key prefix, nothing in it
            self.__dict__["_bucket"] = bucket
            self.__dict__["_results"] = {}
        return self.__dict__["_results"]

    @results.setter
    def results(self, value):  # type: ignore[override]  # a property over the base class's plain attribute
        self.__dict__["_bucket"] = int(time.time() // BUCKET)
        self.__dict__["_results"] = value


if __name__ == "__main__":
    main(store_factory=Store)
