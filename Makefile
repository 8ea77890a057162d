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
#   make release the student release (notebooks/, build/course/release/) and worked solutions
#                (build/course/solutions/) from instructor/source/ (nbgrader; tools/course.py)
#   make grade SUBMISSIONS=dir  grade dir/<student>/<notebook>.ipynb: build/course/grades.csv
#                (per student and question) and manual.csv/.md (free text, beside the rubric)
#   make site    the course as static HTML in build/site/ (tools/site.py)
#
# Overridable: PYTHON (the interpreter that creates the venv), VENV, LAB_ARGS, PYTEST_ARGS.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Re-install when pyproject.toml changes; otherwise the set-up step is a no-op.
STAMP := $(VENV)/.nvlearn-installed
EXTRAS := test,browser,dev,course

# As root, jupyter refuses to start without --allow-root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help install lab test lint bench bench-browser release grade site clean-venv

help:
	@echo "make lab    - set up .venv if needed, then JupyterLab on notebooks/"
	@echo "make test   - set up .venv if needed, then ruff + unit tests + nbval over notebooks/"
	@echo "make bench  - set up .venv if needed, then python benchmarks/run.py"
	@echo "make bench-browser - the explorers of notebooks 00-05 timed in headless chromium"
	@echo "make release - student release + worked solutions from instructor/source/ (nbgrader)"
	@echo "make grade SUBMISSIONS=dir - grade dir/<student>/<notebook>.ipynb -> build/course/grades.csv"
	@echo "make site   - the course as static HTML, executed, in build/site/"
	@echo "make lint   - ruff check ."
	@echo "make clean-venv - remove .venv"

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "nvlearn needs Python 3.11+; run: make PYTHON=python3.11 ...")'
	@test -x $(BIN)/python || { echo "creating $(VENV) with $(PYTHON)"; $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	@# nbgrader is used from the command line only: its Jupyter extensions (formgrader,
	@# assignment list, validate button) and notebook 7's lab extension stay off in the lab.
	-@$(BIN)/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader @jupyter-notebook/lab-extension >/dev/null 2>&1
	-@for ext in formgrader validate_assignment assignment_list course_list; do $(BIN)/jupyter server extension disable --sys-prefix nbgrader.server_extensions.$$ext >/dev/null 2>&1; done
	-@$(BIN)/jupyter server extension disable --sys-prefix notebook >/dev/null 2>&1
	$(BIN)/python -m nvlearn.warmup
	@touch $@

lab: $(STAMP)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

# One pytest run: tests/ (unit, packaging, notebook hygiene, browser), every docstring example
# in nvlearn/, and every notebook executed top to bottom by nbval; only cells marked
# "# NBVAL_CHECK_OUTPUT" are compared. Serial on purpose (see README, "Testing").
test: lint
	$(BIN)/python -m pytest tests nvlearn notebooks --doctest-modules --nbval-lax \
	    --nbval-current-env $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

bench-browser: $(STAMP)
	$(BIN)/python benchmarks/bench_browser_widgets.py

release: $(STAMP)
	$(BIN)/python tools/course.py release

# One cell of student code may run GRADE_TIMEOUT seconds before it is interrupted.
GRADE_TIMEOUT ?= 300
grade: $(STAMP)
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade SUBMISSIONS=dir (dir/<student>/<notebook>.ipynb)"; exit 2; }
	@test -f build/course/gradebook.db || $(MAKE) release
	$(BIN)/python tools/course.py grade "$(SUBMISSIONS)" --timeout $(GRADE_TIMEOUT)

# The static course site: every notebook executed and rendered (graded ones from their worked
# solutions, each folded behind a click) into build/site/.
site: release
	$(BIN)/python tools/site.py

clean-venv:
	rm -rf $(VENV)
