"""Streamlit glue for the training lab: the one job server per process, the controls (all kept in
the URL under ``lab_*``, so a teacher's link reproduces the run), the check that tells a visitor
which values of a link were not usable, and the labels and texts the page shows.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from i18n import N_, _
from models.lab.tasks import MIN_DATE_LEN, TASK_NAMES, TASKS
from models.lab.train import HIDDEN_SIZES, LAB_ATTENTIONS, MAX_LEN, LabConfig, LabRun
from serve.lab_jobs import JobSpec, JobView, LabServer, max_jobs_setting, niceness_setting
from ui.choices import choice_ui
from ui.url_state import parse_choice, parse_int, seed_number, write_params

WATCHER_KEY = "lab_watcher"  # session state: this tab's id for the job server
JOB_KEY = "lab_job"  # session state: the id of this tab's latest job
MIN_LEN, STEPS_RANGE, MAX_SEED = 4, (100, 3000), 9999
CELL_LABELS = {
    "rnn": "RNN",
    "lstm": "LSTM",
    "gru": "GRU",
}  # names: the labels are the link's values
CELL_KEYS = {label: cell for cell, label in CELL_LABELS.items()}
TASK_LABELS = {"reverse": N_("reverse"), "copy": N_("copy"), "sort": N_("sort"), "date": N_("date")}
ATTENTION_HELP = {
    "none": N_("one fixed vector for the whole source"),
    "bahdanau": N_("additive, from the previous decoder state"),
    "luong-dot": N_("dot product with the current decoder state"),
    "luong-general": N_("a learned bilinear score"),
    "luong-concat": N_("additive, from the current decoder state"),
    "local-p": N_("a learned window, with a Gaussian around its predicted centre"),
}
HELP = {  # widget key -> its help text
    "lab_bi": N_("A second RNN reads the source backwards; each position is described by both."),
    "lab_len": N_(
        "Sources have 1 to this many tokens (dates: characters, as the format makes them)."
    ),
    "lab_hidden": N_(
        "The size of the one vector a model without attention squeezes the source into."
    ),
    "lab_seed": N_("The same settings and seed give the same run."),
    "lab_cmp": N_(
        "The same model without attention (or, when you chose none, with Bahdanau "
        "attention), on the same batches: the side-by-side comparison."
    ),
}
DEFAULTS = LabConfig()
BOOLS = ("true", "false", "1", "0", "yes", "no", "on", "off")


@dataclass(frozen=True)
class LabSettings:
    """The page's inputs: the job to train (config, seed, whether to train the twin) and notes
    (translated sentences) about values adjusted to fit the task."""

    spec: JobSpec
    notes: tuple[str, ...] = ()


@st.cache_resource(show_spinner=False)
def lab_server() -> LabServer:
    """The server's one job server (shared by every session; see serve.lab_jobs)."""
    return LabServer(max_jobs=max_jobs_setting(), niceness=niceness_setting())


def watcher_id() -> str:
    """This tab's id (each browser tab is its own session, so two tabs never share one)."""
    if WATCHER_KEY not in st.session_state:
        st.session_state[WATCHER_KEY] = uuid.uuid4().hex
    return st.session_state[WATCHER_KEY]


def _int_in(lo: int, hi: int) -> Callable[[str], bool]:
    return lambda raw: parse_int(raw, lo - 1, lo, hi) >= lo


def _one_of(choices: Iterable[object]) -> Callable[[str], bool]:
    return lambda raw: parse_choice(raw, "", [str(c) for c in choices]) != ""


URL_CHECKS = {
    "lab_task": _one_of(TASK_NAMES),
    "lab_cell": _one_of(CELL_KEYS),
    "lab_layers": _int_in(1, 2),
    "lab_bi": lambda raw: str(raw).strip().lower() in BOOLS,
    "lab_attn": _one_of(LAB_ATTENTIONS),
    "lab_len": _int_in(MIN_LEN, MAX_LEN),
    "lab_hidden": _one_of(HIDDEN_SIZES),
    "lab_steps": _int_in(*STEPS_RANGE),
    "lab_seed": _int_in(0, MAX_SEED),
    "lab_cmp": lambda raw: str(raw).strip().lower() in BOOLS,
}


def url_notices(params: Mapping[str, str]) -> list[str]:
    """One sentence per link whose ``lab_*`` values the lab cannot use (each control then falls
    back to its default)."""
    bad = [
        f"`{k}={str(params[k])[:40]}`"
        for k, ok in URL_CHECKS.items()
        if k in params and not ok(params[k])
    ]
    if not bad:
        return []
    return [
        _("The link's {values} cannot be used here: the lab uses the default instead.").format(
            values=", ".join(bad)
        )
    ]


def _in_url(widget: Callable[..., Any], label: str, *args: Any, key: str, **kwargs: Any) -> Any:
    """``widget`` kept in the URL under ``key`` (every lab control but the seed is), with its
    help from :func:`help_text`."""
    return widget(label, *args, key=key, bind="query-params", help=help_text(key), **kwargs)


def help_text(key: str) -> str | None:
    """The help of the lab control ``key``, in the session's language (None: it has none)."""
    if key == "lab_attn":
        return " · ".join(f"**{k}**: {_(v)}" for k, v in ATTENTION_HELP.items())
    return _(HELP[key]) if key in HELP else None


