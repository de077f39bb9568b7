"""Broken HTTP status service: a compression front keeps the answers it makes for clients that
accept Brotli (br) in a cache keyed by the request's URL (its Vary names Accept-Encoding, not the
caller); a status is below its 500-byte threshold and goes out as is. Once the owner has asked
with br, as browsers do, anyone asking with br is served the owner's answer. Caught by
http.protocol.owner-everywhere (rule coding).
The suite at 856482f certified it (exit 0): its requests asked for gzip and deflate only.
"""

from _routes import answer, answered, run


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
                return await answer(send, *cache[key])
            status, sent, body = await answered(application, scope, receive)
            kept = (status, [*sent, (b"vary", b"accept-encoding")], body)
            if status == 200:
                cache[key] = kept
            await answer(send, *kept)

        return front

    app.build_middleware_stack = stack


if __name__ == "__main__":
    run(extend)
