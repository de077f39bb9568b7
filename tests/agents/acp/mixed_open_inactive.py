"""Broken (MUST): `open` (SDK 2.4.0 schema) for live sessions, but the RFD's `inactive` for closed ones."""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    words = {"active": "open", "inactive": "inactive"}  # noqa: RUF012


main(Agent)
