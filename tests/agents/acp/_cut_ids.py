"""What the variants whose store cuts ids at a length limit share: ids longer than the limit,
and every method finding a session by the id's first LIMIT characters (an index column that
truncates silently), while -32002 echoes the id as asked."""

import hashlib
import json
import uuid

from conformance.reference.acp.agent import ReferenceAgent, not_found


def cut_at(limit: int, id_length: int) -> type[ReferenceAgent]:
    class Agent(ReferenceAgent):
        def stored(self, session_id):
            """The stored session whose id shares the asked id's first `limit` characters."""
            if not isinstance(session_id, str):
                return session_id
            by_key = {s[:limit]: s for s in self.known | set(self.loaded)}
            return by_key.get(session_id[:limit], session_id)

        def path(self, session_id):
            """Its file, named by a digest: the file system takes no name this long."""
            return self.state_dir / f"{hashlib.sha256(session_id.encode()).hexdigest()}.json"

        def save(self, session):
            self.index(session)
            self.path(session["sessionId"]).write_text(json.dumps(session), encoding="utf-8")

        def read(self, session_id):
            if session_id in self.loaded:
                return self.loaded[session_id]
            if session_id not in self.known:
                raise not_found(session_id)
            return json.loads(self.path(session_id).read_text(encoding="utf-8"))

        async def new_session(self, cwd, **kwargs):
            answer = await super().new_session(cwd, **kwargs)
            short = answer["sessionId"]
            long = f"sess_{uuid.uuid4().hex * 80}"[:id_length]
            session = self.loaded.pop(short)
            self.known.discard(short)
            self.listing.pop(short, None)
            (self.state_dir / f"{short}.json").unlink(missing_ok=True)
            self.path(short).unlink(missing_ok=True)
            session["sessionId"] = long
            self.loaded[long] = session
            self.save(session)
            self.attach(long)
            return {"sessionId": long}

        def status_of(self, session_id):
            return super().status_of(self.stored(session_id))

        async def prompt(self, session_id, prompt, **kwargs):
            return await super().prompt(self.stored(session_id), prompt, **kwargs)

        async def resume_session(self, session_id, cwd, **kwargs):
            return await super().resume_session(self.stored(session_id), cwd, **kwargs)

        async def load_session(self, cwd, session_id, **kwargs):
            return await super().load_session(cwd, self.stored(session_id), **kwargs)

        async def close_session(self, session_id, **kwargs):
            return await super().close_session(self.stored(session_id), **kwargs)

        async def delete_session(self, params):
            session_id = self.stored(self.status_params(params))
            if session_id not in self.loaded and session_id not in self.known:
                raise not_found(session_id)
            self.loaded.pop(session_id, None)
            self.known.discard(session_id)
            self.listing.pop(session_id, None)
            self.path(session_id).unlink(missing_ok=True)
            return {}

    return Agent
