"""Spec-derived conformance cases, grouped by target (acp/, mcp/, http/), one module per spec area.

Installed as ``conformance.cases``. Every module registers its cases with
:func:`conformance.core.registry.case`; a case's target is its package here. The pytest plugin
collects them as items whose names are the case ids.
"""


def load_all() -> None:
    """Import every case module (this suite's and other targets'), so the registry holds all cases
    (for tools and tests)."""
    import importlib
    import pkgutil

    from conformance.core.traceability import case_packages

    # This package, and the packages of cases other distributions' targets register.
    for package, folder in case_packages().items():
        for module in pkgutil.walk_packages([str(folder)], prefix=f"{package}."):
            if not module.name.rpartition(".")[2].startswith("_"):
                importlib.import_module(module.name)
