# pooljudge: `make test` and `make demo` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# `make demo` installs only what serving needs (no test chain); `make test` adds the extras
APP_STAMP := $(VENV)/.installed-app
# a regular (not editable) install for import-linter, which needs pooljudge.metrics inside pooljudge/
LINT_SITE := .lint-site

.PHONY: test demo lint install bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,postgres]'
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
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .

demo: $(APP_STAMP)
	$(BIN)/pooljudge demo

bench: $(STAMP)
	$(BIN)/python benchmarks/eval_speed.py

clean:
	rm -rf $(VENV) $(LINT_SITE) build *.egg-info .pytest_cache
