"""The package ships its annotations (PEP 561): py.typed is in the package and declared as package
data, so a wheel carries it (checked once by hand: ``pip wheel .`` lists onlinerank/py.typed)."""

import tomllib

from conftest import ROOT

from onlinerank.pipeline import PACKAGE_DIR


def test_py_typed_is_shipped_as_package_data():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["onlinerank"]
    assert (PACKAGE_DIR / "py.typed").is_file()
    assert (ROOT / "src" / "onlinerank" / "py.typed").is_file()


def test_the_linters_of_make_lint_are_in_the_test_extra():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    test_extra = " ".join(pyproject["project"]["optional-dependencies"]["test"])
    makefile = (ROOT / "Makefile").read_text()
    lint = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    for tool in ("ruff", "mypy", "snakefmt"):
        assert tool in test_extra and f"$(BIN)/{tool}" in lint, tool
    # the workflow's own linter, which exits 1 on any lint (snakemake.cli: `if any_lint: return
    # False`); make lint is where it runs, not a second time inside the test suite
    assert "$(BIN)/snakemake --lint" in lint
    test_rule = next(line for line in makefile.splitlines() if line.startswith("test:"))
    assert "lint" in test_rule.split("##")[0]  # make test (what CI runs) runs make lint first
