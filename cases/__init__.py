"""Spec-derived conformance cases, one module per spec area.

Every module registers its cases with :func:`conformance.registry.case`; the pytest plugin
collects them as items whose names are the case ids.
"""


def load_all() -> None:
    """Import every case module, so the registry holds all cases (for tools and tests)."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{__name__}.{module.name}")
