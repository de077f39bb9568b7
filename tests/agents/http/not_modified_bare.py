"""Broken HTTP status service: the status carries an ETag of its bytes and Vary: X-User-Id (each
caller's copy is their own), and a matching If-None-Match is answered by a conditional-GET
shortcut with a bare 304: no ETag, no Vary. RFC 9110 15.4.5: a 304 MUST carry the ETag and Vary a
200 would. Caught by http.protocol.header-fields#not-modified.
"""

import hashlib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main, matches
from fastapi.responses import Response


class Service(ReferenceService):
    def revalidated(self, request, response):
        if response.status_code != 200:
            return response
        etag = '"' + hashlib.sha256(bytes(response.body)).hexdigest()[:32] + '"'
        if matches(request.headers.get("if-none-match"), etag):
            return Response(status_code=304)
        response.headers["etag"] = etag
        response.headers["vary"] = "X-User-Id"
        return response


if __name__ == "__main__":
    main(Service)
