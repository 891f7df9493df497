# Two commands on a fresh machine (Python >= 3.11 with pip):
#   make figures   regenerate every figure and the claims report (default target)
#   make test      run the test suite
# Each creates .venv and installs what it needs on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.DEFAULT_GOAL := figures
.PHONY: figures report test bench lint clean smoke

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-workflow: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[workflow]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[workflow,test]'
	touch $@ $(VENV)/.installed-workflow

figures: $(VENV)/.installed-workflow          ## run the default tier: figures/ and figures/claims.md
	$(BIN)/snakemake

smoke: $(VENV)/.installed-workflow            ## the tiny tier (writes results-smoke/ only)
	$(BIN)/snakemake --configfile config/smoke.yaml

report: figures                               ## Snakemake's self-contained HTML report
	$(BIN)/snakemake --report results/report.html

test: $(VENV)/.installed-test lint            ## the linters (make lint), then the test suite
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-test                ## performance ratios against floors measured in the same run
	$(BIN)/python -m bench

lint: $(VENV)/.installed-test                 ## ruff (rules, formatting), mypy on src/, snakefmt, snakemake --lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/snakefmt --check Snakefile workflow/rules/*.smk
	$(BIN)/snakemake --lint

clean:                                        ## remove results (figures/ is kept: it is in the repository)
	rm -rf results results-smoke .snakemake
