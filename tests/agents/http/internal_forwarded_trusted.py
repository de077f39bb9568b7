"""Broken HTTP status service: a status request a proxy forwarded for an address on the private
network (X-Forwarded-For or X-Real-IP in 10.0.0.0/8) is taken for an internal monitor's and skips
the owner check, so anyone behind the company's proxy reads any session's status; a request with
no such header is checked. Caught by http.protocol.owner-everywhere (rule headers).
"""

import ipaddress

from _routes import run, trusting

INTERNAL = ipaddress.ip_network("10.0.0.0/8")


def forwarded_for(headers):
    first = (headers.get("x-real-ip") or headers.get("x-forwarded-for") or "").split(",")[0].strip()
    try:
        return ipaddress.ip_address(first) in INTERNAL
    except ValueError:
        return False


if __name__ == "__main__":
    run(*trusting(forwarded_for))
