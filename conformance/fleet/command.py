"""`session-status-conformance fleet`: install, certify and track every agent of a list.

    session-status-conformance fleet LIST [--workers N] [--previous fleet.json [--changed-only]] [--out DIR]
    session-status-conformance fleet plan LIST [--shards N]       # a GitHub Actions job matrix (JSON)
    session-status-conformance fleet merge DIR... [--list LIST] [--previous fleet.json] --out DIR

LIST is a registry file in the ACP registry's format (a path or an http(s) URL) or the suite's own
TOML list (examples/fleet.toml). Exit codes: see conformance.fleet.report.EXIT_CODES.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from conformance import COMMAND
from conformance.fleet.certify import Limits, certify_entry, row_from_report
from conformance.fleet.entries import Entry, ListError, load_list, platform_key, slug
from conformance.fleet.install import InstallError, Unsupported, default_cache, install
from conformance.fleet.report import EXIT_CODES, FORMAT, exit_code, history, label, write_fleet

__all__ = ["main"]

USAGE_ERROR = 2
ARTIFACT_PREFIX = "fleet-"


class _Parser(argparse.ArgumentParser):
    """A usage error in one line, as the suite's own command line says it."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}; {self.prog} --help lists the options", file=sys.stderr)
        raise SystemExit(USAGE_ERROR)


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    codes = "; ".join(f"{code} {text}" for code, text in EXIT_CODES.items())
    return _Parser(prog=prog, description=description, epilog=f"Exit codes: {codes}.")


def run_parser() -> argparse.ArgumentParser:
    p = _parser(
        f"{COMMAND} fleet",
        "Install each agent of LIST (an ACP registry JSON, a path or URL, or a TOML list) into a cache of its "
        "own, certify it with a prompt budget and a time limit in a fresh HOME and directory, and write one "
        "fleet report (fleet.json, fleet.md, fleet.html, a badge per agent). Subcommands: 'fleet plan LIST' "
        "prints a GitHub Actions job matrix; 'fleet merge DIR...' joins report folders into one fleet report.",
    )
    p.add_argument("list", metavar="LIST", help="registry JSON (path or http(s) URL) or TOML fleet list")
    p.add_argument(
        "--out", default="reports/fleet", help="folder of the fleet report (default reports/fleet)"
    )
    p.add_argument("--cache", type=Path, default=None, help=f"install cache (default {default_cache()})")
    p.add_argument(
        "--workers", type=int, default=1, metavar="N", help="agents certified side by side (default 1)"
    )
    p.add_argument(
        "--max-prompts", type=int, default=20, metavar="N", help="prompt budget per agent (default 20)"
    )
    p.add_argument(
        "--time-limit",
        type=float,
        default=900.0,
        metavar="SECONDS",
        help="time limit per agent (default 900)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="the suite's --timeout for each agent (default 30: a first initialize in a fresh HOME is slow); "
        "an entry's own args may set another",
    )
    p.add_argument(
        "--install-timeout",
        type=float,
        default=900.0,
        metavar="SECONDS",
        help="time limit per install (default 900)",
    )
    p.add_argument(
        "--previous", metavar="FLEET.json", help="the previous fleet.json: the report says what changed"
    )
    p.add_argument(
        "--changed-only",
        action="store_true",
        help="with --previous: reuse its result for an agent whose version and distribution are unchanged",
    )
    p.add_argument(
        "--only", action="append", default=[], metavar="ID[,ID]", help="only these agents (repeatable)"
    )
    p.add_argument(
        "--skip", action="append", default=[], metavar="ID[,ID]", help="not these agents (repeatable)"
    )
    return p


def main(argv: list[str]) -> int:
    try:
        if argv[:1] == ["plan"]:
            return plan_main(argv[1:])
        if argv[:1] == ["merge"]:
            return merge_main(argv[1:])
        return run_main(argv)
    except SystemExit as exc:  # --help, or a usage error already said in one line
        return int(exc.code or 0)


