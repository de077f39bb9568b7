"""The documentation site as a user meets it: built strictly, served by the README's one-liner,
rendered in headless Chromium, and its tutorials' agents, copied from their pages, certified.

The site is built once for the module (`mkdocs build --strict`: a broken link, a missing anchor
or a page left out of the navigation fails the build). Screenshots of the rendered pages land in
reports/screenshots/docs/, for a person to look at after a CI run.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests import readme
from tests.conftest import ROOT
from tests.e2e.test_chromium import browser  # noqa: F401 - the fixture, shared

pytestmark = pytest.mark.slow

VENV_BIN = Path(sys.executable).parent
SHOTS = ROOT / "reports" / "screenshots" / "docs"
# The pages a person looks at first, one of each kind: rendered in Chromium, a screenshot each.
MAIN_PAGES = (
    "index.html",
    "tutorials/first-certification.html",
    "tutorials/python-sdk.html",
    "how-to/ci.html",
    "reference/cli.html",
    "reference/cases.html",
    "explanation/verdicts.html",
)
SERVE = readme.command(".venv/bin/pip install -e '.[docs]' && .venv/bin/mkdocs serve -a 127.0.0.1:8000")
PYTHON_SDK = readme.command('session-status-conformance --agent "python my_agent.py"')
TS_INSTALL = readme.command("npm install @agentclientprotocol/sdk@2.4.0")
TS_SDK = readme.command('session-status-conformance --agent "node my-agent.mjs"')


def docs_installed() -> None:
    for name in ("mkdocs", "mkdocs-material"):
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            if os.environ.get("CI"):
                pytest.fail(f"{name} is missing: the test extra includes the docs extra")
            pytest.skip(f"{name} is missing (pip install -e '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs_installed()
    folder = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr[-3000:]
    return folder


def every_page_of_the_navigation_has_content(site: Path) -> None:
    """No page of the built site is empty: each one the navigation names holds a title and text
    (read from the HTML; the main pages are rendered in Chromium too)."""
    index = (site / "index.html").read_text()
    pages = sorted(set(re.findall(r'<a href="([^"#]+\.html)" class="md-nav__link', index)) | {"index.html"})
    assert len(pages) >= 30, pages
    for name in pages:
        html = (site / name).read_text()
        article = html.split("<article", 1)[1].split("</article>", 1)[0]
        text = " ".join(re.sub(r"<[^>]+>", " ", article).split())
        assert "<h1" in article and len(text) > 400, f"{name}: {len(text)} characters"


def test_the_site_builds_strictly_and_its_pages_render(site: Path, browser) -> None:  # noqa: F811
    """One test for one build (the fixture): every page of the navigation has content, and the main
    pages in headless Chromium each show their title and text, the navigation leads from the home
    page to a tutorial and on to the reference, and nothing comes from the network."""
    every_page_of_the_navigation_has_content(site)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    for name in MAIN_PAGES:
        page.goto((site / name).as_uri())
        expect(page.locator("article h1").first).to_be_visible()
        text = page.locator("article").inner_text()
        assert len(text) > 400, f"{name}: {len(text)} characters rendered"
        page.screenshot(path=str(SHOTS / f"{name.replace('/', '-').removesuffix('.html')}.png"))
    page.goto((site / "index.html").as_uri())
    assert "session-status-conformance" in page.title()
    # A click starts a navigation and returns; expect() waits (bounded) for the page it leads to.
    page.locator("article a[href='tutorials/python-sdk.html']").first.click()
    expect(page).to_have_url(re.compile(r"tutorials/python-sdk\.html$"))
    expect(page.locator("article h1")).to_contain_text("Python SDK")
    page.locator("nav.md-nav--primary a.md-nav__link[href$='reference/cases.html']").first.click()
    expect(page).to_have_url(re.compile(r"reference/cases\.html$"))
    expect(page.locator("article h3", has_text="status.error.unknown-session-code").first).to_be_visible()
    outside = [u for u in requests if not u.startswith(("file://", "data:", "blob:"))]
    assert outside == [], "the built site loads nothing from the network"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_readmes_one_liner_serves_the_site() -> None:
    """The install half is what this environment already has (the test extra includes docs);
    the serve half runs as written, on a free port instead of 8000."""
    docs_installed()
    install, serve = SERVE.split(" && ")
    assert install == ".venv/bin/pip install -e '.[docs]'"
    port = free_port()
    argv = serve.replace(".venv/bin/", f"{VENV_BIN}/").replace("127.0.0.1:8000", f"127.0.0.1:{port}").split()
    process = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    hung = threading.Timer(120, process.kill)  # a bound on a hang, not a wait
    hung.start()
    try:
        assert process.stderr is not None
        said = []
        for line in process.stderr:  # mkdocs says when it serves: then one request
            said.append(line)
            if "Serving on" in line:
                break
        assert any("Serving on" in line for line in said), "".join(said)[-3000:]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            body = answer.read().decode()
        assert "session-status-conformance" in body and "Where to start" in body
    finally:
        hung.cancel()
        process.terminate()
        process.wait(timeout=30)


def certified(standins: readme.StandIns, command: str) -> None:
    """The page's promise: CONFORMANT, no case failed, and nothing errored."""
    run = standins.run(command, timeout=600)
    last = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""
    assert run.returncode == 0 and last.startswith("CONFORMANT"), run.stdout[-3000:] + run.stderr[-3000:]
    (path,) = standins.folder.glob("reports/*/report.json")
    outcomes = {c["id"]: c["outcome"] for c in json.loads(path.read_text())["cases"]}
    assert not [i for i, o in outcomes.items() if o in ("fail", "error")], outcomes


def test_the_python_sdk_tutorials_agent_is_certified(tmp_path: Path) -> None:
    """The agent of the Python SDK tutorial, copied from the page, certified by the page's command."""
    standins = readme.StandIns(tmp_path / "work", VENV_BIN)
    (standins.folder / "my_agent.py").write_text(
        readme.source_file("docs/tutorials/python-sdk.md", "my_agent.py")
    )
    certified(standins, PYTHON_SDK)


def test_the_typescript_sdk_tutorials_agent_is_certified(tmp_path: Path) -> None:
    """The TypeScript tutorial in an empty folder: its npm install (npm's cache first), its agent
    copied from the page, the page's command."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not on PATH: the TypeScript SDK tutorial cannot run here")
    standins = readme.StandIns(tmp_path / "work", VENV_BIN)
    standins.env["npm_config_prefer_offline"] = "true"
    standins.env["npm_config_fund"] = "false"
    standins.env["npm_config_audit"] = "false"
    installed = standins.run(TS_INSTALL, timeout=300)
    assert installed.returncode == 0, installed.stderr[-3000:]
    (standins.folder / "my-agent.mjs").write_text(
        readme.source_file("docs/tutorials/typescript-sdk.md", "my-agent.mjs")
    )
    certified(standins, TS_SDK)
