# ferroflow's one-command dev loop. `make demo` and `make test` work on a fresh machine: each
# creates the virtual environment and builds the extension it needs.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.deps-installed
FUZZ_ITERATIONS ?= 200000

.PHONY: demo test build build-tests build-dev lint fmt rust-test python-test bench fuzz-long clean gpu-runtime \
	tf-oracle protos nasm

# Tests run every WGSL kernel on Mesa's lavapipe (a Vulkan device on the CPU), which counts as a
# GPU only with this flag. Mesa warns without a runtime directory.
TEST_ENV := FERROFLOW_ALLOW_SOFTWARE_GPU=1 XDG_RUNTIME_DIR=$${XDG_RUNTIME_DIR:-/tmp}

# A clean CI clone builds once: incremental caches would only cost disk there.
ifeq ($(CI),true)
export CARGO_INCREMENTAL := 0
endif

# TensorFlow is the oracle of the parity tests (tests/parity), never a dependency: it gets its own
# environment, so that the tests run in CI instead of skipping. FERROFLOW_TF_PYTHON may name an
# interpreter that already has it. The stamp names the version, so a new pin reinstalls.
TF_VENV := .venv-tf
TF_VERSION := 2.21.0
TF_STAMP := $(TF_VENV)/.tensorflow-$(TF_VERSION)

# The optional modules that Keras's legacy image preprocessing (ImageDataGenerator, load_img,
# image_dataset_from_directory), its DataFrame iterator and STFTSpectrogram's named windows import
# at run time. They are test dependencies only (Keras raises ImportError without them, and so does
# ferroflow), installed into both environments so that the parity tests of those paths run instead
# of skipping. The stamps depend on this Makefile, so that a changed pin installs again.
TEST_EXTRAS := "pillow>=9.1" "scipy>=1.10" "pandas>=1.5"
EXTRAS_STAMP := $(VENV)/.test-extras
TF_EXTRAS_STAMP := $(TF_VENV)/.test-extras
ifdef FERROFLOW_TF_PYTHON
TF_ORACLE :=
else
FERROFLOW_TF_PYTHON := $(abspath $(TF_VENV))/bin/python
TF_ORACLE := $(TF_STAMP) $(TF_EXTRAS_STAMP)
endif

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet "maturin>=1.5,<2" "numpy>=1.23" "ml_dtypes>=0.3" "h5py>=3.7" "pytest>=7" "pytest-xdist>=3" "hypothesis>=6" ruff matplotlib
	touch $(STAMP)

$(TF_STAMP):
	$(PYTHON) -m venv $(TF_VENV)
	$(TF_VENV)/bin/pip install --quiet --upgrade pip
	$(TF_VENV)/bin/pip install --quiet "tensorflow-cpu==$(TF_VERSION)" "tensorboard==2.21.0" "numpy>=1.23"
	touch $(TF_STAMP)

$(EXTRAS_STAMP): $(STAMP) Makefile
	$(PIP) install --quiet $(TEST_EXTRAS)
	touch $(EXTRAS_STAMP)

# tf_keras (Keras 2): the parity tests restore checkpoints it writes (layer_with_weights-N keys).
# Without its dependencies: it asks for `tensorflow`, whose CUDA build would overwrite
# tensorflow-cpu's files and change the oracle.
$(TF_EXTRAS_STAMP): $(TF_STAMP) Makefile
	$(TF_VENV)/bin/pip install --quiet $(TEST_EXTRAS)
	$(TF_VENV)/bin/pip install --quiet --no-deps "tf_keras==$(TF_VERSION)"
	touch $(TF_EXTRAS_STAMP)

## TensorFlow's environment for the parity tests, unless FERROFLOW_TF_PYTHON names one.
tf-oracle: $(TF_ORACLE)

## Build the extension in release mode into the virtual environment.
build: $(STAMP) nasm
	$(VENV)/bin/maturin develop --release --quiet

## The extension the Python tests run: optimised like `build` but without link-time
## optimisation and with more codegen units (Cargo.toml's `test-extension` profile), which
## compiles faster on CI's two cores; the demo and the benchmarks keep `build`.
build-tests: $(STAMP) nasm
	$(VENV)/bin/maturin develop --profile test-extension --quiet

## Faster unoptimised build for iterating on the bindings.
build-dev: $(STAMP) nasm
	$(VENV)/bin/maturin develop --quiet

## The main job: the seeds' basics, end to end.
demo: build
	$(PY) examples/basics.py

