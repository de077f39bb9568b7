"""The pytest plugin (entry point `conformance.pytest.plugin`): options, items, hooks."""
