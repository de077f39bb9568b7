"""Broken: status of an id it does not hold looks for the session's file on disk, guarded by a
length in characters, and a multi-byte id under the guard but over the file name's 255 bytes
makes the look-up raise: -32603 for a session the agent does not know.

Breaks "Unknown: the Agent does not know this session. This is returned as a -32002 error". The
agent shares its sessions folder with other instances, so a session another one wrote is not in
its index: status asks the disk whether `<id>.json` exists, after refusing ids over 200
characters (no real id is that long). An id of 93 characters, the live id, `~` and emoji, is
258 bytes: the file system refuses the name (ENAMETOOLONG) and the SDK answers the exception as
an internal error. ASCII ids of any length, short non-ASCII ones and ids over 200 characters get
-32002. Caught by status.identity.long-ids (its forms past 255 bytes).
"""

import _base

from conformance.reference.acp.agent import ReferenceAgent, main, not_found

GUARD = 200  # characters


class Agent(ReferenceAgent):
    def status_of(self, session_id):
        if not self.fits(session_id):
            raise not_found(session_id)
        if session_id in self.loaded:
            return self.words["active"]
        if session_id in self.known or (self.persist and self.on_disk(session_id)):
            return self.words["inactive"]
        raise not_found(session_id)

    def on_disk(self, session_id):
        if not session_id or len(session_id) > GUARD or "/" in session_id or "\0" in session_id:
            return False
        if session_id in (".", ".."):
            return False
        return (self.state_dir / f"{session_id}.json").exists()


main(Agent)
