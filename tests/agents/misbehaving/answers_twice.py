"""The reference agent, answering every request twice."""

import _ref

from conformance.reference.acp.agent import ReferenceAgent, main

main(
    ReferenceAgent,
    transform_out=lambda data: data + data if b'"id"' in data and b'"method"' not in data else data,
)
