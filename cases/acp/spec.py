"""The sentences the ACP cases check, by key: each sentence is written once, in the revision file
(cases/revisions/rfd-2026-10-26.toml, its `key = …`), and read from there; the comment beside each
name quotes its start for the reader.
"""

from conformance.core.revisions import requirement

# "session/status MUST NOT have side effects. It must not load, resume…"
NO_SIDE_EFFECTS = requirement("rfd-2026-10-26", "no-side-effects")
# "active: The Agent has this session in memory, for any connection."
ACTIVE = requirement("rfd-2026-10-26", "active")
# "inactive: The Agent knows the session and can resume it, but it is…"
INACTIVE = requirement("rfd-2026-10-26", "inactive")
# "Unknown: the Agent does not know this session. This is returned as…"
UNKNOWN = requirement("rfd-2026-10-26", "unknown")
# "If an Agent cannot do that cheaply, it MAY return inactive for any…"
MAY_INACTIVE = requirement("rfd-2026-10-26", "may-inactive")
# "Checking whether a session is active SHOULD be cheap (an in-memory…"
CHEAP = requirement("rfd-2026-10-26", "cheap")
# "SessionStatusRequest: sessionId (required), _meta (optional)."
REQUEST_SCHEMA = requirement("rfd-2026-10-26", "request-schema")
# "SessionStatusResponse: status (required), _meta (optional)."
RESPONSE_SCHEMA = requirement("rfd-2026-10-26", "response-schema")
# "SessionStatus: string enum, active | inactive, open to future value…"
OPEN_ENUM = requirement("rfd-2026-10-26", "open-enum")
# "SessionStatusCapabilities: empty object with optional _meta, added…"
CAPABILITY = requirement("rfd-2026-10-26", "capability")
# "A session the Agent does not know gets `-32002` with the requested…"
NOT_FOUND_DATA = requirement("rfd-2026-10-26", "not-found-data")
# "message: A String providing a short description of the error. The message SHOULD be…"
NOT_FOUND_MESSAGE = requirement("rfd-2026-10-26", "not-found-message")
# "-32601 Method not found: The method does not exist / is not available."
METHOD_NOT_FOUND = requirement("rfd-2026-10-26", "method-not-found")
# "When a rpc call is made, the Server MUST reply with a Response, exc…"
ONE_RESPONSE = requirement("rfd-2026-10-26", "reply")
# "The Server MUST NOT reply to a Notification, including those that are within a batch request."
NO_REPLY_TO_NOTIFICATION = requirement("rfd-2026-10-26", "no-reply-to-notification")
# "id: This member is REQUIRED. It MUST be the same as the value of the id member in the Request Object."
ID_ECHOED = requirement("rfd-2026-10-26", "id-echoed")
# "-32700 Parse error: Invalid JSON was received by the server. -32600…"
ERROR_CODES = requirement("rfd-2026-10-26", "error-codes")
# "v1 has no foreground state model, so the v1 response has no state f…"
V1_NO_STATE = requirement("rfd-2026-10-26", "v1-no-state")
# "This does not mean the requesting connection is attached to it."
NOT_ATTACHED = requirement("rfd-2026-10-26", "not-attached")
# "A Client that did not create or resume the session on its own conne…"
CLIENT_MUST_RESUME = requirement("rfd-2026-10-26", "client-must-resume")
# "If it is omitted, null, or malformed, the Agent is not reporting fo…"
STATE_NOT_REPORTED = requirement("rfd-2026-10-26", "state-not-reported")
# "Like the snapshot session/resume sends, this is a snapshot."
STATE_SNAPSHOT = requirement("rfd-2026-10-26", "state-snapshot")
# "It is not a new transition, completion, or usage report."
STATE_NOT_A_TRANSITION = requirement("rfd-2026-10-26", "state-not-a-transition")
# "state is optional."
STATE_OPTIONAL = requirement("rfd-2026-10-26", "state-optional")
# "The agent MUST NOT write anything to its stdout that is not a valid…"
STDOUT_ONLY_MESSAGES = requirement("rfd-2026-10-26", "stdout-only-messages")
# "The Client can call session/resume (or session/load in v1) to start…"
RESUMABLE = requirement("rfd-2026-10-26", "resumable")
# "The agent SHOULD report `requires_action` when the foreground workflow as a whole cannot…"
REQUIRES_ACTION = requirement("rfd-2026-10-26", "requires-action")
