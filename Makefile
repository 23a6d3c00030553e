# Two commands for a newcomer: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test test-scaled test-processes deploy-check test-faults nginx test-js lint format bench install install-dev browser node migrate clean

$(VENV)/.installed: requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PIP) install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(PIP) install --quiet --disable-pip-version-check -r requirements-dev.txt
	@touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

migrate: install
	$(PY) manage.py migrate --noinput

## Serve the app on http://$(HOST):$(PORT) with daphne (SQLite, in-memory channel layer):
## config/server.py is daphne's command line, answering a request line too long with a 414.
run: migrate
	$(PY) -m config.server -b $(HOST) -p $(PORT) config.asgi:application

## Browser tests need Debian's chromium; install it when missing (never `playwright install`).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Installing Debian's chromium for the browser tests..."; \
		(apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || \
		echo "chromium could not be installed: browser tests will be skipped"; }

## The browser modules' unit tests run on Node's built-in test runner; install Debian's nodejs
## when missing.
node:
	@command -v node >/dev/null 2>&1 || { \
		echo "Installing Debian's nodejs for the browser modules' unit tests..."; \
		(apt-get update -qq && apt-get install -y -qq nodejs >/dev/null) || \
		echo "nodejs could not be installed: the browser modules' unit tests cannot run"; }

## The browser modules' pure logic (static/js/lib/...) under Node: tests/js/*.test.mjs.
test-js: node
	node --test tests/js/*.test.mjs

## Lint, the import contracts (.importlinter: the layers of docs/architecture.md), then the
## whole suite.
test: install-dev browser test-js
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/python -m pytest -n 2 --dist loadgroup

## The same suite on PostgreSQL and Redis (CI runs both; the services must be running).
SCALED_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
SCALED_REDIS_URL ?= redis://127.0.0.1:6379/0
test-scaled: install-dev browser
	DATABASE_URL=$(SCALED_DATABASE_URL) REDIS_URL=$(SCALED_REDIS_URL) \
		$(VENV)/bin/python -m pytest -n 2 --dist loadgroup

## Two server processes on a PostgreSQL and a Redis of the suite's own (initdb and redis-server
## on free ports in a temporary folder, restarted by the tests): races across the processes and
## outages under load (tests/processes/; CI runs it after test-scaled).
PG_BIN ?= /usr/lib/postgresql/15/bin
test-processes: install-dev
	SETGAMES_PROCESSES=1 PG_BIN=$(PG_BIN) $(VENV)/bin/python -m pytest tests/processes

## Debian's nginx (and envsubst, which renders its configuration) for the deployment's checks;
## installed when missing (the checks need them).
nginx:
	@{ command -v nginx || test -x /usr/sbin/nginx; } >/dev/null 2>&1 && \
		command -v envsubst >/dev/null 2>&1 || { \
		echo "Installing Debian's nginx and gettext-base for the deployment's checks..."; \
		apt-get update -qq && apt-get install -y -qq nginx gettext-base >/dev/null; }

## The deployment of deploy/ on this machine's loopback (README "Production"): nginx (a user's
## process on free ports, a self-signed certificate) in front of two daphne processes started as
## setgames@.service starts them, on a PostgreSQL and a Redis of its own; games played through it
## over HTTPS and secure WebSockets, the proxy's headers checked (tests/deploy/).
deploy-check: install-dev nginx
	PATH="$$PATH:/usr/sbin" SETGAMES_DEPLOY=1 PG_BIN=$(PG_BIN) \
		$(VENV)/bin/python -m pytest tests/deploy

## The two-process suite's fault tests (Redis restarted, PostgreSQL restarted, kill -9 of one
## process, under load) with the clients going through nginx as deploy/ runs it: a killed
## process's clients go on with the other one, and no request waits more than 10 s.
test-faults: install-dev nginx
	PATH="$$PATH:/usr/sbin" SETGAMES_PROCESSES=1 SETGAMES_PROXY=nginx PG_BIN=$(PG_BIN) \
		$(VENV)/bin/python -m pytest tests/processes/test_faults.py

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

format: install-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## Benchmarks: run on demand, never in the suite; they print their figures.
bench: install-dev
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) staticfiles .test-db.sqlite3* .hypothesis
