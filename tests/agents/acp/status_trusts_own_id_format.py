"""Broken (MUST), in the SDK 2.4.0 schema's words (revision acp-unstable-2026-11, which has no MAY
path for unknown ids): status answers `saved` without a lookup for any id of the agent's own form
(`sess_` and 32 hex digits: "it looks like one of ours, so it must be on disk"), and -32002 for
the rest. An id the agent never created gets `saved`, not -32002. The suite's never-created ids
(`sess_never_created_…`) are not of that form, so only ids mutated from the agent's own show it
(sequence.status.model-based, rule unknown-id). Like many agents it offers no session/delete (an
unstable method), so no id of its form it has forgotten is ever asked about."""

import re

import _base

from conformance.reference.acp.agent import ReferenceAgent, main

OWN_FORM = re.compile(r"sess_[0-9a-f]{32}")


class Agent(ReferenceAgent):
    words = {"active": "open", "inactive": "saved"}  # noqa: RUF012

    def capabilities(self):
        found = super().capabilities()
        found["sessionCapabilities"].pop("delete", None)
        return found

    def status_of(self, session_id):
        if session_id not in self.loaded and OWN_FORM.fullmatch(session_id):
            return self.words["inactive"]
        return super().status_of(session_id)


main(Agent)
