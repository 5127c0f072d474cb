# The two commands of the README:
#   make demo   set everything up, then run the demo on the embedded database
#   make test   set everything up, then run the whole test suite (CI runs it) and print its duration
# and the quick lane for a change:
#   make check  everything but the wheel install, the browser, the fuzzing and the tests that start servers,
#               PostgreSQL or model-loading workers in processes of their own (markers slow, browser, fuzz,
#               processes)
# Both are idempotent: the virtual environment is rebuilt only when pyproject.toml or constraints.txt change.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test check test-citus system-deps bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: pip then takes the local CPU wheel instead of a CUDA build
	$(BIN)/python -m pip install --quiet torch==2.13.0
	# the package's ranges, resolved to the exact versions the suite is tested with
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

# Debian packages some tests need: headless Chromium and its driver (the browser test), PgBouncer
# (the transaction-pooling test). Each test is skipped when its package is missing.
system-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "chromium is missing: sudo apt-get install chromium chromium-driver (the browser test will be skipped)"; fi; }
	@PATH="$$PATH:/usr/sbin" command -v pgbouncer >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null; \
	  else echo "pgbouncer is missing: sudo apt-get install pgbouncer (the pooling test will be skipped)"; fi; }

demo: setup
	$(BIN)/fleet-memory demo

# Each lane prints how long it took, passed or failed, and keeps pytest's exit status.
test: setup system-deps
	@start=$$(date +%s); $(BIN)/python -m pytest -q; status=$$?; \
	echo "make test: $$(( $$(date +%s) - start )) s"; exit $$status

# Three pytest-xdist workers on the 2-core machine (measured 100-107 s; two were 5-15 s slower in earlier runs), tests
# handed to whichever worker is free (worksteal). Each worker starts its own embedded server and loads the
# models. The compiled-module caches are part of a warm environment, so this lane writes them even where the
# host sets PYTHONDONTWRITEBYTECODE: without them every worker compiles the package and rewrites the tests'
# asserts again.
CHECK_WORKERS ?= 3
check: setup
	@start=$$(date +%s); PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n $(CHECK_WORKERS) --dist worksteal \
	  -m "not slow and not browser and not fuzz and not processes"; status=$$?; \
	echo "make check: $$(( $$(date +%s) - start )) s"; exit $$status

# The integration and surface tests on a real Citus cluster (coordinator and two workers on this
# machine), built once from ../shared/vendor: tests/citus/cluster.sh. Not part of make test.
test-citus: setup
	@start=$$(date +%s); tests/citus/cluster.sh; status=$$?; \
	echo "make test-citus: $$(( $$(date +%s) - start )) s"; exit $$status

bench: setup
	$(BIN)/python bench/locomo.py --data ../shared/bench/locomo_dev.jsonl

clean:
	rm -rf $(VENV) build *.egg-info
