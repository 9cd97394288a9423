# pooljudge: `make test` and `make demo` do all the set-up on a fresh machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test demo lint install bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,postgres]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache --no-logo
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .

demo: $(STAMP)
	$(BIN)/pooljudge demo

bench: $(STAMP)
	$(BIN)/python benchmarks/eval_speed.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
