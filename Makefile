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
