"""Broken HTTP status service: a tracing middleware (the shape of an OpenTelemetry instrumentation
with an error hook) wraps requests that carry W3C trace context (`traceparent`): it records any 4xx
answer as the span's exception and answers 500 with the trace id, so an unknown session asked by an
instrumented client is 500, not 404. Untraced requests get the reference's answers. Caught by
http.unknown.not-found, whose second probe carries trace context; blind round 20's ACP
acp_trace_meta is the same class on another protocol.
"""

import json

from _routes import answer, answered, run


def extend(app, service):
    inner = app.build_middleware_stack

    def stack():
        application = inner()

        async def traced(scope, receive, send):
            headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
            parent = headers.get(b"traceparent")
            if parent is None:
                return await application(scope, receive, send)
            status, sent, body = await answered(application, scope, receive)
            if 400 <= status < 500:
                trace_id = parent.decode("latin-1").split("-")[1:2]
                body = json.dumps({"detail": "Internal Server Error", "traceId": trace_id}).encode()
                status = 500
                sent = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await answer(send, status, sent, body)

        return traced

    app.build_middleware_stack = stack


if __name__ == "__main__":
    run(extend)
