"""A Cosmic Ray filter (on its FilterApp base, run like cr-filter-operators): skip the mutants
inside the functions and classes `[cosmic-ray.filters.definitions-filter] exclude` names, by
"module.py:definition". Cosmic Ray records each mutant's enclosing definition, so the exclusion
follows the code when lines move, where a line filter would not.

    python -m tools.mutation.definitions_filter SESSION CONFIG
"""

from __future__ import annotations

import sys
from argparse import ArgumentParser, Namespace
from pathlib import Path

from cosmic_ray.config import load_config
from cosmic_ray.tools.filters.filter_app import FilterApp
from cosmic_ray.work_db import WorkDB
from cosmic_ray.work_item import WorkerOutcome, WorkResult


def excluded(module_path: str, definition: str | None, exclude: set[str]) -> bool:
    return f"{Path(module_path).name}:{definition}" in exclude


class DefinitionsFilter(FilterApp):
    def description(self) -> str:  # pyright: ignore[reportIncompatibleMethodOverride]  # cosmic-ray's FilterApp.description is unannotated and returns None: pyright reads it as -> None
        return __doc__ or ""

    def add_args(self, parser: ArgumentParser) -> None:
        parser.add_argument("config", help="the campaign's Cosmic Ray config")

    def filter(self, work_db: WorkDB, args: Namespace) -> None:
        exclude = set(load_config(args.config).sub("filters", "definitions-filter").get("exclude", ()))
        for item in work_db.pending_work_items:
            if any(excluded(str(m.module_path), m.definition_name, exclude) for m in item.mutations):
                work_db.set_result(
                    item.job_id,
                    WorkResult(output="excluded definition", worker_outcome=WorkerOutcome.SKIPPED),
                )


if __name__ == "__main__":
    sys.exit(DefinitionsFilter().main())
