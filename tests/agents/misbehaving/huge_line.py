"""Answers initialize, then sends one 20 MB line in answer to each later request."""

import sys

from _stub import requests_after_initialize

for frame in requests_after_initialize():
    sys.stdout.write(
        '{"jsonrpc":"2.0","id":' + str(frame["id"]) + ',"result":{"sessionId":"' + "x" * (20 << 20) + '"}}\n'
    )
    sys.stdout.flush()
