"""Broken: ids of 69 characters, stored under their first 64 (an index column that truncates
silently), in every method alike.

Two ids that share their first 64 characters are one session: the live id with one more
character, or with its last five changed, reads active, takes prompts and resumes.
status.identity.id-variants passes it: every method agrees, which it reads as one id space. Cut
is never the same id. Caught by status.identity.long-ids.
"""

import _base
from _cut_ids import cut_at

from conformance.reference.acp.agent import main

main(cut_at(64, 69))
