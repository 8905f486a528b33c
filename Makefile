# Two commands for a newcomer: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PYTEST := $(BIN)/python -m pytest
STAMP_RUN := $(VENV)/.run-installed
STAMP_DEV := $(VENV)/.dev-installed
DATA ?= ../shared/data/multi30k
PORT ?= 8501

.PHONY: run test test-fast screenshots bench lint i18n format setup setup-dev lock train-seq2seq evaluate-seq2seq

$(BIN)/python:
	$(PY) -m venv $(VENV)

# uv installs the lock files (exact versions; requirements*.txt are their sources). It reads no pip
# configuration, so it is handed the wheel folders pip is configured with (here /opt/wheels, which
# holds torch's CPU build) unless UV_FIND_LINKS is set; see docs/development.md.
UV_VERSION := 0.13.9
UV := UV_FIND_LINKS="$${UV_FIND_LINKS-$$($(BIN)/python -m pip config get global.find-links 2>/dev/null | tr ' ' ,)}" $(BIN)/uv
# No --compile-bytecode: Python compiles what it imports on first use (the app imports a few
# thousand modules), not all of the 15,800 files the packages hold (4.5 minutes on 2 cores).
UV_INSTALL := $(UV) pip install --python $(BIN)/python

$(BIN)/uv: | $(BIN)/python
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)

# The chart component (components/atlas-plotly, ui/plotly_component.py) is installed editable, with
# no dependencies of its own, so that Streamlit finds its manifest and serves its asset folder;
# npm installs the plotly.js bundle it draws with (plotly's cartesian bundle, pinned by its
# package-lock.json) and `python -m atlas_plotly` copies it into that folder.
COMPONENT := components/atlas-plotly
NPM_CI := npm ci --prefix $(COMPONENT) --no-audit --no-fund --loglevel=error
INSTALL_COMPONENT := $(NPM_CI) && $(UV_INSTALL) --no-deps -e $(COMPONENT) && \
  $(BIN)/python -m atlas_plotly
COMPONENT_FILES := $(COMPONENT)/pyproject.toml $(COMPONENT)/package-lock.json

$(STAMP_RUN): requirements.lock $(COMPONENT_FILES) | $(BIN)/uv
	$(UV_INSTALL) -r requirements.lock
	$(INSTALL_COMPONENT)
	touch $@

# The accessibility judge's axe-core (tests/axe, pinned by its package-lock.json; bench/axe.py).
AXE := tests/axe
$(STAMP_DEV): requirements.lock requirements-dev.lock $(COMPONENT_FILES) $(AXE)/package-lock.json | $(BIN)/uv
	$(UV_INSTALL) -r requirements-dev.lock
	$(INSTALL_COMPONENT)
	npm ci --prefix $(AXE) --no-audit --no-fund --loglevel=error
	touch $@ $(STAMP_RUN)

setup: $(STAMP_RUN)
setup-dev: $(STAMP_DEV)

# Recompile the lock files after editing requirements*.txt; fails if torch resolved to a CUDA build.
LOCK := $(UV) pip compile --quiet --python $(BIN)/python --annotation-style line \
  --custom-compile-command "make lock"
lock: | $(BIN)/uv
	$(LOCK) -o requirements.lock requirements.txt
	$(LOCK) -c requirements.lock -o requirements-dev.lock requirements-dev.txt
	! grep -n -i -E "^(nvidia|cuda|triton)" requirements.lock requirements-dev.lock

# Serves http://localhost:$(PORT) (`make run PORT=8600` for another port); .streamlit/config.toml
# binds it to 127.0.0.1 and turns the file watcher off (restart after editing the code). app.py is
# served through serve/asgi.py: Streamlit's routes and, beside them, the live class's event stream.
run: $(STAMP_RUN)
	$(BIN)/streamlit run serve/asgi.py --server.port $(PORT)

# The suite on TEST_WORKERS processes (pytest-xdist): a browser test mostly waits for a page, so
# three workers keep two cores busy. Each test module is one group, run by one worker; the
# groups go out in the order tests/conftest.py gives them, slow ones first (hence
# --no-loadscope-reorder); the 25 slowest tests are listed at the end.
TEST_WORKERS ?= 3
test: $(STAMP_DEV)
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=25

# Everything but the tests marked slow (browser, shipped checkpoints, training data; tests/conftest.py).
test-fast: $(STAMP_DEV)
	$(PYTEST) -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder -m "not slow"

# Refresh the README's screenshots: only the browser tests that take one, writing into docs/.
screenshots: $(STAMP_DEV)
	ATLAS_SCREENSHOTS=docs/screenshots $(PYTEST) -q -m screenshot

bench: $(STAMP_DEV)
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.upload_memory
	OMP_NUM_THREADS=1 $(BIN)/python -m bench.lab_speed

