# nvlearn — one command to learn, one to test. Each sets itself up on a fresh machine that
# has Python 3.11+, make and git: a virtual environment in .venv (created if absent) with the
# package installed editable plus the test, browser-test and lint tools, and the numba kernels
# compiled once into their cache (python -m nvlearn.warmup), so no notebook waits on them.
#
#   make lab     JupyterLab on notebooks/ (ipywidgets render: the widget extension lives in
#                the same environment as the server)
#   make test    ruff, then pytest: the unit tests in tests/ and nbval over every notebook
#   make bench   the benchmarks (benchmarks/run.py)
#   make bench-browser  every explorer of notebooks 00-05 in headless chromium: input-to-redraw
#                times and layout at 1280 px (benchmarks/bench_browser_widgets.py)
#
# Overridable: PYTHON (the interpreter that creates the venv), VENV, LAB_ARGS, PYTEST_ARGS.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Re-install when pyproject.toml changes; otherwise the set-up step is a no-op.
STAMP := $(VENV)/.nvlearn-installed
EXTRAS := test,browser,dev

# As root, jupyter refuses to start without --allow-root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help install lab test lint bench bench-browser clean-venv

help:
	@echo "make lab    - set up .venv if needed, then JupyterLab on notebooks/"
	@echo "make test   - set up .venv if needed, then ruff + unit tests + nbval over notebooks/"
	@echo "make bench  - set up .venv if needed, then python benchmarks/run.py"
	@echo "make bench-browser - the explorers of notebooks 00-05 timed in headless chromium"
	@echo "make lint   - ruff check ."
	@echo "make clean-venv - remove .venv"

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "nvlearn needs Python 3.11+; run: make PYTHON=python3.11 ...")'
	@test -x $(BIN)/python || { echo "creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	$(BIN)/python -m nvlearn.warmup
	@touch $@

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

# One pytest run: tests/ (unit, packaging, notebook hygiene, browser) and every notebook
# executed top to bottom by nbval; only cells marked "# NBVAL_CHECK_OUTPUT" are compared.
# Serial on purpose (see README, "Testing").
test: lint
	$(BIN)/python -m pytest tests notebooks --nbval-lax --nbval-current-env $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

bench-browser: $(STAMP)
	$(BIN)/python benchmarks/bench_browser_widgets.py

clean-venv:
	rm -rf $(VENV)
