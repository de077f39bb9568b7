"""The project's own tools (not installed with the suite): run from the repository."""
