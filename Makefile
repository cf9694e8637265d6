# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: test test-thorough demo bench lint docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	@# dev: the test tools; eval and mcp: the extras whose commands the tests run.
	$(BIN)/python -m pip install --quiet -e '.[dev,eval,mcp]'
	@# Editable installs get no bytecode; hooks start a fresh process per call, so compile now.
	$(BIN)/python -m compileall -q memcli
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check memcli tests benchmarks
	$(BIN)/ruff format --check memcli tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest

# Hypothesis at full strength (HYPOTHESIS_PROFILE=thorough: many more examples per property).
test-thorough: $(STAMP)
	HYPOTHESIS_PROFILE=thorough $(BIN)/pytest

demo: $(STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" bash scripts/demo.sh

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

docs: $(STAMP)
	$(BIN)/python scripts/gen_cli_docs.py > docs/cli.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis demo-repo
