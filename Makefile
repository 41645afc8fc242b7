# Two entry points of the README's quick start; each creates the virtual environment when missing.
#   make train            train an agent on $(ENV) (invers unless ENV says) with configs/$(ENV).yaml, whose pipeline it names, then evaluate it against the bots;
#                         ARGS passes options to training/train.py, e.g. make train ENV=lost_dice ARGS="--timesteps 20000"
#                         (a short run: its warm start shrinks in proportion; see python training/train.py --help)
#   make test             install the test extras in venvs of their own (.venv-test: dev, Tianshou, TorchRL, OpenSpiel;
#                         .venv-rllib: Ray RLlib, which pins an older gymnasium) and run the test suite (the command CI
#                         runs); .venv, what make train installed, is left as it was
#   make lint             ruff's lint and format check, as configured in pyproject.toml (CI runs it after make test)
#   make wheel-check      build the wheel, install it in a clean venv and use it from another directory (CI runs it after make test)
#   make bench            random-play steps/s of every env (ARGS="--steps 2000" for a quick look)
#   make docs             build the documentation site into site/, warnings as errors (CI runs it after make test)
#   make docs-serve       serve the site at http://127.0.0.1:8001, rebuilt on every change (8000 is the web game's, tabletop serve)
#   make results          every results report (results/), from the agents shipped in checkpoints/
#                         (the PPO networks against every bot, Lost Dice's at three and four players, Keldice's over 2,000 games, the Inverted Dice turn-value agent, Roll Five's
#                         network at two and four players over 10,000 games, the Invers network alone and
#                         in its search against the search bot, and the ceilings of benchmarks/ceilings.py); the reports are made two
#                         at a time on 2 cores, then the ceilings in two processes; the tables come out the same, digit for digit,
#                         on every run (the wall times and the ladders' time per move go to timing.md files, not committed); it ends by
#                         turning results/ into the docs' results pages and the README's results table
#   make default-runs     every env's default training run as a new user starts it (python training/train.py --env E, and
#                         train_td.py's default), one after the other, each timed (30-minute budget) and judged against its
#                         bot (results/default_runs/report.md; about two hours on 2 cores; not in CI), then the pages as below
#   make fuzz             the fuzzers at scale (not in CI; about 35 minutes on 2 cores): a million random legal games per
#                         env through its batched rules twin, every step checked and one game in a hundred replayed by
#                         the rules core (tests/fuzz_batched.py: results/fuzz/report.md), then every env in every form
#                         (AEC, Gymnasium, Parallel, batched: tests/fuzz.py) at FORMS_GAMES games per env and player
#                         count, in two processes (results/fuzz/forms.txt)
#   make leaderboard      the benchmark suite's leaderboard of every bot and shipped agent (results/leaderboard.md), then the
#                         pages as above: apart from make results, as it plays every bot and shipped agent on every task

PYTHON_SYSTEM ?= python3
VENV := .venv
PYTHON := $(VENV)/bin/python
ENV ?= invers
ARGS ?=
FORMS_GAMES ?= 2000

#: Games whose trained agent is shipped as checkpoints/<game>/shipped/ and evaluated against every bot
#: (Invers and Roll Five have their own tables below).
SHIPPED ?= inverted_dice six_hundred lost_dice

.PHONY: train test lint wheel-check bench results default-runs baselines fuzz leaderboard docs docs-serve

$(VENV)/.installed: pyproject.toml setup.py
	test -x $(PYTHON) || $(PYTHON_SYSTEM) -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e ".[dev]"
	touch $@

train: $(VENV)/.installed
	$(PYTHON) training/train.py --env $(ENV) $(ARGS)

# The tests run in venvs of their own, so that make test never changes what make train installed in
# .venv: .venv-test holds the test extras (dev, Tianshou, TorchRL, OpenSpiel) on the gymnasium users
# get; Ray pins an older gymnasium, so its tests run in .venv-rllib, on the gymnasium Ray users get.
TEST_VENV := .venv-test
RLLIB_VENV := .venv-rllib
RLLIB_TESTS := tests/test_rllib.py tests/test_rllib_config.py tests/test_rllib_cluster.py tests/test_expert_iteration_cluster.py
# the docs' snippets and commands that need Ray skip in .venv-test: they run again beside Ray
RLLIB_DOCS := -k "test_python_snippet_runs_as_printed or (test_shell_command_names_what_exists and (rllib or ray))"

$(TEST_VENV)/.installed: pyproject.toml setup.py
	test -x $(TEST_VENV)/bin/python || $(PYTHON_SYSTEM) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(TEST_VENV)/bin/python -m pip install --quiet -e ".[test]"
	touch $@

$(RLLIB_VENV)/.installed: pyproject.toml setup.py
	test -x $(RLLIB_VENV)/bin/python || $(PYTHON_SYSTEM) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install --quiet -e ".[test-rllib]"
	touch $@

test: $(TEST_VENV)/.installed $(RLLIB_VENV)/.installed
	@$(TEST_VENV)/bin/python -c "import gymnasium; print('the suite, on gymnasium', gymnasium.__version__)"
	$(TEST_VENV)/bin/python -m pytest $(addprefix --ignore=,$(RLLIB_TESTS))
	@$(RLLIB_VENV)/bin/python -c "import gymnasium; print('the Ray RLlib tests, on gymnasium', gymnasium.__version__)"
	$(RLLIB_VENV)/bin/python -m pytest $(RLLIB_TESTS)
	$(RLLIB_VENV)/bin/python -m pytest tests/test_docs.py $(RLLIB_DOCS)