# --- A class at once (bench/load, docs/deployment.md) ---------------------------------------------
# Headless students over Streamlit's websocket protocol, on loopback, then one table (also written
# to runs/load/). SCENARIO=class|burst|soak|all|live-class|lecture-hall; SESSIONS, INTERACTIONS;
# REPLICAS=1, 2 or 1,2 (a run for each: nginx in front of 2; default 1, live-class 1,2,
# lecture-hall 2 on a private PostgreSQL); QUICK=1 shrinks every size;
# LOAD_ARGS: python -m bench.load --help.
.PHONY: load serve-class nginx
SCENARIO ?= all
load: $(STAMP_DEV)
	OMP_NUM_THREADS=1 $(BIN)/python -m bench.load --scenario $(SCENARIO) \
	  $(if $(REPLICAS),--replicas $(REPLICAS)) $(if $(SESSIONS),--sessions $(SESSIONS)) \
	  $(if $(INTERACTIONS),--interactions $(INTERACTIONS)) \
	  $(if $(QUICK),--quick) $(LOAD_ARGS)

# REPLICAS app processes (default 2) on 127.0.0.1:CLASS_PORT+1... behind nginx on CLASS_PORT,
# sticky sessions; Ctrl-C stops them all (deploy/serve_class.py).
CLASS_PORT ?= 8500
serve-class: $(STAMP_RUN) nginx
	$(BIN)/python -m deploy.serve_class --replicas $(or $(REPLICAS),2) --port $(CLASS_PORT)

nginx:
	command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || \
	  (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y nginx-light)

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m i18n.build --check

# Extract the messages from the code and merge the Chinese fragments (locale/zh/fragments/*.po)
# into the committed catalogues under locale/ (docs/translating.md).
i18n: $(STAMP_RUN)
	$(BIN)/python -m i18n.build

format: $(STAMP_DEV)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# --- Retraining the RNN translators (Multi30k en->fr; see docs/training.md) ---------
# bahdanau and luong-dot train from scratch; the other Luong variants start from luong-dot's weights
# and `none` from bahdanau's encoder (warm start), which is how the shipped checkpoints were made.
TRAIN_SEQ2SEQ := $(BIN)/python -m training.train_seq2seq --data $(DATA)
FINETUNE ?= --epochs 2 --lr 1e-3 --decay-from 2
FINETUNE_NONE ?= --epochs 4 --lr 2e-3 --decay-from 3

train-seq2seq: $(STAMP_RUN)
	$(TRAIN_SEQ2SEQ) --attention bahdanau --epochs 7
	$(TRAIN_SEQ2SEQ) --attention luong-dot --epochs 7
	for a in luong-general luong-concat local-m local-p; do \
	  $(TRAIN_SEQ2SEQ) --attention $$a --init-from seq2seq-luong-dot $(FINETUNE) || exit 1; done
	$(TRAIN_SEQ2SEQ) --attention none --init-from seq2seq-bahdanau $(FINETUNE_NONE)

evaluate-seq2seq: $(STAMP_RUN)
	for a in none bahdanau luong-dot luong-general luong-concat local-m local-p; do \
	  $(BIN)/python -m training.evaluate --model seq2seq-$$a --data $(DATA) || exit 1; done

# --- Retraining the two Transformers (same data and tokenizers as the RNN translators) -------------
# As shipped: one thread each, run side by side on 2 cores; each stops after 105 minutes of epochs
# (or early, when validation BLEU stalls for 4 epochs) and exports its best epoch.
TRAIN_TRANSFORMER := $(BIN)/python -m training.train_transformer --data $(DATA) --threads 1 --epochs 30 --time-budget 105 --patience 4
.PHONY: train-transformer evaluate-transformer

train-transformer: $(STAMP_RUN)
	$(TRAIN_TRANSFORMER) --positional sinusoidal & first=$$!; \
	  $(TRAIN_TRANSFORMER) --positional learned; second=$$?; wait $$first && exit $$second

evaluate-transformer: $(STAMP_RUN)
	for p in sinusoidal learned; do \
	  $(BIN)/python -m training.evaluate --model transformer-$$p --data $(DATA) || exit 1; done

# ---- Image captions (Show, Attend and Tell): the font is needed only to generate training scenes.
.PHONY: font sprites caption-data train-captions evaluate-captions
SUDO := $(shell [ "$$(id -u)" -ne 0 ] && echo sudo)
CAPTION_TEST_SEED ?= 7

font:
	dpkg -s fonts-noto-color-emoji >/dev/null 2>&1 || \
	  (DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y fonts-noto-color-emoji)

sprites: font $(STAMP_RUN)
	$(BIN)/python -m training.make_scenes --export-sprites assets/sprites

caption-data: font $(STAMP_RUN)
	$(BIN)/python -m training.caption_data --seed 1 --n 10000
	$(BIN)/python -m training.caption_data --seed 2 --n 250

train-captions: caption-data
	$(BIN)/python -m training.train_captions --attention soft
	$(BIN)/python -m training.train_captions --attention hard --init-from caption-soft
	$(BIN)/python -m training.train_captions --attention hard --epochs 16 --lr 5e-4 --reinforce 0.1 \
	  --curriculum -9 --train-n 10000 --val-n 250 --patience 6 --init-from checkpoints/caption-hard \
	  --run-dir runs/caption-hard-10k

evaluate-captions: font $(STAMP_RUN)
	$(BIN)/python -m training.evaluate_captions --model caption-soft --n 500 --seed $(CAPTION_TEST_SEED) --write-card
	$(BIN)/python -m training.evaluate_captions --model caption-hard --n 500 --seed $(CAPTION_TEST_SEED) --write-card
