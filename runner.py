#!/usr/bin/env python3
"""The repository's shortcut for the `session-status-conformance` console script
(conformance/cli.py): `python runner.py ARGS` is `session-status-conformance ARGS`."""

from conformance.cli import run

if __name__ == "__main__":
    run()