# The library's tests run with the wgpu backend. The build without it (the stub backend with no
# devices) is compiled by `lint`'s clippy over all targets, which keeps the `gpu` feature
# optional; running its tests too cost a second full compile of the crate (minutes on CI's two
# cores) for no test that differs.
#
# They build in the extension's `test-extension` profile with the `python` feature, so that the
# dependencies compiled here are the ones `build-tests` links (CI's clean clone compiled every
# dependency twice before: a dev build for these tests, then the extension's). Only our crate
# is overridden: unoptimised (its tests run in about a second either way, and optimising the
# test harness took minutes) and with the debug assertions and overflow checks of a dev build.
# Test binaries link libpython (pyo3 without `extension-module`): the venv's interpreter names
# it, as it does for maturin. The arguments are in tools/cargo_test_args, which
# tests/test_saved_model.py reads too: the Rust example it builds is then found built here.
RUST_TEST_ARGS := $(shell cat tools/cargo_test_args)
PY_LIBDIR = $(shell $(PY) -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR") or "")')
RUST_TEST_ENV = PYO3_PYTHON="$(abspath $(PY))" LD_LIBRARY_PATH="$(PY_LIBDIR)$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}"
rust-test: $(STAMP) gpu-runtime nasm
	$(TEST_ENV) $(RUST_TEST_ENV) cargo test $(RUST_TEST_ARGS)

# Clippy runs with the default features (plus python, which only adds code) and with none; no
# code is compiled only without python, so a third run with the default features alone checked
# nothing new. It runs in the tests' profile, so that the build scripts (libjpeg-turbo's C and
# assembly among them) and procedural macros that rust-test compiled are reused.
lint: $(STAMP) nasm
	cargo fmt --check
	cargo clippy --profile test-extension --all-targets --no-default-features -- -D warnings
	cargo clippy --profile test-extension --all-targets --features python -- -D warnings
	$(VENV)/bin/ruff check python tests benches examples tools
	$(VENV)/bin/ruff format --check python tests benches examples tools

## Installs nasm when missing: mozjpeg-sys assembles libjpeg-turbo's SIMD kernels with it (JPEG
## decoding as fast as TensorFlow's, bit for bit the same); without it the crate builds the C code.
nasm:
	@if ! command -v nasm >/dev/null 2>&1; then \
		echo "Installing nasm so that JPEG decoding uses libjpeg-turbo's SIMD kernels"; \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q nasm; \
	fi

## Installs lavapipe (Debian's mesa-vulkan-drivers) when no Vulkan software driver is present.
gpu-runtime:
	@if ! ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1; then \
		echo "Installing Mesa's lavapipe so that GPU tests have a Vulkan device"; \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q mesa-vulkan-drivers libvulkan1; \
	fi

# One pytest worker per core: most tests are short and single-threaded. The slowest tests are
# listed at the end, so that a CI log shows where the 30-minute budget goes. `loadscope` runs
# each test module in one worker: a parity test's GPU:0 run then reuses TensorFlow's result of
# its CPU:0 run (tests/parity/harness.py), and each module starts one TensorFlow worker.
PYTEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
python-test: build-tests gpu-runtime tf-oracle $(EXTRAS_STAMP)
	$(TEST_ENV) $(RUST_TEST_ENV) FERROFLOW_TF_PYTHON="$(FERROFLOW_TF_PYTHON)" $(PY) -m pytest -q \
		-n $(PYTEST_WORKERS) --dist loadscope --durations=30

## Everything CI runs. Each stage's wall time is printed at the end, so that a CI log shows where
## the run's minutes went (the full run must stay under 30 minutes on CI's 2 cores).
STAGE_TIMES := target/stage-times.txt
STAGES := gpu-runtime tf-oracle rust-test lint build-tests python-test
test:
	@mkdir -p target && : > $(STAGE_TIMES)
	@for stage in $(STAGES); do \
		start=$$(date +%s); \
		$(MAKE) --no-print-directory $$stage; status=$$?; \
		echo "  $$stage: $$(( $$(date +%s) - start )) s" >> $(STAGE_TIMES); \
		if [ $$status -ne 0 ]; then echo "Stage times:"; cat $(STAGE_TIMES); exit $$status; fi; \
	done; echo "Stage times:"; cat $(STAGE_TIMES)

fmt: $(STAMP)
	cargo fmt
	$(VENV)/bin/ruff format python tests benches examples tools
	$(VENV)/bin/ruff check --fix python tests benches examples tools

bench: build
	$(PY) benches/run_all.py

## A long fuzz run (not part of `make test`).
fuzz-long: build
	$(PY) tests/fuzz_ops.py --iterations $(FUZZ_ITERATIONS)

clean:
	cargo clean
	rm -rf $(VENV) $(TF_VENV)

# TensorFlow's protobuf schemas (proto/tensorflow) compiled without protoc: tools/protogen (protox +
# prost-build) rewrites the checked-in src/proto/tensorflow.rs and the Python descriptor set.
protos:
	cargo run --quiet --manifest-path tools/protogen/Cargo.toml --target-dir target/protogen -- $(CURDIR)
