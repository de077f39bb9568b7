"""Broken: ids of 293 characters (a long form that embeds the session's origin), stored under
their first 255 (a VARCHAR(255) key that truncates silently), in every method alike.

Two ids that share their first 255 characters are one session. status.identity.id-variants
passes it (every method agrees). Caught by status.identity.long-ids.
"""

import _base
from _cut_ids import cut_at

from conformance.reference.acp.agent import main

main(cut_at(255, 293))
