"""Broken HTTP status service: its OpenAPI document declares maxLength 255 for the session, agent
and user ids (as --max-id-length 255 publishes), but its storage check refuses an id of exactly 255
characters with 422, one short of its own contract (a column width counted with a terminator).
--code 400: refused with 400 instead. --only x-user-id: only the user id is refused at 255 (the
caller's header: another user at the edge gets 422 instead of 404). --bytes: the check counts
UTF-8 bytes, not characters (a byte-length column), so ids of ASCII pass at the edge and an id of
255 characters one to four bytes wide is refused. aee9048 certified it; blind round 22's
http_cobalt, whose limit was 64, was caught there by the fuzzed full-width ids alone (three bytes
a character).

Caught by http.boundary.id-lengths, which tries the maxLength a service publishes and one past it:
within the contract, a session the service does not have is 404. The old suite (265e177) certified
it: its boundary cases took any 4xx as a refusal of a value a store cannot keep.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from tests.agents._argv import flag, option
from fastapi import HTTPException


CODE = int(option("--code") or 422)
ONLY = option("--only")
BYTES = flag("--bytes")


class Service(ReferenceService):
    def check_length(self, value: str, where: list[str]) -> None:
        if ONLY is not None and where[-1] != ONLY:
            return super().check_length(value, where)
        if BYTES:
            if self.max_id_length is not None and len(value.encode()) > self.max_id_length:
                raise HTTPException(CODE, [{"loc": where, "msg": "too long", "type": "string_too_long"}])
            return None
        if self.max_id_length is not None and len(value) >= self.max_id_length:
            raise HTTPException(
                CODE,
                [
                    {
                        "loc": where,
                        "msg": f"String should have fewer than {self.max_id_length} characters",
                        "type": "string_too_long",
                    }
                ],
            )


if __name__ == "__main__":
    main(Service, [*sys.argv[1:], "--max-id-length", "255"])
