"""Broken: a tracing layer keeps the error code of a request whose `_meta` carries W3C trace context
(`traceparent`) but replaces its `data` with the trace id: an unknown session traced gets -32002
without `data.sessionId`. Untraced requests get the reference's answers. Caught by
status.error.unknown-session-data, which asks one id with trace context.
"""

import _base

from acp import RequestError

from conformance.reference.acp.agent import ReferenceAgent, main


class Agent(ReferenceAgent):
    async def session_status(self, params):
        meta = params.get("_meta") if isinstance(params, dict) else None
        try:
            return await super().session_status(params)
        except RequestError as error:
            if not (isinstance(meta, dict) and "traceparent" in meta):
                raise
            trace_id = str(meta["traceparent"]).split("-")[1:2]
            raise RequestError(error.code, str(error), {"traceId": trace_id}) from None


main(Agent)
