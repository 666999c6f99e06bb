# The README's two commands, `make demo` and `make test`, work on a fresh machine with only
# Python 3.11+ and make: each target creates .venv when it is missing and installs Apollo into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint venv clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/apollo demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup

bench: $(STAMP)
	$(BIN)/python -m bench

lint: $(STAMP)
	$(BIN)/ruff check src tests bench tools
	$(BIN)/mypy src

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist src/*.egg-info
