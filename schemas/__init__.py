"""JSON Schema files of the messages the suite validates and of its own report format."""
