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
FINETUNE_NONE ?= --epochs 2 --lr 1e-3 --decay-from 2

train-seq2seq: $(STAMP_RUN)
	$(TRAIN_SEQ2SEQ) --attention bahdanau --epochs 7
	$(TRAIN_SEQ2SEQ) --attention luong-dot --epochs 7
	for a in luong-general luong-concat local-m local-p; do \
	  $(TRAIN_SEQ2SEQ) --attention $$a --init-from seq2seq-luong-dot $(FINETUNE) || exit 1; done
	$(TRAIN_SEQ2SEQ) --attention none --init-from seq2seq-bahdanau $(FINETUNE_NONE)

evaluate-seq2seq: $(STAMP_RUN)
	for a in none bahdanau luong-dot luong-general luong-concat local-m local-p; do \
	  $(BIN)/python -m training.evaluate --model seq2seq-$$a --data $(DATA) || exit 1; done
