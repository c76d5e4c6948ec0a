# The two commands of the README: `make play` and `make test`.
# Both create the virtual environment on first use and reinstall when
# pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8029

.PHONY: play test chromium postgres redis pyodide axe lint typecheck unit bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-play: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[fast]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[fast,test]'
	touch $@

play: $(VENV)/.installed-play pyodide
	$(BIN)/twentynine serve --host $(HOST) --port $(PORT) --open

test: $(VENV)/.installed-test chromium postgres redis pyodide axe lint typecheck unit

# The browser tests drive Debian's chromium; install it when it is missing.
chromium:
	./scripts/ensure-chromium

# The store tests start a PostgreSQL server of their own; install it when it is missing.
postgres:
	./scripts/ensure-postgres

# The cluster tests and the load benchmark start Redis servers of their own; install it when missing.
redis:
	./scripts/ensure-redis

# Pyodide's runtime (npm ci, then a copy of its files) for offline play in the browser.
pyodide:
	./scripts/ensure-pyodide

# axe-core (npm ci) for the accessibility checks of the browser tests.
axe:
	./scripts/ensure-axe

lint: $(VENV)/.installed-test
	$(BIN)/ruff check twentynine tests
	$(BIN)/ruff format --check twentynine tests

typecheck: $(VENV)/.installed-test
	$(BIN)/mypy

unit: $(VENV)/.installed-test
	$(BIN)/pytest -n auto -q

bench: $(VENV)/.installed-play
	$(BIN)/twentynine bench engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info node_modules twentynine/web/pyodide
