"""Conforming, with --memory-cap N: over its cap the agent evicts a session chosen at random (not
the one coming in, none with a turn in progress), as caches with random replacement do. Evicted
sessions stay on disk (`inactive`), the others read `active`, never more than N of them; status
never counts as use. The RFD prescribes no eviction order: which twins go is chance, not the
order they were used in. Its generator is seeded, so that the same run of the suite meets the same
choices: the twins case's calibration (two rounds nobody asked about) then disagrees the same way
each time, and says it cannot tell (not testable), never a failure."""

import random

import _base

from conformance.reference.acp.agent import ReferenceAgent, main


SEED = 4


class Agent(ReferenceAgent):
    def __init__(self, state_dir):
        super().__init__(state_dir)
        chance = random.Random(SEED)

        def any_other(keep):
            candidates = [s for s in self.memory.last_used if s != keep and not self.memory.busy(s)]
            return chance.choice(candidates) if candidates else None

        self.memory.victim = any_other


main(Agent)
