# The two commands of the README: `make run` and `make test`. Both set up what is missing first.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup run test test-real test-load bench lint clean lock package package-check

setup:
	@bash packaging/setup-env.sh

run: setup
	$(PY) -m desktop_app

# The suite on TEST_WORKERS processes (pytest-xdist), a module's tests on one of them so each
# module-scoped fixture (a simulator, a busy machine's sweeps) is built once (tests/conftest.py
# groups by module, and keeps the load-sensitive ones on one worker): 430 s serial here.
TEST_WORKERS ?= 3
test: setup
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile
	$(MAKE) --no-print-directory lint

# Pyflakes' checks by ruff ([tool.ruff] in pyproject.toml), the import contracts and the type
# checker on the core ([tool.mypy]).
lint: setup
	$(VENV)/bin/ruff check --no-cache desktop_app tests bench packaging
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy --cache-dir .mypy_cache

bench: setup
	$(PY) bench/sim_stream_rate.py
	$(PY) bench/client_fidelity.py
	$(PY) bench/client_fidelity.py --concurrency 64 --requests 640 --compare '' --no-raw --http-client httpx
	$(PY) bench/client_ceiling.py
	$(PY) bench/schedule_replay.py
	$(PY) bench/replay_capacity.py
	$(PY) bench/import_memory.py --requests 300000 --gaps 31

# Real engines (CI runs it after `make test`): llama.cpp's server with a random-weight model (2
# slots) on REAL_PORT and SmolLM2-135M-Instruct on REAL_PORT+1, by
# ../shared/real-engine/start-real-server.sh; runs tests/real and always stops both (the first
# run compiles llama.cpp, ~7 min).
REAL_PORT ?= 18090
test-real: setup
	bash tests/real/run.sh $(REAL_PORT)

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info

# Load (issue #7) on its own: 2,000 requests at concurrency 128 against the simulator, ~25 s
# (make test runs it too); the figures (memory per 1,000 requests) come from bench/load_c128.py.
test-load: setup
	$(PY) -m pytest -q -m load tests/core/throughput/test_load.py

# Re-resolve pyproject.toml's ranges in a throwaway venv and pin the result in
# packaging/constraints.txt; then `make test` and commit the file only if it passes.
lock:
	bash packaging/lock.sh

# A one-folder desktop build in dist/throughline (PyInstaller, packaging/throughline.spec).
package: setup
	$(PY) -m pip install -q --disable-pip-version-check -c packaging/constraints.txt -e '.[test,package]'
	$(VENV)/bin/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/throughline.spec
	@du -sh dist/throughline

# Opt in (minutes): the frozen build runs its demo, its simulator and a sweep against it, and
# saves its window's screenshots offscreen (packaging/check-bundle.sh).
package-check: package
	bash packaging/check-bundle.sh dist/throughline
