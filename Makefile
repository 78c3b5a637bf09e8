# The README's two commands: `make serve` and `make test`. Everything they need is installed here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
LOGDIR ?=
DEMO_LOGDIR := demo_runs
PYTEST_ARGS ?=

.PHONY: serve test test-spark lint bench demo clean-venv build-web api-types docs fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The compiled core (build_core.py): the editable install compiles it in place, so a change to its sources
# reinstalls. The Makefile insists on it (a C compiler and Python's headers); pip alone falls back to numpy.
CORE_SOURCES := build_core.py hatch_build.py $(wildcard src/ridgeline/ingest/*.c src/ridgeline/ingest/*.h \
	src/ridgeline/writer/*.c src/ridgeline/writer/summaries/*.c src/ridgeline/profile/*.c src/ridgeline/store/*.c)
export RIDGELINE_BUILD_CORE := required

# What serving needs: the package itself (editable).
$(VENV)/.serve-deps: pyproject.toml $(CORE_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

# What the tests need: the dev extra plus the compatibility oracles. torch is pinned to the CPU wheel this
# machine carries; an unpinned torch would pull a multi-GB CUDA build.
$(VENV)/.test-deps: pyproject.toml $(CORE_SOURCES) | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev]" "torch==2.13.0"
	touch $@

# `make fuzz`: the record loop, the histogram count and the trace scanner built again with AddressSanitizer and
# libFuzzer's coverage hooks (clang; build/fuzz), then fuzzed by atheris for FUZZ_SECONDS each, starting from the
# committed corpus in fuzz/corpus/. Every input runs through the compiled code and the numpy/orjson path, which
# must agree.
# The sanitizer runtime is the one atheris's wheel carries (asan_with_fuzzer.so), preloaded into Python.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build/fuzz
FUZZ_CC ?= $(shell for cc in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do \
	command -v $$cc && break; done)
$(VENV)/.fuzz-deps: pyproject.toml | $(VENV)/.test-deps
	$(BIN)/python -m pip install -q -e ".[dev,fuzz]"
	touch $@

fuzz: $(VENV)/.fuzz-deps
	@[ -n "$(FUZZ_CC)" ] || { echo "make fuzz builds the core with clang (Debian: apt-get install clang)" >&2; exit 1; }
	CC=$(FUZZ_CC) LDSHARED="$(FUZZ_CC) -shared" $(BIN)/python build_core.py --sanitize --build-dir $(FUZZ_BUILD)
	fuzz/run.sh $(BIN)/python $(FUZZ_BUILD) $(FUZZ_SECONDS)

# What the browser tests need from the system: Debian's chromium and CJK fonts (apt-get, once; fails loudly
# when it cannot install them rather than letting the browser tests be skipped).
$(VENV)/.browser-deps: scripts/install-browser.sh | $(BIN)/python
	scripts/install-browser.sh
	touch $@

# The web UI (web/ and src/ridgeline/plugins/*/web/) built by Vite into src/ridgeline/_static/, which the server
# serves. npm ci runs only when package-lock.json is newer than the installed tree; the build (typecheck, then
# vite build) only when a source changed: _static/index.html, rewritten by every build, is the stamp.
STATIC := src/ridgeline/_static
WEB_SOURCES := $(shell find web src/ridgeline/plugins -type f \( -path 'web/*' -o -path '*/web/*' \) 2>/dev/null) \
	package.json vite.config.ts tsconfig.json
NODE_MISSING := ridgeline's web UI is built with Node.js (20 or newer) and npm, which this machine lacks: \
	install them (on Debian: apt-get install nodejs npm) and run make again.

node_modules/.package-lock.json: package-lock.json package.json
	@command -v npm >/dev/null || { echo "$(NODE_MISSING)" >&2; exit 1; }
	npm ci --no-audit --no-fund
	touch $@

# The list of web sources, rewritten only when it changes, so removing or adding a file (whatever its mtime)
# also rebuilds.
WEB_SOURCE_LIST := build/web-sources.txt
$(shell mkdir -p build && (echo '$(WEB_SOURCES)' | cmp -s - $(WEB_SOURCE_LIST) || echo '$(WEB_SOURCES)' > $(WEB_SOURCE_LIST)))

$(STATIC)/index.html: $(WEB_SOURCES) $(WEB_SOURCE_LIST) node_modules/.package-lock.json
	@command -v npm >/dev/null || { echo "$(NODE_MISSING)" >&2; exit 1; }
	npx --no-install tsc --noEmit
	npx --no-install vite build --logLevel warn

build-web: $(STATIC)/index.html

serve: $(VENV)/.serve-deps build-web
ifeq ($(strip $(LOGDIR)),)
	@[ -d $(DEMO_LOGDIR) ] || $(BIN)/ridgeline demo --logdir $(DEMO_LOGDIR)
	$(BIN)/ridgeline serve --logdir $(DEMO_LOGDIR)
else
	$(BIN)/ridgeline serve --logdir $(LOGDIR)
endif

demo: $(VENV)/.serve-deps
	$(BIN)/ridgeline demo --logdir $(DEMO_LOGDIR)

# The suite starts hundreds of Python processes (servers, CLI commands). Where PYTHONDONTWRITEBYTECODE is set (as on
# these machines) each one compiled every ridgeline module again (~0.3 s of CPU a process): compile them once here.
# --durations prints the slowest tests, so CI's log says where the suite's time goes.
test: $(VENV)/.test-deps $(VENV)/.browser-deps build-web
	$(BIN)/python -m compileall -q -j 0 src tests >/dev/null
	$(BIN)/python -m pytest -n 2 --durations=25 $(PYTEST_ARGS)

# Opt-in, not in `make test`: Spark reads the Parquet dataset of `ridgeline index` (tests/spark/). Java from
# Debian (openjdk-17-jre-headless, apt-get once) and pyspark into the venv.
test-spark: $(VENV)/.test-deps
	@command -v java >/dev/null || { apt-get update && apt-get install -y openjdk-17-jre-headless; }
	$(BIN)/python -c "import pyspark" 2>/dev/null || $(BIN)/python -m pip install -q pyspark
	RIDGELINE_TEST_SPARK=1 $(BIN)/python -m pytest tests/spark

# The web UI's layer rules (.dependency-cruiser.cjs): dashboards import only their folder, web/src/ and npm
# packages; the shell imports no dashboard. tests/web/test_import_rules.py checks the same in `make test`.
lint: $(VENV)/.test-deps node_modules/.package-lock.json
	$(BIN)/ruff check src tests bench examples
	$(BIN)/ruff format --check src tests bench examples
	$(BIN)/mypy
	$(BIN)/lint-imports
	npx --no-install depcruise web/src src/ridgeline/plugins --config .dependency-cruiser.cjs --output-type err

# The web UI's API types from the server's OpenAPI spec (committed; tests/web/test_api_types.py fails when stale).
api-types: $(VENV)/.test-deps node_modules/.package-lock.json
	$(BIN)/python scripts/gen_api_types.py

# The generated part of docs/cli.md (the settings table and every command's --help; tests/cli/test_docs.py fails
# when it is stale).
docs: $(VENV)/.serve-deps
	$(BIN)/python -m ridgeline.cli._docs docs/cli.md

bench: $(VENV)/.test-deps
	$(BIN)/python bench/writer.py

clean-venv:
	rm -rf $(VENV)
