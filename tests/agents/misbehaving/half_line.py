"""Answers initialize, then writes half a frame for every later request and stops."""

import sys

from _stub import requests_after_initialize

for _ in requests_after_initialize():
    sys.stdout.write('{"jsonrpc":"2.0","id":')
    sys.stdout.flush()
