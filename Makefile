# SciVer Studio: `make run` serves the app with sample papers; `make test` runs the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_PAPERS ?= 24
# Two workers (pytest-xdist) on the 2-core machines: 1.7x faster than serial; a worker that runs
# out of tests takes the other's (worksteal): the suite's long tests no longer end on one worker
# while the other waits (docs/testing.md). `make test PYTEST_ARGS=` runs serially.
PYTEST_ARGS ?= -n 2 --dist worksteal --durations=25

.PHONY: run test venv lint format bench clean-venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: venv
	@mkdir -p var
	$(BIN)/python scripts/ensure_db.py
	SCIVER_DEV=1 $(BIN)/python manage.py migrate --noinput
	SCIVER_DEV=1 $(BIN)/python manage.py setup_demo
	SCIVER_DEV=1 $(BIN)/python manage.py simulate_annotation --papers $(DEMO_PAPERS) --seed 13
	SCIVER_DEV=1 BIN=$(BIN) sh scripts/serve.sh

test: venv
	SCIVER_TESTING=1 $(BIN)/python -m pytest $(PYTEST_ARGS)

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	SCIVER_TESTING=1 $(BIN)/mypy

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: venv
	SCIVER_TESTING=1 $(BIN)/python bench/parse.py
	SCIVER_TESTING=1 $(BIN)/python bench/render.py
	SCIVER_TESTING=1 $(BIN)/python bench/crawl.py
	SCIVER_TESTING=1 $(BIN)/python bench/duplicates.py
	@echo "bench/pages.py and bench/release.py need PostgreSQL: run them by hand (docs/benchmarks.md)"

clean-venv:
	rm -rf $(VENV)
