"""A Cosmic Ray filter (on its FilterApp base): split a target's mutants between its two campaigns.

`[cosmic-ray.filters.machinery-filter]` in a features-on campaign's config names the machinery
(tools/mutation/machinery.py: `definitions` and `lines`); that campaign skips every other mutant of
the modules they name. In the machinery-off campaign of the same target, `owned-by = "NAME.toml"`
(the features-on config, beside it in mutation/) skips the mutants that campaign owns: each mutant
is judged once, with the machinery on where it is the machinery's.

    python -m tools.mutation.machinery_filter SESSION CONFIG
"""

from __future__ import annotations

import sys
import tomllib
from argparse import ArgumentParser, Namespace
from pathlib import Path

from cosmic_ray.config import load_config
from cosmic_ray.tools.filters.filter_app import FilterApp
from cosmic_ray.work_db import WorkDB
from cosmic_ray.work_item import WorkerOutcome, WorkResult

from tools.mutation.machinery import Machinery, skipped
from tools.mutation.targets import MUTATION


def selection(config_path: str) -> tuple[Machinery, str | None]:
    """The machinery named by the config (or by the config it says owns it) and that owner."""
    section = dict(load_config(config_path).sub("filters", "machinery-filter"))
    owner = section.get("owned-by")
    if owner is None:
        return Machinery.from_config(section), None
    owned = tomllib.loads((MUTATION / owner).read_text())["cosmic-ray"]["filters"]["machinery-filter"]
    return Machinery.from_config(owned), str(owner)


class MachineryFilter(FilterApp):
    def description(self) -> str:  # pyright: ignore[reportIncompatibleMethodOverride]  # cosmic-ray's FilterApp.description is unannotated and returns None: pyright reads it as -> None
        return __doc__ or ""

    def add_args(self, parser: ArgumentParser) -> None:
        parser.add_argument("config", help="the campaign's Cosmic Ray config")

    def filter(self, work_db: WorkDB, args: Namespace) -> None:
        machinery, owner = selection(args.config)
        sources: dict[str, list[str]] = {}
        for item in work_db.pending_work_items:
            for mutation in item.mutations:
                path = str(mutation.module_path)
                if path not in sources:
                    sources[path] = Path(path).read_text().splitlines()
                line = sources[path][mutation.start_pos[0] - 1]
                if skipped(machinery, owner is not None, path, mutation.definition_name, line):
                    said = f"machinery: judged by {owner}" if owner else "not the machinery"
                    work_db.set_result(
                        item.job_id, WorkResult(output=said, worker_outcome=WorkerOutcome.SKIPPED)
                    )
                    break


if __name__ == "__main__":
    sys.exit(MachineryFilter().main())
