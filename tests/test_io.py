"""onlinerank.io: atomic writes leave nothing behind on failure, deterministic CSV formatting,
typed reading of tables, and the npz round trip of replicate blocks."""

import json
import math
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from onlinerank.io import (
    atomic_path,
    atomic_write_text,
    load_results,
    read_table,
    save_results,
    write_csv,
    write_json,
)
from onlinerank.results import SimResult


def test_atomic_path_renames_on_success_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "sub" / "out.txt"  # the directory is created
    with atomic_path(target) as tmp:
        assert tmp != str(target) and not target.exists()
        with open(tmp, "w") as f:
            f.write("done")
    assert target.read_text() == "done"
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_a_failing_write_leaves_neither_the_file_nor_a_temporary(tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(RuntimeError, match="interrupted"), atomic_path(target) as tmp:
        with open(tmp, "w") as f:
            f.write("half a file")
        raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


def test_a_temporary_left_by_sigkill_matches_no_output_glob(tmp_path):
    """SIGKILL runs no ``finally``: the temporary stays.  Its name must not look like a finished
    output to a glob such as ``*.npz`` (the rerun and the tests search the results that way)."""
    for name in ("block.npz", "table.csv", "fig.png", "claims.json"):
        with atomic_path(tmp_path / name) as tmp:
            left = Path(tmp)
            assert left.name.startswith("." + name) and left.suffix == ".part"
            assert not list(tmp_path.glob("*" + Path(name).suffix))
            assert not list(tmp_path.rglob("*" + Path(name).suffix))
            Path(tmp).write_text("x")


def test_a_failing_rewrite_keeps_the_previous_file(tmp_path):
    target = tmp_path / "table.csv"
    atomic_write_text(target, "old\n")
    with pytest.raises(KeyboardInterrupt), atomic_path(target) as tmp:
        with open(tmp, "w") as f:
            f.write("new")
        raise KeyboardInterrupt
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]


def test_write_csv_formats_floats_by_repr_and_keeps_column_order(tmp_path):
    path = tmp_path / "t.csv"
    rows = [
        {"b": 0.1 + 0.2, "a": 3, "flag": True, "name": "x", "v": np.float64(1 / 3)},
        {"b": math.nan, "a": -1, "flag": False, "name": "y z", "v": math.inf},
    ]
    write_csv(path, rows)
    assert path.read_text() == (
        "b,a,flag,name,v\n"
        f"{0.1 + 0.2!r},3,True,x,{1 / 3!r}\n"  # repr: round-trips exactly
        "nan,-1,False,y z,inf\n"
    )


def test_write_csv_of_no_rows_is_an_empty_file(tmp_path):
    write_csv(tmp_path / "e.csv", [])
    assert (tmp_path / "e.csv").read_text() == ""
    assert read_table(tmp_path / "e.csv") == []


def test_concat_csv_is_write_csv_of_all_the_rows(tmp_path):
    """A table's pieces pooled: one header, the rows in order, empty pieces skipped; byte for byte
    what write_csv writes for all the rows; pieces with other columns are refused."""
    from onlinerank.io import concat_csv

    rows = [{"a": i, "b": 0.1 * i, "c": f"x{i}"} for i in range(5)]
    parts = [rows[:2], [], rows[2:3], rows[3:]]
    paths = []
    for i, part in enumerate(parts):
        paths.append(tmp_path / f"p{i}.csv")
        write_csv(paths[-1], part)
    write_csv(tmp_path / "all.csv", rows)
    assert concat_csv(paths) == (tmp_path / "all.csv").read_text()
    assert concat_csv([paths[1]]) == ""
    write_csv(tmp_path / "other.csv", [{"a": 1, "c": 2}])
    with pytest.raises(ValueError, match="other.csv: its columns differ"):
        concat_csv([paths[0], tmp_path / "other.csv"])


