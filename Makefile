# flashtune: every set-up step lives here so a fresh Debian 12 machine needs only `make run` / `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
OUT    ?= out/iops-mysql

.PHONY: run test system-deps python-deps lint typecheck book configs bench clean

# 1. The main job: compile the IOPS tier for the MySQL workload with defaults.
run: $(VENV)/.installed
	$(BIN)/compile-config --tier iops --workload mysql --out $(OUT) --force

# 2. Everything the tests need (Debian packages for the real-component tests + Python), then the whole suite.
test: system-deps $(VENV)/.installed
	bash scripts/run-tests.sh

system-deps:
	bash scripts/install-system-deps.sh

$(VENV)/bin/python:
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-pip; }
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

lint: $(VENV)/.installed
	$(BIN)/ruff check compiler tests bench scripts
	$(BIN)/ruff format --check compiler tests bench scripts

typecheck: $(VENV)/.installed
	$(BIN)/mypy

clean:
	rm -rf out book/_build .pytest_cache .mypy_cache .ruff_cache
