"""Broken: a tracing layer wraps the handlers of requests whose `_meta` carries W3C trace context
(`traceparent`, the key ACP's extensibility page reserves for it, as an OpenTelemetry-instrumented
client sends it) and turns every error they raise into -32603, the original kept in its data: an
unknown session traced gets -32603 instead of -32002. Untraced requests get the reference's answers.
Certified by the suite before (blind round 20's acp_trace_meta); caught by fuzz.status.params, whose
explicit inputs carry trace context on the live session and on an unknown id.

--keep-code: the layer keeps the error's code but replaces its data with the trace id, so a traced
unknown session gets -32002 without `data.sessionId`; caught by status.error.unknown-session-data,
which asks one id with trace context.
"""

import sys

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main

KEEP_CODE = "--keep-code" in sys.argv
if KEEP_CODE:
    sys.argv.remove("--keep-code")


class Agent(ReferenceAgent):
    async def session_status(self, params):
        meta = params.get("_meta") if isinstance(params, dict) else None
        try:
            return await super().session_status(params)
        except RequestError as error:
            if not (isinstance(meta, dict) and "traceparent" in meta):
                raise
            trace_id = str(meta["traceparent"]).split("-")[1:2]
            if KEEP_CODE:
                raise RequestError(error.code, str(error), {"traceId": trace_id}) from None
            raise RequestError.internal_error({"traceId": trace_id, "error": str(error)}) from None


main(Agent)
