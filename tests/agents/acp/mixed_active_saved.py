"""Broken (MUST): the RFD's `active` for live sessions, but the SDK 2.4.0 schema's `saved` for closed ones."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    words = {"active": "active", "inactive": "saved"}  # noqa: RUF012


main(Agent)
