"""The harness core: the case registry, outcomes and verdicts, spec revisions and traceability,
configuration, transcripts and redaction. Depends on no target and no transport."""