def test_read_table_types_round_trip_what_write_csv_wrote(tmp_path):
    path = tmp_path / "t.csv"
    rows = [{"n": 10, "x": 0.1 + 0.2, "big": 1e300, "ok": True, "label": "a-b", "e": "1e3"}]
    write_csv(path, rows)
    (got,) = read_table(path)
    assert got == {"n": 10, "x": 0.1 + 0.2, "big": 1e300, "ok": True, "label": "a-b", "e": 1000.0}
    assert type(got["n"]) is int and type(got["x"]) is float and type(got["ok"]) is bool
    write_csv(path, [{"v": math.nan, "w": -math.inf}])
    (got,) = read_table(path)
    assert math.isnan(got["v"]) and got["w"] == -math.inf


def test_write_json_text_and_objects(tmp_path):
    write_json(tmp_path / "a.json", {"z": 1, "a": [1.5, None]})
    text = (tmp_path / "a.json").read_text()
    assert json.loads(text) == {"z": 1, "a": [1.5, None]}
    assert text.endswith("\n") and text.index('"z"') < text.index('"a"')  # insertion order
    write_json(tmp_path / "b.json", '{"raw": true}')
    assert (tmp_path / "b.json").read_text() == '{"raw": true}'


def test_blocks_round_trip_through_npz_exactly(tmp_path):
    rng = np.random.default_rng(0)
    t = np.array([1, 4, 9])

    def res(R, extra):
        return SimResult(
            t,
            rng.random((R, 3)),
            rng.random((R, 3)),
            rng.random((R, 3)),
            np.arange(R) + 5,
            {"M": 4.0, "cell": "a/b", "eta": [0.1, 0.2]},
            extra,
        )

    blocks = {
        "mallows|onlinerank-pl|n4|k1|T100": res(2, {"spearman": rng.random((2, 3))}),
        "mallows|ftl|n4|k1|T100": res(2, {}),
        "mallows|ftl|n4|k1|T50": res(2, {}),
    }
    path = tmp_path / "b0.npz"
    save_results(blocks, path)
    back = load_results(path)
    assert set(back) == set(blocks)
    for key, r in blocks.items():
        b = back[key]
        for name in ("t", "loss", "exp_loss", "best", "reps"):
            np.testing.assert_array_equal(getattr(b, name), getattr(r, name))
        assert b.meta == r.meta
        assert set(b.extra) == set(r.extra)
        for name in r.extra:
            np.testing.assert_array_equal(b.extra[name], r.extra[name])
    assert [p.name for p in tmp_path.iterdir()] == ["b0.npz"]


def test_a_results_file_with_stray_or_missing_arrays_is_refused(tmp_path):
    """A file that is not what save_results wrote is an error, not a partial read."""
    stray = tmp_path / "stray.npz"
    np.savez(stray, **{"a|b|t": np.arange(3)})
    with pytest.raises(ValueError, match="belong to no cell"):
        load_results(stray)
    missing = tmp_path / "missing.npz"
    np.savez(missing, **{"a|b|meta": np.array("{}"), "a|b|t": np.arange(3)})
    with pytest.raises(ValueError, match="lacks the array 'a\\|b\\|loss'"):
        load_results(missing)


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o027, 0o640)])
def test_every_atomic_write_honours_the_umask(tmp_path, umask, mode):
    """Outputs get the mode of an ordinary new file (0666 less the umask), not mkstemp's 0600:
    collaborators on a shared cluster read each other's results."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from onlinerank.io import current_umask
    from onlinerank.plotting import save_figure

    old = os.umask(umask)
    try:
        assert current_umask() == umask
        with open(tmp_path / "ordinary.txt", "w") as f:  # the reference: a file open() creates
            f.write("x")
        atomic_write_text(tmp_path / "a.txt", "x")
        write_csv(tmp_path / "t.csv", [{"a": 1}])
        write_json(tmp_path / "j.json", {"a": 1})
        r = SimResult(np.array([1]), *(np.zeros((1, 1)),) * 3, np.arange(1), {"M": 1.0}, {})
        save_results({"a|b|n2|k1|T1": r}, tmp_path / "b.npz")
        fig = plt.figure()
        save_figure(fig, tmp_path / "f.png")
        plt.close(fig)
        with atomic_path(tmp_path / "p.bin") as tmp, open(tmp, "wb") as f:
            f.write(b"x")
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    assert modes["ordinary.txt"] == mode
    assert modes == dict.fromkeys(modes, mode), modes
