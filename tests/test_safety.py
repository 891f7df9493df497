"""No unsafe loading: arrays with allow_pickle=False, YAML with a safe loader, no eval/exec."""

import ast
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    [
        *ROOT.glob("src/**/*.py"),
        *ROOT.glob("workflow/**/*.py"),
        *ROOT.glob("bench/**/*.py"),
        ROOT / "Snakefile",
        *ROOT.glob("workflow/rules/*.smk"),
    ]
)


def python_sources():
    return [p for p in SOURCES if p.suffix == ".py"]


@pytest.mark.parametrize("path", python_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_unsafe_calls(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        assert name not in ("eval", "exec"), f"{path}:{node.lineno} calls {name}"
        kw = {k.arg: k.value for k in node.keywords}
        if name == "load" and isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "np":
            v = kw.get("allow_pickle")
            assert isinstance(v, ast.Constant) and v.value is False, (
                f"{path}:{node.lineno} np.load without allow_pickle=False"
            )
        if name == "load" and isinstance(f, ast.Attribute) and getattr(f.value, "id", "") == "yaml":
            raise AssertionError(f"{path}:{node.lineno} uses yaml.load; use yaml.safe_load")
        if name in ("loads", "load") and getattr(getattr(f, "value", None), "id", "") == "pickle":
            raise AssertionError(f"{path}:{node.lineno} unpickles data")


def test_text_sources_have_no_eval():
    for p in SOURCES:
        if p.suffix != ".py":
            text = p.read_text()
            assert "eval(" not in text and "exec(" not in text, p


def test_result_files_refuse_pickles(tmp_path):
    """A block file holding an object array is rejected by the loader (allow_pickle=False)."""
    from onlinerank.io import load_results

    bad = tmp_path / "b0.npz"
    np.savez(bad, **{"x|T1|t": np.array([{"evil": 1}], dtype=object)})
    with pytest.raises(ValueError, match="pickle"):
        load_results(bad)
