"""Where the cases' requirements come from, and the sentences they quote.

A revision of the spec is data: a source name plus quoted sentences. The RFD text is
``shared/spec/000_*.txt`` (revision of 2026-10-26); the schema text is the official ACP schema
shipped in @agentclientprotocol/sdk 2.4.0 (``v1/schema.unstable.json``).
"""

from conformance.core.registry import SpecRef

RFD = "acp-rfd-session-status@2026-10-26"
SDK_V1 = "acp-sdk-2.4.0/v1/schema.unstable.json"
JSONRPC = "jsonrpc-2.0"
# Where each source is read (its URL, section anchors) is the revision files' data, not this module's.


def rfd(section: str, sentence: str) -> SpecRef:
    return SpecRef(RFD, section, sentence)


def sdk_v1(definition: str, sentence: str) -> SpecRef:
    return SpecRef(SDK_V1, definition, sentence)


def jsonrpc(section: str, sentence: str) -> SpecRef:
    return SpecRef(JSONRPC, section, sentence)


NO_SIDE_EFFECTS = rfd(
    "Contract",
    "session/status MUST NOT have side effects. It must not load, resume, create, close, or change the "
    "session, and it must not attach the requesting connection to it.",
)
ACTIVE = rfd(
    "Status values",
    "active: The Agent has this session in memory, for any connection.",
)
INACTIVE = rfd(
    "Status values",
    "inactive: The Agent knows the session and can resume it, but it is not in memory.",
)
UNKNOWN = rfd(
    "Elevator pitch",
    "Unknown: the Agent does not know this session. This is returned as a -32002 error.",
)
MAY_INACTIVE = rfd(
    "Contract",
    "If an Agent cannot do that cheaply, it MAY return inactive for any session it does not have in memory. "
    "A later session/resume will then fail with -32002 if the session does not exist.",
)
CHEAP = rfd(
    "Contract",
    "Checking whether a session is active SHOULD be cheap (an in-memory lookup), and Clients may call it "
    "often, for example as a routing probe.",
)
REQUEST_SCHEMA = rfd("Schema", "SessionStatusRequest: sessionId (required), _meta (optional).")
RESPONSE_SCHEMA = rfd("Schema", "SessionStatusResponse: status (required), _meta (optional).")
OPEN_ENUM = rfd(
    "Schema",
    "SessionStatus: string enum, active | inactive, open to future values (see the unrecognized-value rule "
    "above).",
)
CAPABILITY = rfd(
    "Schema",
    "SessionStatusCapabilities: empty object with optional _meta, added as status on the v1 "
    "SessionCapabilities and the v2 session capabilities.",
)
NOT_FOUND_DATA = sdk_v1(
    "SessionStatusRequest",
    "A session the Agent does not know gets `-32002` with the requested `sessionId` in `data`.",
)
NOT_FOUND_MESSAGE = sdk_v1(
    "ErrorCode",
    "**Resource not found**: A given resource, such as a session or file, was not found.",
)
METHOD_NOT_FOUND = jsonrpc(
    "5.1 Error object",
    "-32601 Method not found: The method does not exist / is not available.",
)
ONE_RESPONSE = jsonrpc(
    "5 Response object",
    "When a rpc call is made, the Server MUST reply with a Response, except for in the case of Notifications.",
)
ERROR_CODES = jsonrpc(
    "5.1 Error object",
    "-32700 Parse error: Invalid JSON was received by the server. -32600 Invalid Request: The JSON sent is not "
    "a valid Request object.",
)
V1_NO_STATE = rfd(
    "Foreground state (v2)",
    "v1 has no foreground state model, so the v1 response has no state field.",
)
NOT_ATTACHED = rfd(
    "Status values",
    "This does not mean the requesting connection is attached to it.",
)
CLIENT_MUST_RESUME = rfd(
    "Status values",
    "A Client that did not create or resume the session on its own connection MUST still call "
    "session/resume (or session/load in v1) before sending session/prompt or expecting session/update "
    "notifications.",
)
STATE_NOT_REPORTED = rfd(
    "Foreground state (v2)",
    "If it is omitted, null, or malformed, the Agent is not reporting foreground state.",
)
STATE_SNAPSHOT = rfd(
    "Foreground state (v2)",
    "Like the snapshot session/resume sends, this is a snapshot.",
)
STATE_NOT_A_TRANSITION = rfd(
    "Foreground state (v2)",
    "It is not a new transition, completion, or usage report.",
)
STATE_OPTIONAL = rfd("Foreground state (v2)", "state is optional.")
STDOUT_ONLY_MESSAGES = SpecRef(
    "acp-transports",
    "stdio",
    "The agent MUST NOT write anything to its stdout that is not a valid ACP message.",
)
RESUMABLE = rfd("Status values", "The Client can call session/resume (or session/load in v1) to start it.")