lint: $(VENV)/.installed
	$(PYTHON) -m ruff check . && $(PYTHON) -m ruff format --check .

wheel-check: $(VENV)/.installed
	$(PYTHON) tests/wheel_check.py

bench: $(VENV)/.installed
	$(PYTHON) benchmarks/env_speed.py $(ARGS)

docs: $(VENV)/.installed
	$(PYTHON) -m mkdocs build --strict

docs-serve: $(VENV)/.installed
	$(PYTHON) -m mkdocs serve --dev-addr 127.0.0.1:8001

#: make results' reports before the ceilings, one command each, made two at a time (each is seeded, so the
#: tables are the same in any order)
RESULT_REPORTS := $(addprefix results/,$(SHIPPED)) results/inverted_dice_td results/six_hundred_td \
  results/lost_dice_solo results/lost_dice_3_players results/lost_dice_4_players results/keldice results/keldice_solo \
  results/roll_five/two_players results/roll_five/four_players results/invers/ppo_search_vs_search4 \
  results/invers/ppo_vs_search2
.PHONY: $(RESULT_REPORTS)

results: $(VENV)/.installed
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -j2 --output-sync=target $(RESULT_REPORTS) || exit 1; \
	$(PYTHON) benchmarks/ceilings.py --workers 2 > /dev/null || exit 1; \
	$(PYTHON) training/results_pages.py || exit 1; \
	echo "make results: every table regenerated in $$(( $$(date +%s) - start )) s (results/<game>/report.md, results/inverted_dice_td/report.md, results/six_hundred_td/report.md, results/lost_dice_solo/report.md, results/lost_dice_*_players/report.md, results/keldice_solo/report.md, results/roll_five/*/report.md, results/invers/*/ladder.md, results/ceilings/report.md; docs/reports/, README.md)"

$(addprefix results/,$(SHIPPED)): $(VENV)/.installed
	$(PYTHON) training/evaluate.py --env $(notdir $@) --checkpoint checkpoints/$(notdir $@)/shipped --out $@ --overwrite
results/inverted_dice_td: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --env inverted_dice --agents td ppo heuristic optimal random --out $@ --overwrite
results/six_hundred_td: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --env six_hundred --agents td ppo heuristic random --out $@ --overwrite
results/lost_dice_solo: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --env lost_dice --env-kwargs "{num_players: 1}" --agents td heuristic random --games 5000 --seed 60000 --above 58,100 --out $@ --overwrite
results/lost_dice_3_players: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --checkpoint checkpoints/lost_dice/shipped_3p --agents heuristic random --games 3000 --out $@ --overwrite
results/lost_dice_4_players: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --checkpoint checkpoints/lost_dice/shipped_4p --agents heuristic random --games 3000 --out $@ --overwrite
results/keldice: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --checkpoint checkpoints/keldice/shipped --agents search heuristic random --games 2000 --out $@ --overwrite
results/keldice_solo: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --env keldice --env-kwargs "{num_players: 1}" --agents td heuristic random --games 2000 --seed 60000 --out $@ --overwrite
results/roll_five/two_players: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --checkpoint checkpoints/roll_five/shipped --agents search heuristic --games 10000 --out $@ --overwrite
results/roll_five/four_players: $(VENV)/.installed
	$(PYTHON) training/evaluate.py --checkpoint checkpoints/roll_five/shipped --agents search heuristic --games 10000 --env-kwargs "{num_players: 4}" --out $@ --overwrite
results/invers/ppo_search_vs_search4: $(VENV)/.installed
	$(PYTHON) training/ladder.py --env invers --agents search:depth=4 ppo+search:depth=3 --games 400 --out $@ --overwrite > /dev/null
results/invers/ppo_vs_search2: $(VENV)/.installed
	$(PYTHON) training/ladder.py --env invers --agents search:depth=2 ppo --games 400 --out $@ --overwrite > /dev/null

default-runs: $(VENV)/.installed
	$(PYTHON) benchmarks/default_runs.py $(ARGS)
	$(PYTHON) training/results_pages.py

# Every env's default recipe at a laptop's budget, five seeds each: results/baselines/ (then training/results_pages.py: docs/reports/baselines*.md).
baselines: $(VENV)/.installed
	$(PYTHON) benchmarks/baselines.py $(ARGS)
	$(PYTHON) training/results_pages.py

fuzz: $(VENV)/.installed
	$(PYTHON) -m tests.fuzz_batched --games 1000000 --workers 2 --out results/fuzz
	$(PYTHON) -m tests.fuzz --games $(FORMS_GAMES) --part 1/2 > results/fuzz/forms-1.log & first=$$!; \
	$(PYTHON) -m tests.fuzz --games $(FORMS_GAMES) --part 2/2 > results/fuzz/forms-2.log; second=$$?; \
	wait $$first; first=$$?; \
	$(PYTHON) -m tests.fuzz --sum results/fuzz/forms-1.log results/fuzz/forms-2.log > results/fuzz/forms.txt; \
	cat results/fuzz/forms.txt; rm results/fuzz/forms-1.log results/fuzz/forms-2.log; test $$first = 0 -a $$second = 0

leaderboard: $(VENV)/.installed
	@start=$$(date +%s); \
	$(PYTHON) training/benchmark.py --leaderboard --workers 2 --out results --no-progress > /dev/null || exit 1; \
	$(PYTHON) training/results_pages.py || exit 1; \
	echo "make leaderboard: every bot and shipped agent on the suite in $$(( $$(date +%s) - start )) s (results/leaderboard.md, results/leaderboard/; docs/reports/, README.md)"
