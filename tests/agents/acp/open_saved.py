"""Conforming, in the SDK 2.4.0 schema's words: `open` / `saved` (revision acp-unstable-2026-11)."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    words = {"active": "open", "inactive": "saved"}  # noqa: RUF012


main(Agent)
