# TrajScope: `make run` opens the app on sample_traces/, `make test` runs every check.
# Both check the system packages first (scripts/system-packages.sh: installs them as root, else prints
# the apt-get line), then create .venv on first use and install everything from scratch.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.trajscope-installed
# llama-cpp-python is source-only; a native build dies with "Illegal instruction" on some CPUs.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF
# Models come from site-packages, never from a hub.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)

.PHONY: run test system-packages lint typecheck importlint pytest screenshots bench clean-venv

system-packages:
	PYTHON="$(PYTHON)" bash scripts/system-packages.sh

$(STAMP): pyproject.toml constraints.txt | system-packages
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip wheel setuptools
	$(PY) -m pip install --progress-bar off -c constraints.txt $(FIND_LINKS) -e ".[ui,models,ray,dev]"
	touch $(STAMP)

run: system-packages $(STAMP)
	$(VENV)/bin/trajscope open sample_traces

lint: $(STAMP)
	$(VENV)/bin/ruff check analyzer plugins ui tests bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy analyzer plugins

importlint: $(STAMP)
	$(VENV)/bin/lint-imports

pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/pytest

test: system-packages lint typecheck importlint pytest

screenshots: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m ui.screenshots docs/screenshots

bench: $(STAMP)
	$(PY) bench/import_bench.py
	$(PY) bench/judge_bench.py
	$(PY) bench/embed_bench.py
	QT_QPA_PLATFORM=offscreen $(PY) bench/ui_bench.py

clean-venv:
	rm -rf $(VENV)
