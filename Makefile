# ferroflow's one-command dev loop. `make demo` and `make test` work on a fresh machine: each
# creates the virtual environment and builds the extension it needs.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.deps-installed
FUZZ_ITERATIONS ?= 200000

.PHONY: demo test build build-dev lint fmt rust-test python-test bench fuzz-long clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet "maturin>=1.5,<2" "numpy>=1.23" "ml_dtypes>=0.3" "pytest>=7" "hypothesis>=6" ruff matplotlib
	touch $(STAMP)

## Build the extension in release mode into the virtual environment.
build: $(STAMP)
	$(VENV)/bin/maturin develop --release --quiet

## Faster unoptimised build for iterating on the bindings.
build-dev: $(STAMP)
	$(VENV)/bin/maturin develop --quiet

## The main job: the seeds' basics, end to end.
demo: build
	$(PY) examples/basics.py

rust-test:
	cargo test

lint: $(STAMP)
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --all-targets --features python -- -D warnings
	$(VENV)/bin/ruff check python tests benches examples
	$(VENV)/bin/ruff format --check python tests benches examples

python-test: build
	$(PY) -m pytest -q

## Everything CI runs.
test: rust-test lint python-test

fmt: $(STAMP)
	cargo fmt
	$(VENV)/bin/ruff format python tests benches examples
	$(VENV)/bin/ruff check --fix python tests benches examples

bench: build
	$(PY) benches/run_all.py

## A long fuzz run (not part of `make test`).
fuzz-long: build
	$(PY) tests/fuzz_ops.py --iterations $(FUZZ_ITERATIONS)

clean:
	cargo clean
	rm -rf $(VENV)
