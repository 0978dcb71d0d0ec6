# flashtune: every set-up step lives here so a fresh Debian 12 machine needs only `make run` / `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
OUT    ?= out/iops-mysql

.PHONY: lab run test check system-deps python-deps lint typecheck book configs snapshot wheel bench clean

# 1. The main job: compile the IOPS tier for the MySQL workload with defaults.
run: $(VENV)/.installed
	$(BIN)/compile-config --tier iops --workload mysql --out $(OUT) --force

# 2. Everything the tests need (Debian packages for the real-component tests + Python), then the whole suite.
test: system-deps $(VENV)/.installed book/web/node_modules/.installed
	bash scripts/run-tests.sh

# 3. What a developer runs often: static checks and the unit tier (no daemons, browser or notebooks).
check: $(VENV)/.installed
	$(BIN)/ruff check compiler tests bench scripts
	$(BIN)/ruff format --check compiler tests bench scripts notebooks
	$(BIN)/mypy
	$(BIN)/python -m flashtune.snapshot  # data/ may have changed since (a pull): the tests check the snapshot
	$(BIN)/pytest tests/unit -n 2  # pytest-xdist: the unit tests are independent, and these machines have 2 cores

system-deps:
	bash scripts/install-system-deps.sh

$(VENV)/bin/python:
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-pip; }
	$(PYTHON) -m venv $(VENV)

# Editable install with every extra ('.[test]' pulls in ingest, notebooks and book), then the data snapshot.
$(VENV)/.installed: $(VENV)/bin/python pyproject.toml setup.py
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/python -m flashtune.snapshot
	touch $@

# data/ -> compiler/flashtune/_data, the checked JSON the CLIs read (flashtune/snapshot.py); the wheel build
# writes its own. A checkout whose data/ changed since reads data/ itself (slower, same checks) until this runs.
snapshot: $(VENV)/.installed
	$(BIN)/python -m flashtune.envelope.fitted
	$(BIN)/python -m flashtune.snapshot

# The wheel a user installs (data snapshot inside): dist/flashtune-*.whl
wheel: $(VENV)/.installed
	$(BIN)/pip wheel --no-deps -q -w dist .

lint: $(VENV)/.installed
	$(BIN)/ruff check compiler tests bench scripts
	$(BIN)/ruff format --check compiler tests bench scripts notebooks

# The checked-in compiled matrix (every tier x workload, default release); tests fail when it is stale.
configs: $(VENV)/.installed
	$(BIN)/python -m flashtune.compile.matrix configs

typecheck: $(VENV)/.installed
	$(BIN)/mypy

# The Jupyter Book (1.x, offline): generated reference pages + executed notebooks -> book/_build/html.
# The compile page runs the compiler in Pyodide, from the npm registry (book/web/package-lock.json).
book: $(VENV)/.installed book/web/node_modules/.installed
	$(BIN)/python scripts/build_book.py

book/web/node_modules/.installed: book/web/package.json book/web/package-lock.json
	npm ci --prefix book/web --ignore-scripts --no-audit --no-fund
	touch $@

# JupyterLab on the notebooks. Run as root (a container, a fresh VM), jupyter refuses to start without
# --allow-root: the target adds it then, and only then.
lab: $(VENV)/.installed
	$(BIN)/jupyter lab notebooks/ $$([ "$$(id -u)" -eq 0 ] && echo --allow-root)

clean:
	rm -rf out dist build book/_build book/_generated book/web/node_modules .pytest_cache .mypy_cache .ruff_cache compiler/flashtune/_data
