# The README's commands. Each works as the only command on a fresh machine: `setup` creates the
# virtualenv, installs the project with its dev extras, bun (from npm, for Reflex's frontend
# build) and Debian's chromium (for the browser tests), and is a quick no-op once done.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
TOOLS := .arena/tools
BUN   := $(TOOLS)/node_modules/.bin/bun
export PATH := $(CURDIR)/$(TOOLS)/node_modules/.bin:$(CURDIR)/$(VENV)/bin:$(PATH)
export REFLEX_USE_SYSTEM_BUN := 1

.PHONY: setup run check test lint e2e bench clean integration-openwebui integration-omniarena

AXE   := $(TOOLS)/node_modules/axe-core/axe.min.js

setup: $(VENV)/.installed $(BUN) $(AXE)

$(VENV)/.installed: pyproject.toml clients/python/pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]" -e ./clients/python
	@touch $@

$(BUN):
	@mkdir -p $(TOOLS)
	cd $(TOOLS) && npm install --no-audit --no-fund --loglevel=error bun@1

# axe-core checks the pages' accessibility in the browser tests.
$(AXE): $(BUN)
	cd $(TOOLS) && npm install --no-audit --no-fund --loglevel=error axe-core@4

/usr/bin/chromium:
	@echo "installing Debian's chromium for the browser tests"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null

# nginx for the reverse-proxy test (which starts its own on a free port; RUNLEVEL=1 keeps the
# package from starting the system's).
/usr/sbin/nginx:
	@echo "installing Debian's nginx for the reverse-proxy test"
	apt-get update -qq && RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null

# Redis for the cluster tests (which start their own on a free port; the machine's own is never
# needed).
/usr/bin/redis-server:
	@echo "installing Debian's redis-server for the cluster tests"
	apt-get update -qq && RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null

# Prometheus' promtool for the alert rules' test (deploy/prometheus: `promtool check rules` and
# `promtool test rules`); RUNLEVEL=1 keeps the package from starting a Prometheus server.
/usr/bin/promtool:
	@echo "installing Debian's prometheus (promtool) for the alert rules' test"
	apt-get update -qq && RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq prometheus >/dev/null

# podman (with runc, and debootstrap for a stand-in base where the official one cannot be
# pulled) for the image test, which builds the Dockerfile and runs the image: no Docker daemon
# runs here, and podman's storage stays under .arena/containers.
/usr/bin/podman:
	@echo "installing Debian's podman for the container image test"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null

# With no roster of its own and no keys, the product runs on the mock provider.
run: setup
	ARENA_MOCK_PROVIDER=$${ARENA_MOCK_PROVIDER:-1} \
	ARENA_ALLOW_DEV_SECRET=$${ARENA_ALLOW_DEV_SECRET:-1} \
	$(VENV)/bin/arena serve

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy arena_api arena_rating arena_app clients/python/arena_client

# The fast tier, for every change: lint, types, and tests/unit (pure rules, the services on
# in-memory fakes of their ports, the read model's property test on the embedded PostgreSQL).
check: lint
	$(PY) -m pytest -q tests/unit

# The full gate, in two workers (pytest-xdist): most tests wait on servers, browsers and sockets,
# so two keep both cores busy. tests/parallel.py says how the suite is split between them.
TEST_WORKERS ?= 2

test: setup /usr/bin/chromium /usr/sbin/nginx /usr/bin/redis-server /usr/bin/podman /usr/bin/promtool lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

e2e: setup /usr/bin/chromium /usr/sbin/nginx /usr/bin/redis-server
	$(PY) -m pytest e2e

# A real Open WebUI 0.12.4 (from PyPI, into a virtualenv of its own outside the project: several
# GB, many minutes the first time) driven in Debian's chromium against `arena serve`. Too heavy
# for `make test`; screenshots go to test-results/openwebui/.
integration-openwebui: setup /usr/bin/chromium
	bin="$$(bash e2e/openwebui/setup.sh)" && ARENA_OPENWEBUI_BIN="$$bin" $(PY) -m pytest e2e/openwebui -p no:cacheprovider

# OmniArena's own migrations and demo seeder (its TypeScript, run by its tsx) fill a database that
# `arena import --from omniarena` copies. The registries do not carry it: name a checkout of
# M-Ali-ML/Omni-Arena with its npm dependencies installed (npm ci), OMNIARENA_DIR=path.
integration-omniarena: setup
	test -x "$(OMNIARENA_DIR)/node_modules/.bin/tsx" || { echo "OMNIARENA_DIR: a checkout of Omni-Arena after npm ci"; exit 2; }
	ARENA_OMNIARENA_DIR="$(OMNIARENA_DIR)" $(PY) -m pytest e2e/omniarena -p no:cacheprovider

# Every benchmark prints its figures beside a baseline measured in the same run (several minutes).
BENCHMARKS := startup arena_stream relay_http join_overhead protocol_framing openwebui_front ui_latency rate_limit cluster matchmaker_cost images python_client
bench: setup /usr/bin/chromium /usr/bin/redis-server
	@for name in $(BENCHMARKS); do echo "== benchmarks/$$name.py"; $(PY) benchmarks/$$name.py || exit 1; done

# The image test's podman storage (a few GB) goes too, through podman (its layers are mounts).
CONTAINERS := .arena/containers
clean:
	rm -rf .web .states $(TOOLS)
	@if [ -d $(CONTAINERS) ]; then \
	  CONTAINERS_CONF=$(CURDIR)/$(CONTAINERS)/containers.conf \
	  CONTAINERS_STORAGE_CONF=$(CURDIR)/$(CONTAINERS)/storage.conf podman system reset --force; \
	  rm -rf $(CONTAINERS); \
	fi
