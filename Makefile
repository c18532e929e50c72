# One entry point for users and CI. `make demo` and `make test` work on a fresh clone: both create the
# virtualenv on first use.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
STAMP  := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
SRC    := border_py tests examples benchmarks campaigns docs/hooks
MODEL_DIR ?= runs/dqn/CartPole-v1/seed0

.PHONY: install demo wheel-check test test-integration test-fuzz test-slow test-atari test-cuda datasets datasets-hopper results results-mujoco docs docs-serve docs-check bench bench-quick bench-distributed two-nodes check lint format typecheck clean

install: $(STAMP)

# torch==2.13.0 first (the CPU wheel on disk), then everything else constrained to it: an unpinned torch
# would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

# DQN on CartPole-v1 with the zoo's settings (about 1 minute), then its best model evaluated: 500.
demo: $(STAMP)
	$(VENV)/bin/border-py train dqn --env CartPole-v1 --overwrite --model-dir $(MODEL_DIR)
	$(VENV)/bin/border-py eval --model-dir $(MODEL_DIR)

# The package as a user installs it: wheel and sdist built, the wheel installed into a fresh virtualenv
# outside the repository, the demo trained from there (CI runs it; a few minutes, most of it pip).
wheel-check: $(STAMP)
	.ci/wheel-check

# The default tier, before every commit (under 2 minutes on an idle 2-core machine): type check, then the
# unit, agent, typing and fast run tests on 2 workers.
test: $(STAMP)
	$(PY) -m mypy $(SRC)
	$(PY) -m pytest -q -n 2 --dist loadfile -m "unit and not slow and not atari and not browser and not cuda"

# The integration tier (CI runs it after the default one): every example and documented command with a tiny
# budget, short learning runs, a real MLflow server, a local Ray, Optuna, kill tests. A whole test file per
# worker: the Ray and MLflow tests keep one session each.
test-integration: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadfile -m "integration and not slow and not atari and not browser and not cuda and not fuzz_long"

# The fuzz targets' long budget (about 10 minutes on 2 cores): thousands of new random inputs per parser and
# loader a user or a model directory reaches (tests/fuzz); the integration tier runs a short fixed budget.
test-fuzz: $(STAMP)
	$(PY) -m pytest -q -rP -m fuzz_long tests/fuzz

# The issue targets (about 30 minutes on 2 cores): DQN, 3-step DQN, IQN and SAC over seeds 0-2.
test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

# The Atari target: DQN on Pong from -21 to >= 0 within 2M env steps (hours on a CPU; on a CUDA machine
# BORDER_PY_DEVICE=cuda make test-atari).
test-atari: $(STAMP)
	$(PY) -m pytest -q -m atari

# The CUDA path, on a machine with a GPU (a few minutes): agents train on cuda and their models evaluate on
# the CPU, exact resume on cuda, then every zoo entry's few-step run with agent.device=cuda.
test-cuda: $(STAMP)
	$(PY) -m pytest -q -m cuda
	BORDER_PY_DEVICE=cuda $(PY) -m pytest -q -m smoke tests/run/test_zoo_entries.py

# The zoo's offline datasets in runs/datasets (about 10 minutes): pendulum-medium, pendulum-replay,
# cartpole-medium. datasets-hopper adds hopper-medium (about 30 minutes: SAC on Hopper-v5 until a greedy
# evaluation reaches a third of D4RL's expert return, 120,000 updates here).
datasets: $(STAMP)
	$(VENV)/bin/border-py datasets

datasets-hopper: $(STAMP)
	$(VENV)/bin/border-py datasets --only hopper

# The reference-results table (docs/results.md) and its figures (docs/images/<run>.png): every reference
# zoo entry's full run through `border-py train` over seeds 0-2 (about 3 hours: CQL's 20,000 updates run at
# about 9 per second, some 35 minutes a seed; the offline runs need `make datasets` first). One run:
# `python -m campaigns.reference --runs td3_pendulum --figures docs/images`.
results: $(STAMP)
	$(PY) -m campaigns.reference --out runs/reference --figures docs/images

# PPO on Hopper, Walker2d, HalfCheetah and Swimmer (v5) at 1M env steps, seeds 0-2, two runs at a time (about
# 2 hours on 2 cores; stopping and running it again carries every run on), then the table, the rliable
# aggregate and the figures (docs/images/ppo_<env>.png, ppo_mujoco_aggregate.png) from the run directories.
# SAC, TD3 and TQC on HalfCheetah and Hopper: ALGO=sac (td3, tqc) make results-mujoco (3.5-4 hours a run on a free core).
ALGO ?= ppo
results-mujoco: $(STAMP)
	$(PY) -m campaigns.mujoco run --algo $(ALGO) --jobs 2
	$(PY) -m campaigns.mujoco report --algo $(ALGO) --figures docs/images

# The documentation site into site/ (MkDocs + Material; the API reference from the docstrings by mkdocstrings).
# --strict: a broken link, a missing reference or a docstring mkdocstrings cannot parse fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve

# Every page of the built site in headless Chromium (Debian's chromium): no console error, failed request,
# broken image, raw Sphinx role or sideways scroll; the search finds Trainer; screenshots in site-check/.
# Without chromium it skips, saying why, except under CI=true, where it fails.
docs-check: docs
	$(PY) -m pytest -q -m browser tests/docs/test_browser.py -rs

# border_py against the raw env, Stable-Baselines3 and Tianshou (the `bench` extra), at 1 and 2 torch
# threads, in one run (about 25 minutes on 2 cores); the table goes to benchmarks/latest.md.
$(BENCH_STAMP): $(STAMP)
	$(PIP) install --quiet -c constraints.txt -e '.[dev,bench]'
	$(PIP) install --quiet -c constraints.txt --no-deps 'd3rlpy==2.8.1'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(PY) -m benchmarks.run --threads 1 2 --out benchmarks/latest.md

# Asynchronous training on a local Ray against the synchronous trainer (about 10 minutes): env steps to 475,
# throughput with a 1 ms/step env, the learner's ceilings. Not part of `bench`: it starts its own Ray.
bench-distributed: $(STAMP)
	$(PY) -m benchmarks.distributed

# A two-node Ray cluster on local addresses, and the asynchronous DQN example on it (stops every Ray
# process of this user at the end).
two-nodes: $(STAMP)
	examples/two_nodes.sh

# A few seconds per comparison, no end-to-end training: checks that every benchmark runs.
bench-quick: $(BENCH_STAMP)
	$(PY) -m benchmarks.run --threads 1 --quick
	@if [ -d runs/datasets/pendulum-medium-v0 ]; then $(PY) -m benchmarks.d3rlpy_parity --steps 20 --max-gap 1e-5; \
	else echo "note: d3rlpy_parity skipped: make datasets builds pendulum-medium-v0"; fi

lint: $(STAMP)
	$(PY) -m ruff format --check $(SRC)
	$(PY) -m ruff check $(SRC)

format: $(STAMP)
	$(PY) -m ruff format $(SRC)
	$(PY) -m ruff check --fix $(SRC)

typecheck: $(STAMP)
	$(PY) -m mypy $(SRC)

check: lint test

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache runs
