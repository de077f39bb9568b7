"""Answers initialize, then answers every request with the wrong id."""

import json

from _stub import requests_after_initialize

for frame in requests_after_initialize():
    if "id" in frame:
        print(json.dumps({"jsonrpc": "2.0", "id": frame["id"] + 1000, "result": {}}), flush=True)
