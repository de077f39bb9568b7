"""Conforming HTTP status service: negotiates Accept as RFC 9110 12.5.1 reads it (media ranges,
parameters, q-values, any letter case) and answers "application/json; charset=utf-8"; an Accept
with no range application/json meets at a q-value above 0 gets 406. Defeats the assumption that a
service ignores Accept, or answers exactly "application/json" (http.protocol.accept,
http.status.shape): must pass.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from fastapi.responses import JSONResponse

from conformance.reference.http.service import ReferenceService, main


def takes_json(accept: str) -> bool:
    for item in accept.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip().strip('"'))
                except ValueError:
                    q = 0.0
        if q > 0 and media.lower() in ("*/*", "application/*", "application/json"):
            return True
    return False


class Service(ReferenceService):
    def revalidated(self, request, response):
        accept = request.headers.get("accept")
        if accept is not None and accept.strip() and not takes_json(accept):
            return JSONResponse({"detail": "Not Acceptable"}, status_code=406)
        response = super().revalidated(request, response)
        if response.status_code == 200:
            response.headers["content-type"] = "application/json; charset=utf-8"
        return response


if __name__ == "__main__":
    main(Service)
