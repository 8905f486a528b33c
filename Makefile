# Two commands for a newcomer: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.run-installed
STAMP_DEV := $(VENV)/.dev-installed
DATA ?= ../shared/data/multi30k

.PHONY: run test bench lint format setup setup-dev train-seq2seq evaluate-seq2seq

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip

$(STAMP_RUN): requirements.txt | $(BIN)/python
	$(BIN)/pip install -r requirements.txt
	touch $@

$(STAMP_DEV): requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install -r requirements-dev.txt
	touch $@ $(STAMP_RUN)

setup: $(STAMP_RUN)
setup-dev: $(STAMP_DEV)

run: $(STAMP_RUN)
	$(BIN)/streamlit run app.py

test: $(STAMP_DEV)
	$(BIN)/python -m pytest -q

bench: $(STAMP_DEV)
	$(BIN)/python -m bench.run

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP_DEV)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# --- Retraining the RNN translators (Multi30k en->fr; see README "Train the models again") ---------
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
