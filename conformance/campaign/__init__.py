"""Fuzz campaigns: the sequence and fuzz cases of one target, for a time budget, on N local worker
processes (each with its own agent), sharing one Hypothesis example database (a folder or Redis)
with each other and with any other machine given the same --db.

    session-status-conformance campaign --agent CMD --duration 2h --workers 4 --db redis://host:6379/0
"""
