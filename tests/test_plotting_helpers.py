"""onlinerank.plotting helpers every figure script uses: log axes labelled with plain numbers, the
provenance stamp, atomic saving, the tables of a figure job.  (learner_style and regret_panels:
tests/test_plotting.py.)"""

import math
from types import SimpleNamespace

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from onlinerank.io import write_csv  # noqa: E402
from onlinerank.plotting import (  # noqa: E402
    figure_context,
    figure_tables,
    finish,
    plain_log_axis,
    save_figure,
    stamp,
    use_style,
)
from onlinerank.provenance import config_digest, git_commit  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def ticks(axis, lo, hi):
    return [t for t in axis.get_major_locator().tick_values(lo, hi) if lo <= t <= hi]


def test_plain_log_axis_ticks_and_labels():
    fig, ax = plt.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(10, 1000)  # two decades: 1-2-5 ticks
    ax.set_ylim(1, 1e7)  # seven decades: one tick per decade
    plain_log_axis(ax)
    xt = ticks(ax.xaxis, 10, 1000)
    assert xt == pytest.approx([10, 20, 50, 100, 200, 500, 1000])
    yt = ticks(ax.yaxis, 1, 1e7)
    assert len(yt) >= 3
    assert all(abs(t / 10 ** round(math.log10(t)) - 1) < 1e-9 for t in yt)  # powers of 10 only
    fmt = ax.xaxis.get_major_formatter()
    assert [fmt(v, 0) for v in (0.005, 20, 1000, 99999, 1e5, 1e7)] == [
        "0.005",
        "20",
        "1000",
        "99999",
        "1e5",
        "1e7",
    ]
    assert ax.xaxis.get_minor_formatter()(30, 0) == ""


def test_plain_log_axis_one_axis_only():
    fig, ax = plt.subplots()
    ax.set_yscale("log")
    ax.set_ylim(1, 100)
    before = ax.xaxis.get_major_formatter()
    plain_log_axis(ax, "y")
    assert ax.xaxis.get_major_formatter() is before
    assert ax.yaxis.get_major_formatter()(200, 0) == "200"


def test_stamp_writes_the_digest_and_commit():
    fig = plt.figure()
    stamp(fig, "abc123def456", "0123456789+dirty")
    (t,) = fig.texts
    assert t.get_text() == "config abc123def456 · commit 0123456789+dirty"
    assert t.get_position() == (0.995, 0.005)


def test_save_figure_writes_each_format_atomically_and_reproducibly(tmp_path):
    use_style()
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 1, 2])
    png, pdf = tmp_path / "f.png", tmp_path / "sub" / "f.pdf"
    save_figure(fig, png, pdf)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["f.pdf", "f.png"]
    first = pdf.read_bytes()
    save_figure(fig, pdf)
    assert pdf.read_bytes() == first  # no creation date: the same figure gives the same bytes
    assert b"CreationDate" not in first


def test_figure_tables_reads_the_named_tables_in_order(tmp_path):
    write_csv(tmp_path / "a.csv", [{"n": 3, "x": 0.5}])
    write_csv(tmp_path / "b.csv", [{"name": "hedge"}, {"name": "fpl"}])
    smk = SimpleNamespace(
        params=SimpleNamespace(tables=["sim_upper", "runtime"]),
        input=SimpleNamespace(tables=[str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]),
    )
    assert figure_tables(smk) == {
        "sim_upper": [{"n": 3, "x": 0.5}],
        "runtime": [{"name": "hedge"}, {"name": "fpl"}],
    }
    smk.input.tables.pop()
    with pytest.raises(ValueError):  # names and files must pair up
        figure_tables(smk)


def test_figure_context_and_finish(tmp_path):
    from onlinerank.config import load_settings

    config = {
        "seed": 3,
        "learners": {"pl": {"name": "onlinerank"}},
        "adversaries": {"u": {"name": "uniform"}},
    }
    load_settings(config)  # what the Snakefile does before any job: the job's dict is validated
    digest, commit = figure_context(SimpleNamespace(config=config))
    assert digest == config_digest(config)
    assert commit == git_commit()
    assert matplotlib.get_backend().lower() == "agg"
    fig = plt.figure()
    smk = SimpleNamespace(output=SimpleNamespace(png=str(tmp_path / "x.png"), pdf=str(tmp_path / "x.pdf")))
    finish(fig, smk, digest, commit)
    assert (tmp_path / "x.png").stat().st_size > 0 and (tmp_path / "x.pdf").stat().st_size > 0
    assert [t.get_text() for t in fig.texts] == [f"config {digest} · commit {commit}"]