def _ids(values: list[str]) -> set[str]:
    return {v.strip() for value in values for v in value.split(",") if v.strip()}


def _load_previous(path: str | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ListError(f"--previous {path!r} cannot be read: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("agents"), list):
        raise ListError(f"--previous {path!r} is not a fleet.json ({FORMAT})")
    return data


def base_row(entry: Entry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "name": entry.name,
        "version": entry.version,
        "slug": entry.slug,
        "kind": entry.kind or None,
        "package": entry.package or entry.archive or entry.command or None,
        "folder": f"agents/{entry.slug}",
        "reused": False,
    }


def static_row(entry: Entry) -> dict[str, Any] | None:
    """The row of an entry that is never installed: malformed, or not for this platform."""
    if entry.problem:
        return base_row(entry) | {"status": "invalid", "verdict": None, "reason": entry.problem}
    if entry.unsupported:
        return base_row(entry) | {"status": "unsupported", "verdict": None, "reason": entry.unsupported}
    return None


def run_one(entry: Entry, out: Path, cache: Path, limits: Limits, install_timeout: float) -> dict[str, Any]:
    """One agent, installed and certified; every failure is the row's reason, never an exception."""
    row = static_row(entry)
    if row is not None:
        return row
    row = base_row(entry)
    folder = out / row["folder"]
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    try:
        installed = install(entry, cache, install_timeout)
    except Unsupported as exc:
        row |= {"status": "unsupported", "verdict": None, "reason": str(exc)}
    except InstallError as exc:
        row |= {"status": "install-failed", "verdict": None, "reason": str(exc)}
    except Exception as exc:
        row |= {"status": "install-failed", "verdict": None, "reason": f"{type(exc).__name__}: {exc}"}
    else:
        row |= {
            "command": installed.argv,
            "installedFrom": installed.where or None,
            "cached": installed.cached,
        }
        row["installSeconds"] = round(installed.seconds, 1)
        if installed.path:
            row["pathFirst"] = installed.path
        try:
            row |= certify_entry(entry, installed.argv, folder, limits, installed.path)
        except Exception as exc:
            row |= {
                "status": "no-verdict",
                "verdict": None,
                "reason": f"the certification failed: {type(exc).__name__}: {exc}",
            }
        if row.get("report"):
            row["report"] = f"{row['folder']}/{row['report']}"
    row["certifiedAt"] = started
    (folder / "row.json").write_text(json.dumps(row, indent=1, default=str) + "\n", encoding="utf-8")
    return row


def _reusable(entry: Entry, old: dict[str, Any] | None) -> bool:
    """As the registry's matrix: the same version and distribution, and a result worth keeping."""
    return (
        old is not None
        and old.get("version") == entry.version
        and old.get("kind") == (entry.kind or None)
        and old.get("package") == (entry.package or entry.archive or entry.command or None)
        and old.get("status") == "certified"
    )


_FOLDER = re.compile(r"agents/[A-Za-z0-9._@+=-]{1,150}")


def _folder(row: dict[str, Any]) -> str:
    """The row's agent folder, if it is one the fleet writes (a report from elsewhere names no path
    outside the report's own agents/ folder); "" otherwise."""
    folder = row.get("folder")
    return folder if isinstance(folder, str) and _FOLDER.fullmatch(folder) and ".." not in folder else ""


def _reuse(old: dict[str, Any], previous_dir: Path, out: Path) -> dict[str, Any]:
    row = dict(old) | {"reused": True}
    source = previous_dir / _folder(old)
    target = out / _folder(old)
    if _folder(old) and source.is_dir() and source.resolve() != target.resolve():
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)
    elif not target.is_dir():
        row["report"] = None  # the previous report folder is not at hand: the row stands without its link
    return row


def run_main(argv: list[str]) -> int:
    args = run_parser().parse_args(argv)
    if args.workers < 1 or args.max_prompts < 0 or args.time_limit <= 0:
        print(
            "error: --workers must be at least 1, --max-prompts at least 0, --time-limit above 0",
            file=sys.stderr,
        )
        return USAGE_ERROR
    if args.changed_only and not args.previous:
        print("error: --changed-only needs --previous FLEET.json (the results to reuse)", file=sys.stderr)
        return USAGE_ERROR
    try:
        entries = load_list(args.list)
        previous = _load_previous(args.previous)
    except ListError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    only, skip = _ids(args.only), _ids(args.skip)
    unknown = (only | skip) - {e.id for e in entries}
    if unknown:
        print(f"error: no such agent(s) in the list: {', '.join(sorted(unknown))}", file=sys.stderr)
        return USAGE_ERROR
    entries = [e for e in entries if (not only or e.id in only) and e.id not in skip]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = args.cache or default_cache()
    limits = Limits(max_prompts=args.max_prompts, time_limit=args.time_limit, timeout=args.timeout)
    before = {str(r.get("id")): r for r in (previous or {}).get("agents", []) if isinstance(r, dict)}
    previous_dir = Path(args.previous).parent if args.previous else out
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    done = [0]
    counting = threading.Lock()

    def one(entry: Entry) -> dict[str, Any]:
        old = before.get(entry.id)
        if args.changed_only and _reusable(entry, old):
            assert old is not None
            row = _reuse(old, previous_dir, out)
        else:
            row = run_one(entry, out, cache, limits, args.install_timeout)
        with counting:
            done[0] += 1
        said = f": {row['reason']}" if row.get("reason") and not row.get("verdict") else ""
        print(
            f"[{done[0]}/{len(entries)}] {entry.id} {entry.version}: {label(row)}{' (reused)' if row.get('reused') else ''}"
            f"{said[:300]}",
            file=sys.stderr,
            flush=True,
        )
        return row

    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        rows = list(pool.map(one, entries))
    fleet = fleet_document(rows, args.list, previous, args.previous, started_at, time.monotonic() - clock)
    fleet["options"] = {
        "workers": args.workers,
        "maxPrompts": args.max_prompts,
        "timeLimit": args.time_limit,
        "timeout": args.timeout,
        "changedOnly": args.changed_only,
        "cache": str(cache),
    }
    write_fleet(out, fleet)
    return _finish(fleet, out)


def fleet_document(
    rows: list[dict[str, Any]],
    source: str | None,
    previous: dict[str, Any] | None,
    previous_path: str | None,
    started: str,
    seconds: float,
) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for row in rows:
        counts[label(row)] = counts.get(label(row), 0) + 1
    return {
        "format": FORMAT,
        "suite": {"name": COMMAND, "version": _suite_version()},
        "list": source,
        "platform": platform_key(),
        "started": started,
        "duration": round(seconds, 1),
        "exitCode": exit_code(rows),
        "counts": counts,
        "agents": rows,
        "history": {
            "previous": previous_path if previous is not None else None,
            "previousStarted": (previous or {}).get("started"),
            "changes": history(rows, previous),
        },
    }


def _suite_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(COMMAND)
    except PackageNotFoundError:
        return "unknown"


def _finish(fleet: dict[str, Any], out: Path) -> int:
    code = fleet["exitCode"]
    counts = ", ".join(f"{n} {what}" for what, n in sorted(fleet["counts"].items()))
    changes = len(fleet["history"]["changes"])
    history_text = f"; {changes} change(s) since the previous report" if fleet["history"]["previous"] else ""
    print(
        f"fleet: {len(fleet['agents'])} agent(s) in {fleet['duration']:.0f} s: {counts}{history_text} — "
        f"exit {code} ({EXIT_CODES[code]}) — report: {out / 'fleet.html'}",
        file=sys.stderr,
    )
    return code


# --- plan -----------------------------------------------------------------------------------------


def action_command(entry: Entry) -> str:
    """The command the project's Action certifies for this entry on a fresh runner: npx and uvx
    install the exact version themselves; a command entry's {python} is the runner's python."""
    if entry.kind == "npx":
        head = (
            ["npx", "--yes", f"--package={entry.package}", entry.cmd]
            if entry.cmd
            else ["npx", "--yes", entry.package]
        )
        return shlex.join([*head, *entry.args])
    if entry.kind == "uvx":
        # uvx runs a pinned spec (pkg==1.2) only through --from, naming the command.
        python = ["--python", entry.python] if entry.python else []
        name = re.split(r"[=<>@\[ ;~!]", entry.package, maxsplit=1)[0]
        return shlex.join(["uvx", *python, "--from", entry.package, entry.cmd or name, *entry.args])
    if entry.kind == "command":
        return " ".join("python" if w == "{python}" else w for w in shlex.split(entry.command))
    raise ValueError(entry.kind)


def action_args(entry: Entry, max_prompts: int, time_limit: float) -> str:
    words = [
        "--max-prompts",
        str(entry.max_prompts if entry.max_prompts is not None else max_prompts),
        "--run-budget",
        str(int(entry.time_limit if entry.time_limit is not None else time_limit)),
        "--protocol",
        str(entry.protocol),
    ]
    if entry.transport != "stdio":
        words += ["--transport", entry.transport]
    if "--timeout" not in entry.suite_args:
        words += ["--timeout", "30"]
    if entry.auth_method:
        words += ["--auth-method", entry.auth_method]
    for key, value in entry.env:
        words += ["--env", f"{key}={value}"]
    return shlex.join([*words, *entry.suite_args])


def plan(entries: list[Entry], shards: int, max_prompts: int, time_limit: float) -> dict[str, Any]:
    """A GitHub Actions matrix (`strategy.matrix`): one entry per agent the Action can certify, or
    with shards, one per shard of agents (each shard a `fleet --only` run)."""
    plannable = [
        e for e in entries if not e.problem and not e.unsupported and e.kind in ("npx", "uvx", "command")
    ]
    if shards > 0:
        groups = [plannable[i::shards] for i in range(min(shards, len(plannable)))]
        return {
            "include": [
                {
                    "shard": f"{i + 1}",
                    "agents": ",".join(e.id for e in group),
                    "artifact": f"{ARTIFACT_PREFIX}shard-{i + 1}",
                }
                for i, group in enumerate(groups)
            ]
        }
    return {
        "include": [
            {
                "id": e.id,
                "name": e.name,
                "version": e.version,
                "slug": e.slug,
                "kind": e.kind,
                "command": action_command(e),
                "args": action_args(e, max_prompts, time_limit),
                "artifact": f"{ARTIFACT_PREFIX}{e.slug}",
            }
            for e in plannable
        ]
    }


def plan_main(argv: list[str]) -> int:
    p = _parser(
        f"{COMMAND} fleet plan", "Print a GitHub Actions job matrix (JSON for strategy.matrix) for LIST."
    )
    p.add_argument("list", metavar="LIST")
    p.add_argument(
        "--shards",
        type=int,
        default=0,
        metavar="N",
        help="N jobs, each certifying a shard with `fleet --only`",
    )
    p.add_argument("--max-prompts", type=int, default=20, metavar="N")
    p.add_argument("--time-limit", type=float, default=900.0, metavar="SECONDS")
    args = p.parse_args(argv)
    try:
        entries = load_list(args.list)
    except ListError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    matrix = plan(entries, args.shards, args.max_prompts, args.time_limit)
    left = [e.id for e in entries if e.id not in {m.get("id") for m in matrix["include"]}]
    if args.shards <= 0 and left:
        print(f"not in the matrix (the merge reports them): {', '.join(left)}", file=sys.stderr)
    print(json.dumps(matrix, separators=(",", ":")))
    return 0


# --- merge ----------------------------------------------------------------------------------------


def merge_main(argv: list[str]) -> int:
    p = _parser(
        f"{COMMAND} fleet merge",
        "Join report folders (each job's upload: a fleet report, an agent folder with row.json, or the Action's "
        "report folder named fleet-<id@version>) into one fleet report.",
    )
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p.add_argument(
        "--list",
        dest="list_source",
        metavar="LIST",
        help="the fleet list: names each folder's agent, and gives a row to every agent without one",
    )
    p.add_argument("--previous", metavar="FLEET.json")
    p.add_argument(
        "--out", default="reports/fleet", help="folder of the fleet report (default reports/fleet)"
    )
    args = p.parse_args(argv)
    try:
        entries = load_list(args.list_source) if args.list_source else []
        previous = _load_previous(args.previous)
    except ListError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    by_slug = {e.slug: e for e in entries}
    rows: dict[str, dict[str, Any]] = {}
    clock = time.monotonic()
    for name in args.dirs:
        folder = Path(name)
        try:
            found = _rows_of(folder, by_slug, out)
        except ListError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return USAGE_ERROR
        for row in found:
            rows[row["slug"]] = row
    planned = {m["slug"] for m in plan(entries, 0, 0, 1)["include"]}
    ordered: list[dict[str, Any]] = []
    for entry in entries:
        row = rows.pop(entry.slug, None)
        if row is None:
            if entry.slug in planned:
                reason = {"status": "no-verdict", "reason": "no report folder came back from its job"}
            else:
                why = f"{entry.kind} distributions are not in the matrix: `fleet` certifies them"
                reason = {"status": "unsupported", "reason": why}
            row = static_row(entry) or base_row(entry) | {"verdict": None} | reason
        ordered.append(row)
    ordered += list(rows.values())
    fleet = fleet_document(
        ordered,
        args.list_source,
        previous,
        args.previous,
        datetime.now(UTC).isoformat(timespec="seconds"),
        time.monotonic() - clock,
    )
    fleet["merged"] = [str(d) for d in args.dirs]
    write_fleet(out, fleet)
    return _finish(fleet, out)


def _rows_of(folder: Path, by_slug: dict[str, Entry], out: Path) -> list[dict[str, Any]]:
    """The rows one downloaded folder holds, its agent folders copied under ``out``/agents/."""
    if (folder / "fleet.json").is_file():
        data = _load_previous(str(folder / "fleet.json")) or {}
        rows = []
        for row in data.get("agents", []):
            if (
                not isinstance(row, dict)
                or not isinstance(row.get("slug"), str)
                or not isinstance(row.get("id"), str)
            ):
                continue
            if _folder(row):
                _copy(folder / _folder(row), out / _folder(row))
            rows.append(row)
        return rows
    if (folder / "row.json").is_file():
        try:
            row = json.loads((folder / "row.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ListError(f"{folder}/row.json cannot be read: {exc}") from exc
        if not isinstance(row, dict) or not _folder(row):
            raise ListError(f"{folder}/row.json is not a fleet row of an agents/ folder")
        _copy(folder, out / _folder(row))
        return [row]
    if (folder / "report.json").is_file():
        name = folder.name.removeprefix(ARTIFACT_PREFIX)
        entry = by_slug.get(name)
        if entry is not None:
            row = base_row(entry)
        else:
            report_row = row_from_report(folder / "report.json")
            info = (report_row.get("initialize") or {}).get("agentInfo") or {}
            agent_id = str(info.get("name") or name)[:100] if isinstance(info, dict) else name
            version = str(info.get("version") or "")[:100] if isinstance(info, dict) else ""
            row = {
                "id": agent_id,
                "name": agent_id,
                "version": version,
                "slug": slug(agent_id, version),
                "kind": None,
            }
            row["folder"] = f"agents/{row['slug']}"
            row["reused"] = False
        _copy(folder, out / row["folder"] / "report")
        row |= row_from_report(folder / "report.json")
        row["report"] = f"{row['folder']}/report/report.html"
        return [row]
    raise ListError(f"{folder} holds no fleet.json, row.json or report.json")


def _copy(source: Path, target: Path) -> None:
    if source.is_dir() and source.resolve() != target.resolve():
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)
