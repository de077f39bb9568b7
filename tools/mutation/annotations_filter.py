"""A Cosmic Ray filter (on its FilterApp base): skip mutants inside type annotations.

The references use `from __future__ import annotations`, so an annotation is never evaluated:
`str | None` mutated to `str & None` changes nothing any client could observe. Each such mutant
would cost a campaign a full suite run and a triage entry saying so.

    python -m tools.mutation.annotations_filter SESSION
"""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

from cosmic_ray.tools.filters.filter_app import FilterApp
from cosmic_ray.work_db import WorkDB
from cosmic_ray.work_item import WorkerOutcome, WorkResult

from tools.mutation.annotations import Span, annotation_spans, inside


class AnnotationsFilter(FilterApp):
    def description(self) -> str:  # pyright: ignore[reportIncompatibleMethodOverride]  # cosmic-ray's FilterApp.description is unannotated and returns None: pyright reads it as -> None
        return __doc__ or ""

    def filter(self, work_db: WorkDB, args: Namespace) -> None:
        spans: dict[str, list[Span]] = {}
        for item in work_db.pending_work_items:
            for mutation in item.mutations:
                path = str(mutation.module_path)
                if path not in spans:
                    spans[path] = annotation_spans(Path(path).read_text())
                line, column = mutation.start_pos
                if inside((line, column), spans[path]):
                    work_db.set_result(
                        item.job_id,
                        WorkResult(output="in a type annotation", worker_outcome=WorkerOutcome.SKIPPED),
                    )
                    break


if __name__ == "__main__":
    sys.exit(AnnotationsFilter().main())
