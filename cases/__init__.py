"""Spec-derived conformance cases, one module per spec area.

Every module registers its cases with :func:`conformance.registry.case`; the pytest plugin
collects them as items whose names are the case ids.
"""
