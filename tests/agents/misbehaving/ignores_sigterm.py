"""The reference agent, ignoring SIGTERM (and stdin's end)."""

import signal

import _ref

signal.signal(signal.SIGTERM, signal.SIG_IGN)

from conformance.reference.acp.agent import main

main()
while True:  # stdin closed: stay anyway
    signal.pause()