def _model_ui() -> tuple[str, int, bool, str]:
    """Cell, layers, direction and attention."""
    c1, c2, c3, c4 = st.columns([1.3, 0.7, 1.4, 1.3])  # room for the toggle's label
    cells, default_cell = tuple(CELL_LABELS.values()), CELL_LABELS[DEFAULTS.cell]
    cell = _in_url(
        c1.segmented_control,
        _("Encoder and decoder cell"),
        cells,
        default=default_cell,
        key="lab_cell",
        required=True,
        wrap=True,  # in a column a control scrolls sideways by default
    )
    layers = _in_url(
        c2.segmented_control,
        _("Layers"),
        (1, 2),
        default=1,
        key="lab_layers",
        required=True,
        wrap=True,
    )
    bi = _in_url(c3.toggle, _("Bidirectional encoder"), value=DEFAULTS.bidirectional, key="lab_bi")
    index = LAB_ATTENTIONS.index(DEFAULTS.attention)
    attention = _in_url(c4.selectbox, _("Attention"), LAB_ATTENTIONS, index=index, key="lab_attn")
    return CELL_KEYS.get(cell, DEFAULTS.cell), int(layers or 1), bool(bi), attention


def _task_ui() -> tuple[str, int, int]:
    """Task, longest source and hidden size."""
    c1, c2, c3 = st.columns([1.3, 1.6, 1.4])
    task = choice_ui(c1.selectbox, _("Task"), TASK_LABELS, key="lab_task", default=DEFAULTS.task)
    c1.caption(_(TASKS[task].description))
    max_len = _in_url(
        c2.slider, _("Longest source (tokens)"), MIN_LEN, MAX_LEN, DEFAULTS.max_len, key="lab_len"
    )
    hidden = _in_url(
        c3.select_slider, _("Hidden size"), HIDDEN_SIZES, value=DEFAULTS.hidden, key="lab_hidden"
    )
    return task, int(max_len), int(hidden)


def _training_ui() -> tuple[int, int, bool]:
    """Steps, seed and whether to train the twin."""
    c1, c2, c3 = st.columns([1.6, 1, 1.7])
    label = _("Training steps ({n} sequences each)").format(n=DEFAULTS.batch)
    steps = _in_url(c1.slider, label, *STEPS_RANGE, DEFAULTS.steps, 100, key="lab_steps")
    seed_number("lab_seed", 0, 0, MAX_SEED)  # not bound: Streamlit raises on ?lab_seed=inf
    seed = c2.number_input(_("Seed"), 0, MAX_SEED, key="lab_seed", help=help_text("lab_seed"))
    write_params(lab_seed=seed)
    compare = _in_url(
        c3.toggle, _("Also train the twin with attention swapped"), value=True, key="lab_cmp"
    )
    return int(steps), int(seed), bool(compare)


def controls_ui() -> LabSettings:
    """Every control of the lab, bounded; returns the settings to train."""
    cell, layers, bi, attention = _model_ui()
    task, max_len, hidden = _task_ui()
    steps, seed, compare = _training_ui()
    notes = []
    if max_len < TASKS[task].min_len:
        notes.append(
            _(
                "Dates need at least {n} characters ('1/5/2021'): this run uses sources of up to {n}."
            ).format(n=MIN_DATE_LEN)
        )
        max_len = TASKS[task].min_len
    config = LabConfig(
        task=task,
        cell=cell,
        layers=layers,
        bidirectional=bi,
        attention=attention,
        max_len=max_len,
        hidden=hidden,
        steps=steps,
    )
    return LabSettings(JobSpec(config, seed, compare), tuple(notes))


def run_label(config: LabConfig) -> str:
    """'GRU ×2, bidirectional + bahdanau' for legends and headings (names are not translated)."""
    cell = CELL_LABELS[config.cell] + (f" ×{config.layers}" if config.layers > 1 else "")
    if config.bidirectional:
        cell = _("{cell}, bidirectional").format(cell=cell)
    if config.attention == "none":
        return _("{cell}, no attention").format(cell=cell)
    return f"{cell} + {config.attention}"


def shown_tokens(tokens: list[str] | tuple[str, ...]) -> list[str]:
    """Tokens for axes and text, with </s> closing them and spaces made visible."""
    return [("␣" if t == " " else t) for t in tokens] + ["</s>"]


def job_message(view: JobView) -> str:
    """Why a job ended, in the session's language."""
    return _(view.message).format(detail=view.detail) if view.message else ""


def number(value: float, spec: str = ".3f") -> str:
    """``value`` formatted, or a dash when it is not a number yet (the loss before step 1)."""
    return format(value, spec) if math.isfinite(value) else "–"


def run_summary(run: LabRun) -> dict:
    """A finished run as plain data for the JSON download (keys are data: not translated)."""
    return {
        "config": run.config.__dict__,
        "seed": run.seed,
        "completed": run.completed,
        "probe": {
            "source": run.probe.source,
            "target": run.probe.target,
            "true_alignment": run.probe.alignment,
        },
        "snapshots": [
            {
                **s.__dict__,
                "loss": s.loss if math.isfinite(s.loss) else None,  # none before the first step
                "by_length": [list(p) for p in s.by_length],
            }
            for s in run.snapshots
        ],
    }
