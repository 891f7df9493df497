"""The package's catalogs: claims modules are discovered (no import line to add), the claims and
the table declarations load without the engine, and the change summary speaks each section's
words."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import ROOT

from onlinerank.claims import MODULES, REGISTRY
from onlinerank.claims.report import summary_lines
from onlinerank.pipeline import code_inputs

#: the engine: the simulator, its cells and aggregation, OnlineRank's state, the compiled kernels
ENGINE = ("onlinerank.simulate", "onlinerank.cells", "onlinerank.sim_tables", "onlinerank.logweights")


def _loaded_after(statement: str, src: Path = ROOT / "src") -> list[str]:
    """The onlinerank modules loaded by ``statement`` in a fresh interpreter."""
    code = (
        f"import sys, json\n{statement}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('onlinerank'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_claims_and_table_declarations_load_without_the_engine():
    for statement in (
        "import onlinerank.claims",
        "import onlinerank.tables",
        "import onlinerank.figures",
        "from onlinerank.claims.registry import REGISTRY",
    ):
        loaded = _loaded_after(statement)
        assert not [m for m in loaded if m in ENGINE or m.startswith("onlinerank._kernels")], (
            statement,
            loaded,
        )
    # and the package facade loads its public API lazily, the same objects as before
    assert "onlinerank.simulate" not in _loaded_after("import onlinerank")
    assert _loaded_after("from onlinerank import simulate; assert callable(simulate)")


def test_the_claims_step_does_not_depend_on_the_engine_code():
    """Editing the simulator, its cells, the aggregation or OnlineRank's state does not rerun the
    claims: those files are not among the claims rule's code inputs."""
    script = ROOT / "workflow" / "scripts" / "claims.py"
    modules = [ROOT / "src" / Path(*m.__name__.split(".")).with_suffix(".py") for m in MODULES]
    inputs = code_inputs(script, *modules, root=ROOT)
    for engine in ENGINE:
        path = "src/" + engine.replace(".", "/") + ".py"
        assert not [p for p in inputs if p.endswith(path)], (engine, inputs)
    assert any(p.endswith("src/onlinerank/tables/base.py") for p in inputs)


def test_a_new_claims_module_is_found_without_an_import_line(tmp_path):
    """A module dropped into the claims package registers its claim on import of the package."""
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "src" / "onlinerank", src / "onlinerank", ignore=shutil.ignore_patterns("__pycache__")
    )
    (src / "onlinerank" / "claims" / "zz_extra.py").write_text(
        textwrap.dedent(
            '''
            """A finding of a user's own."""
            from .registry import SIM_COLUMNS, claim

            @claim(
                id="beyond.zz_extra",
                section="beyond",
                kind="data",
                title="An extra finding",
                paper_ref="none (a finding)",
                statement="Regret is finite.",
                statistic="mean regret",
                direction="<=",
                threshold=1e300,
                test="exact",
                reads={"sim_upper": SIM_COLUMNS},
            )
            def zz_extra(ctx):
                return []
            '''
        )
    )
    assert "onlinerank.claims.zz_extra" in _loaded_after("import onlinerank.claims", src=src)
    out = subprocess.run(
        [sys.executable, "-c", "import json, onlinerank.claims as c; print(json.dumps(sorted(c.REGISTRY)))"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
    )
    assert set(json.loads(out.stdout)) == set(REGISTRY) | {"beyond.zz_extra"}


def _doc(verdicts: dict[str, tuple[str, str]]) -> dict:
    return {"claims": [{"id": i, "section": s, "verdict": v} for i, (s, v) in verdicts.items()]}


def test_the_change_summary_uses_each_sections_words():
    old = _doc({"thm3.1": ("paper", "PASS"), "beyond.a": ("beyond", "FAIL")})
    new = _doc(
        {
            "thm3.1": ("paper", "FAIL"),
            "beyond.a": ("beyond", "PASS"),
            "beyond.b": ("beyond", "PASS"),
            "thm9": ("paper", "INCONCLUSIVE"),
        }
    )
    line = summary_lines(new, old)[-1]
    assert line == (
        "Changed since the previous run: thm3.1 PASS -> FAIL; beyond.a does not hold -> holds; "
        "beyond.b new -> holds; thm9 new -> INCONCLUSIVE"
    )
