# Two commands on a fresh machine (Python >= 3.11 with pip):
#   make figures   regenerate every figure and the claims report (default target)
#   make test      run the test suite
# Each creates .venv and installs what it needs on first use, at the exact versions (with hashes)
# of the lock files requirements/*.txt; `make lock` refreshes them.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip install --quiet
# pip byte-compiles what it installs file by file in one process (19 of the 33 s of installing
# test.txt here): the locked packages are installed with --no-compile and compiled here on every
# core, with the project's own sources, whose bytecode an editable install leaves to the first
# import (to every import where PYTHONDONTWRITEBYTECODE is set).  As with pip, a file that does not
# compile (a template, a module for another Python) is left to its import.
BYTECOMPILE := $(BIN)/python -c "import compileall, sys; [compileall.compile_dir(d, quiet=2, workers=0) for d in sys.argv[1:]]"
LOCK   := requirements
# the lock files' own tool, pinned so that a refresh writes the same format
PIP_TOOLS := pip-tools==7.6.2
# `make lock` moves every package to the newest version pyproject.toml allows; to move one only:
#   make lock UPGRADE='--upgrade-package numpy'
UPGRADE ?= --upgrade
COMPILE = CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/lock-tools/bin/pip-compile --quiet $(UPGRADE) \
        --generate-hashes --allow-unsafe --strip-extras --all-build-deps --no-emit-index-url --no-emit-find-links
# `make notebook NOTEBOOK_ARGS='--no-browser --port 8899'`; Jupyter refuses to run as root without --allow-root
NOTEBOOK_ARGS ?=
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

.DEFAULT_GOAL := figures
.PHONY: figures figure report report-smoke test bench lint clean smoke unlock notebook lock help docs replicate config-doc

# the tier of `make figure`, `make unlock` and `make report`: the default tier unless
# CONFIG=config/smoke.yaml (or any config file) names another
CONFIG ?= config/config.yaml
# before each run: a Snakemake lock left by an interrupted run stops it with one line naming
# `make unlock` (it is not removed automatically: a run on another host of a shared file system
# cannot be seen from here)
CHECK_LOCK = $(BIN)/python -m onlinerank.tiers check-lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the locked packages, then the project itself on top (editable, no dependency resolution); pip
# is quiet, so one line says what is being installed first
$(VENV)/.installed-workflow: $(LOCK)/workflow.txt pyproject.toml | $(BIN)/python
	@echo "onlinerank: installing the pinned packages of $(LOCK)/workflow.txt into $(VENV) (once, about 2 minutes)"
	$(PIP) --no-compile --require-hashes -r $(LOCK)/workflow.txt
	$(PIP) --no-deps --no-build-isolation -e .
	$(BYTECOMPILE) $(VENV)/lib src
	touch $@

# test.txt holds workflow.txt's versions plus the test tools and JupyterLab
$(VENV)/.installed-test: $(LOCK)/test.txt pyproject.toml | $(BIN)/python
	@echo "onlinerank: installing the pinned packages of $(LOCK)/test.txt (the pipeline, the test tools, JupyterLab, Sphinx) into $(VENV) (once, about 3 minutes)"
	$(PIP) --no-compile --require-hashes -r $(LOCK)/test.txt
	$(PIP) --no-deps --no-build-isolation -e .
	$(BYTECOMPILE) $(VENV)/lib src
	touch $@ $(VENV)/.installed-workflow

figures: $(VENV)/.installed-workflow          ## run the default tier: figures/ and figures/claims.md
	@$(CHECK_LOCK) config/config.yaml
	$(BIN)/snakemake

smoke: $(VENV)/.installed-workflow            ## the tiny tier (writes results-smoke/ only)
	@$(CHECK_LOCK) config/smoke.yaml
	$(BIN)/snakemake --configfile config/smoke.yaml

# `make figure NAME=regret_vs_T` makes one figure of the default tier (and only what it needs, the
# figure in a job of its own: the run option `figure`), `make figure NAME=regret_vs_T
# CONFIG=config/smoke.yaml` the same figure of another tier, under that tier's figures_dir.
figure: $(VENV)/.installed-workflow           ## one figure: make figure NAME=regret_vs_T [CONFIG=config/smoke.yaml]
	@$(BIN)/python -m onlinerank.tiers check-figure $(CONFIG) "$(NAME)"
	@$(CHECK_LOCK) $(CONFIG)
	$(BIN)/snakemake --configfile $(CONFIG) --config figure=$(NAME)

