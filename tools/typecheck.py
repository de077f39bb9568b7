"""`python -m tools.typecheck [pyright arguments]`: pyright on conformance/, cases/, tests/ and tools/
([tool.pyright] in pyproject.toml), exit code pyright's.

The cases install as ``conformance.cases`` from the top-level cases/ folder (pyproject's
package-dir). An editable install reaches them through setuptools' import hook, which pyright
cannot follow, so every ``conformance.cases`` import would be unresolved. This lays out
build/typecheck/conformance/ (a link to conformance/__init__.py and one to cases/), the folder
[tool.pyright] extraPaths names, where pyright finds ``conformance.cases`` as pip installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIM = ROOT / "build" / "typecheck" / "conformance"
LINKS = {"__init__.py": ROOT / "conformance" / "__init__.py", "cases": ROOT / "cases"}


def lay_out_shim() -> None:
    SHIM.mkdir(parents=True, exist_ok=True)
    for name, target in LINKS.items():
        link = SHIM / name
        if link.is_symlink() and link.resolve() == target:
            continue
        if link.is_symlink() or link.is_file():
            link.unlink()
        elif link.exists():
            shutil.rmtree(link)
        link.symlink_to(os.path.relpath(target, SHIM), target_is_directory=target.is_dir())


def main(argv: list[str]) -> int:
    lay_out_shim()
    pyright = Path(sys.executable).with_name("pyright")
    command = [str(pyright) if pyright.is_file() else "pyright", "--project", str(ROOT / "pyproject.toml")]
    return subprocess.run([*command, *argv], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
