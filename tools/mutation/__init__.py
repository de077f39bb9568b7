"""Mutation testing of the reference implementations: how many small bugs the suite catches.

`python -m tools.mutation acp|mcp|http` runs a Cosmic Ray campaign against one target's reference
(configs and triage files in mutation/), then scores it and writes a Markdown report.
"""