unlock: $(VENV)/.installed-workflow           ## after an interrupted run: remove its lock (make unlock [CONFIG=...])
	$(BIN)/snakemake --configfile $(CONFIG) --unlock

# `make replicate SEEDS=4` reruns every claim decided on sampled data at 4 further root seeds
# (seed + 1 ... seed + 4, each under <results_dir>/seeds/<seed>/; the anchor run is not touched)
# and adds the column "held at s of S seeds" to the tier's claims report.  CONFIG=... selects the
# tier, PROFILE=workflow/profiles/slurm sends the jobs to SLURM, ARGS=-n makes it a dry run.
SEEDS ?= 4
PROFILE ?=
ARGS ?=
replicate: $(VENV)/.installed-workflow        ## claims on sampled data at further seeds: make replicate SEEDS=4 [CONFIG=...] [PROFILE=...]
	@$(CHECK_LOCK) $(CONFIG)
	$(BIN)/python -m onlinerank.seeds $(CONFIG) $(SEEDS) $(if $(PROFILE),--workflow-profile $(PROFILE)) $(ARGS)

# `make report` for the default tier, `make report CONFIG=config/smoke.yaml` for another tier:
# the report is written into that tier's results directory
report: $(VENV)/.installed-workflow            ## Snakemake's self-contained HTML report (runs the tier first)
	$(BIN)/snakemake --configfile $(CONFIG)
	$(BIN)/snakemake --configfile $(CONFIG) --report $$($(BIN)/python -c "import yaml,sys; print(yaml.safe_load(open(sys.argv[1])).get('results_dir', 'results'))" $(CONFIG))/report.html

report-smoke:                                 ## the HTML report of the smoke tier (results-smoke/report.html)
	$(MAKE) report CONFIG=config/smoke.yaml

test: $(VENV)/.installed-test lint            ## the linters (make lint), then the test suite
	$(BIN)/python -m pytest -n auto --dist worksteal

# the documentation site: Sphinx + MyST + autodoc, warnings as errors, nitpicky references
docs: $(VENV)/.installed-test                 ## build the documentation site into docs/_build/html
	$(BIN)/sphinx-build -W --keep-going -n -q -b html docs docs/_build/html

# config/README.md is generated from the config's schema, the one place a key's default and meaning live
config-doc: $(VENV)/.installed-test           ## write config/README.md from src/onlinerank/config.schema.yaml
	$(BIN)/python -m onlinerank.config_doc --write config/README.md

bench: $(VENV)/.installed-test                ## performance ratios against floors measured in the same run
	$(BIN)/python -m bench

lint: $(VENV)/.installed-test                 ## ruff (rules, formatting), mypy on src/ and workflow/mutants/, snakefmt, snakemake --lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/snakefmt --check Snakefile workflow/rules/*.smk
	$(BIN)/snakemake --lint

notebook: $(VENV)/.installed-test             ## open notebooks/tutorial.ipynb in JupyterLab (results: make smoke)
	@test -f results/tables/sim_upper.csv || test -f results-smoke/tables/sim_upper.csv || \
		echo "note: no results yet; the notebook needs 'make smoke' (a few minutes) or 'make figures'"
	$(BIN)/jupyter lab $(ALLOW_ROOT) --ServerApp.root_dir="$(CURDIR)" $(NOTEBOOK_ARGS) notebooks/tutorial.ipynb

$(VENV)/lock-tools/bin/pip-compile:
	$(PYTHON) -m venv $(VENV)/lock-tools
	$(VENV)/lock-tools/bin/python -m pip install --quiet $(PIP_TOOLS)

lock: $(VENV)/lock-tools/bin/pip-compile      ## refresh requirements/*.txt (exact versions + hashes), environment.yml
	$(COMPILE) --extra workflow --extra test -o $(LOCK)/test.txt pyproject.toml
	$(COMPILE) --extra workflow -c $(LOCK)/test.txt -o $(LOCK)/workflow.txt pyproject.toml
	$(PYTHON) $(LOCK)/environment.py $(LOCK)/test.txt > environment.yml.tmp && mv environment.yml.tmp environment.yml

clean:                                        ## remove results (figures/ is kept: it is in the repository)
	rm -rf results results-smoke .snakemake docs/_build

help:                                         ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## /  make \1\t/' | expand -t 20
