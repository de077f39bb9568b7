"""Conforming (run with --surface): each session starts in a mode of its own (chosen from its id),
so twins may start in different modes; the sequences compare only modes the client set.
"""

import _base

import zlib

from conformance.reference.acp.agent import MODES, ReferenceAgent, main


class Agent(ReferenceAgent):
    def default_mode(self, session_id):
        return MODES[zlib.crc32(session_id.encode()) % len(MODES)]


main(Agent)
