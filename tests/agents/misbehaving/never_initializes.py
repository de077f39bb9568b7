"""Reads stdin forever and never answers initialize."""

import sys

for _ in sys.stdin:
    pass
