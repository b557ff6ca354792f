# The two commands of the README: `make run` and `make test`. Both set up what is missing first.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup run test test-real bench lint clean

setup:
	@bash packaging/setup-env.sh

run: setup
	$(PY) -m desktop_app

test: setup
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) bench/sim_stream_rate.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
