# pooljudge: `make test` and `make demo` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# `make demo` installs only what serving needs (no test chain); `make test` adds the extras
APP_STAMP := $(VENV)/.installed-app
# a regular (not editable) install for import-linter and mypy, which need pooljudge.metrics inside
# pooljudge/ (neither follows the editable finder)
LINT_SITE := .lint-site

.PHONY: test demo lint install bench clean docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,postgres,docs]'
	# autojudge-evaluate's tau_AP-b and tau_GAP are test references; without its dependencies,
	# since one of them (tira) installs a top-level `tests` package that shadows this one's
	$(BIN)/python -m pip install --quiet --no-deps autojudge-evaluate==1.1.0
	touch $(STAMP) $(APP_STAMP)

$(APP_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $(APP_STAMP)

install: $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	rm -rf $(LINT_SITE)
	$(BIN)/python -m pip install --quiet --no-deps --target $(LINT_SITE) .
	cd $(LINT_SITE) && PYTHONPATH=. $(CURDIR)/$(BIN)/lint-imports --no-cache --no-logo $(CURDIR)/pyproject.toml
	cd $(LINT_SITE) && $(CURDIR)/$(BIN)/mypy --config-file $(CURDIR)/pyproject.toml \
	    -p pooljudge.metrics -p pooljudge.pooling -p pooljudge.formats -p pooljudge.kernels -p pooljudge.ground -p pooljudge.cli
	$(MAKE) docs
	$(BIN)/python -m pytest

# the manual: docs/ built into site/ (reference pages generated from the code, mkdocs.yml)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict --quiet

lint: $(STAMP)
	$(BIN)/ruff check .

demo: $(APP_STAMP)
	$(BIN)/pooljudge demo

bench: $(STAMP)
	$(BIN)/python benchmarks/eval_speed.py

clean:
	rm -rf $(VENV) $(LINT_SITE) build site *.egg-info .pytest_cache
