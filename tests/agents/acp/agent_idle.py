"""Conforming, with --idle-evict-after S: the agent unloads every session once it has had no
request for S seconds (one timer for the whole agent, not one per session); status calls do not
count as requests, so polling one session keeps none in memory."""

import _base
from status_keeps_agent_awake import Agent as KeepsAwake

from conformance.reference.acp.agent import main


class Agent(KeepsAwake):
    counts_status = False


main(Agent)
