"""Broken HTTP status service: a compression front keeps the answers it makes for clients that
accept Brotli (br) in a cache keyed by the request's URL (its Vary names Accept-Encoding, not the
caller); a status is below its 500-byte threshold and goes out as is. Once the owner has asked
with br, as browsers do, anyone asking with br is served the owner's answer. Caught by
http.protocol.owner-everywhere (rule coding).
The suite at 856482f certified it (exit 0): its requests asked for gzip and deflate only.
"""

from _routes import run


def extend(app, service):
    cache = {}
    inner = app.build_middleware_stack

    def stack():
        application = inner()

        async def front(scope, receive, send):
            headers = dict(scope.get("headers") or []) if scope["type"] == "http" else {}
            if b"br" not in headers.get(b"accept-encoding", b"") or not scope["path"].endswith("/status"):
                return await application(scope, receive, send)
            key = scope["path"] + "?" + scope.get("query_string", b"").decode("latin-1")
            if key in cache:
                return await _send(send, cache[key])
            start, body = {}, []

            async def keep(message):
                if message["type"] == "http.response.start":
                    start.update(message)
                else:
                    body.append(message.get("body", b""))

            await application(scope, receive, keep)
            answer = (start["status"], start["headers"] + [(b"vary", b"accept-encoding")], b"".join(body))
            if start["status"] == 200:
                cache[key] = answer
            await _send(send, answer)

        return front

    app.build_middleware_stack = stack


async def _send(send, answer):
    status, headers, body = answer
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


if __name__ == "__main__":
    run(extend)
