"""Conforming HTTP status service: the status is sent with Cache-Control: no-store and no
validator (no ETag, no Last-Modified), so no client or cache keeps or revalidates it. Defeats the
assumption that a status can be revalidated: the conditional case has nothing to judge (n/a),
and nothing else may differ.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main


class Service(ReferenceService):
    def revalidated(self, request, response):
        if response.status_code == 200:
            response.headers["cache-control"] = "no-store"
        return response


if __name__ == "__main__":
    main(Service)
