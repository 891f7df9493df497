"""The HTML report as a reader sees it: rendered by headless Chromium (Debian's package, installed
here with apt-get when missing, as the SLURM test does with its cluster), the first view must show
the verdict summary of the claims, read from claims.json.  Skipped, with the reason, only where
Chromium cannot be installed (not root, no apt-get, apt-get failing)."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess

import pytest
from conftest import snakemake

pytestmark = pytest.mark.workflow

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _browser() -> str:
    for name in BROWSERS:
        if path := shutil.which(name):
            return path
    if os.geteuid() != 0:
        pytest.skip("Chromium is not installed and installing it needs root")
    if shutil.which("apt-get") is None:
        pytest.skip("Chromium is not installed and there is no apt-get to install it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
    ):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
        if p.returncode != 0:
            pytest.skip(f"Chromium could not be installed ({' '.join(cmd[:2])}: {p.stderr.strip()[-300:]})")
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("apt-get installed chromium but no chromium executable is on PATH")
    return path


def render(browser: str, page, profile, *extra: str) -> subprocess.CompletedProcess:
    # the flags a closed network needs (no background connections, no updates), a fresh profile
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--window-size=1400,1000",
            "--virtual-time-budget=20000",
            *extra,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture(scope="module")
def report(smoke_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    p = snakemake(smoke_run, "--configfile", "config/smoke.yaml", "--report", str(out))
    assert p.returncode == 0 and out.exists(), p.stderr[-3000:]
    return out


MEASURE = """<script>
// the report renders its pages from embedded data after loading: poll until the heading is there
var started = Date.now();
var poll = setInterval(function () {
  var h = Array.from(document.querySelectorAll("h1, h2, h3")).find(
    function (x) { return x.textContent.indexOf("Verdicts of the claims of the paper") >= 0; });
  if (!h && Date.now() - started < 12000) { return; }
  clearInterval(poll);
  var out = {found: !!h, height: window.innerHeight};
  if (h) {
    var table = h.parentElement.querySelector("table");
    out.heading_top = h.getBoundingClientRect().top;
    out.table_bottom = table ? table.getBoundingClientRect().bottom : null;
  }
  document.body.setAttribute("data-first-view", JSON.stringify(out));
}, 250);
</script>"""


def test_first_view_shows_the_verdict_summary(report, smoke_run, tmp_path):
    browser = _browser()
    # the report as shipped, plus a script that measures where the summary is on the first screen
    page = tmp_path / "measured.html"
    head, _, tail = report.read_text().rpartition("</body>")  # the page's own (data may hold others)
    page.write_text(head + MEASURE + "</body>" + tail)
    p = render(browser, page, tmp_path / "profile", "--dump-dom")
    assert p.returncode == 0, p.stderr[-2000:]
    m = re.search(r'data-first-view="([^"]*)"', p.stdout)
    assert m, "the measuring script did not run"
    view = json.loads(html.unescape(m.group(1)))
    assert view["found"], view
    # the heading and the whole verdict table lie inside the first 1400 x 1000 screen
    assert 0 <= view["heading_top"] and view["table_bottom"] <= view["height"], view
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", p.stdout)))
    doc = json.loads((smoke_run / "results-smoke" / "figures" / "claims.json").read_text())
    for c in doc["claims"]:
        if c["section"] == "paper":  # every claim of the paper with its verdict from claims.json
            assert re.search(re.escape(c["id"]) + r"\s+" + re.escape(c["verdict"]), text), c["id"]
    # and a screenshot of the first screen at 1400 x 1000
    shot = tmp_path / "first.png"
    p = render(browser, report, tmp_path / "profile2", f"--screenshot={shot}")
    assert p.returncode == 0 and shot.stat().st_size > 10_000, p.stderr[-2000:]


def test_figures_sit_under_the_claims_they_support(report):
    """The report's data (embedded JSON) files each figure under its claim's category."""
    text = report.read_text()
    assert "1. Claims of the paper" in text and "2. Findings beyond the paper" in text
    assert "thm3.1: OnlineRank" in text  # a subcategory named after the claim it supports
