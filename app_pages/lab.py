"""Training lab: train a small encoder-decoder live on a toy task whose true alignment is known,
watch its attention form, scrub the timeline, and compare it with the same model without
attention, accuracy by source length (the fixed-length bottleneck, reproduced in a minute)."""

from __future__ import annotations

import streamlit as st

from models.lab.tasks import Example, probe_example
from models.lab.train import LabConfig, LabRun, Snapshot
from ui.charts import plotly_chart
from ui.downloads import download_json
from ui.lab import (
    JOB_KEY,
    LabSettings,
    controls_ui,
    lab_server,
    run_label,
    run_summary,
    shown_tokens,
    url_notices,
    watcher_id,
)
from ui.lab_jobs import CANCELLED, DONE, QUEUED, STARTING, JobSpec, JobView
from viz.alignment import alignment_heatmap
from viz.lab import Curves, length_accuracy_chart, training_curves

POLL_S = 1.0  # the live view polls the job (and renews its heartbeat) this often
NOTICE_KEY = "lab_notice"  # session state: a message for the next run of the page
LEFT = (
    "You stopped watching this run; another tab (or another visitor) is training the same "
    "settings, so it goes on there. Press **Train** to watch it again."
)
ABOUT = """
Pick a model and a toy task whose **true alignment** is known (reverse a sequence: the
anti-diagonal; copy it: the diagonal; sort digits: a permutation; normalise a date: each digit
reads its field), then press **Train**. The model is the one behind the translators on the other
pages, only smaller; it trains here, on the server's CPU, in about a minute. Watch the attention
of one fixed *probe* example sharpen into the true alignment, then scrub the timeline, and see
what the same model does with no attention at all: one vector for the whole source.
"""
BOTTLENECK = """
**The fixed-length bottleneck, live.** Both models saw the same batches for the same number of
steps. Without attention, the decoder reads the whole source from one vector of the hidden size;
short sources fit, long ones do not, and its accuracy falls with the length. With attention, each
output step looks back at the source position it needs, and the length hardly matters.
"""


def curves_of(runs: list[tuple[tuple[Snapshot, ...], LabConfig]]) -> list[Curves]:
    """Training curves of each (snapshots, config) with at least one snapshot."""
    out = []
    for snaps, config in runs:
        if not snaps:
            continue
        agreement = None if config.attention == "none" else [s.agreement for s in snaps]
        out.append(
            Curves(
                run_label(config),
                config.attention,
                [s.step for s in snaps],
                [s.loss for s in snaps],
                [s.accuracy for s in snaps],
                agreement,
            )
        )
    return out


def probe_heatmaps_ui(run_config: LabConfig, probe: Example, snap: Snapshot, key: str) -> None:
    """The probe's attention at ``snap`` next to the true alignment."""
    src, tgt = shown_tokens(probe.source), shown_tokens(probe.target)
    left, right = st.columns(2)
    with left:
        if snap.probe_weights is None:
            st.info(
                "This model has no attention: its decoder reads one fixed vector, so there "
                "is no alignment to draw."
            )
        else:
            fig = alignment_heatmap(
                snap.probe_weights,
                src,
                tgt,
                title=f"{run_label(run_config)}: attention at step {snap.step}",
            )
            plotly_chart(fig, key=f"{key}_heatmap")
    with right:
        fig = alignment_heatmap(probe.alignment, src, tgt, title="True alignment")
        plotly_chart(fig, key=f"{key}_truth")
    written = (
        "".join(snap.probe_output) if run_config.task == "date" else " ".join(snap.probe_output)
    )
    agreement = (
        ""
        if snap.agreement is None
        else f" · attention on the true alignment: {snap.agreement:.0%}"
    )
    st.caption(
        f"Probe: `{''.join(probe.source)}` → the model writes `{written or '(nothing)'}` "
        f"at step {snap.step}{agreement}."
    )


def progress_ui(view: JobView) -> None:
    """Progress bar with the run, step, loss and speed."""
    runs = view.spec.runs()
    config = runs[view.current][0]
    snaps = view.snapshots[view.current]
    p = (
        view.progress
        if view.progress and view.progress.step >= (snaps[-1].step if snaps else 0)
        else None
    )
    step = p.step if p else (snaps[-1].step if snaps else 0)
    loss = p.loss if p else (snaps[-1].loss if snaps else float("nan"))
    speed = p.sequences_per_second if p else (snaps[-1].sequences_per_second if snaps else 0.0)
    done = (view.current + step / config.steps) / len(runs)
    st.progress(
        min(1.0, done),
        text=(
            f"Run {view.current + 1} of {len(runs)} ({run_label(config)}): step {step:,} of "
            f"{config.steps:,} · loss {loss:.3f} · {speed:,.0f} sequences/s"
        ),
    )


@st.fragment(run_every=POLL_S)
def live_ui(job_id: str) -> None:
    """The running job: queue place or progress, Cancel, the curves and the latest attention."""
    server, watcher = lab_server(), watcher_id()
    view = server.view(job_id, watcher)
    if view is None or view.finished:
        st.rerun(scope="app")
        return
    bar, button = st.columns([6, 1], vertical_alignment="bottom")
    with bar:
        if view.state == QUEUED:
            st.info(
                f"Waiting for a free trainer: number {view.place} in the queue "
                f"({server.max_jobs} runs train at once on this server).",
                icon=":material/hourglass_top:",
            )
        elif view.state == STARTING:
            st.info("Starting a training process…", icon=":material/hourglass_top:")
        else:
            progress_ui(view)
    if button.button("Cancel", key="lab_cancel", icon=":material/stop:", width="stretch"):
        if not server.cancel(job_id, watcher):  # another tab still watches: it trains on there
            del st.session_state[JOB_KEY]
            st.session_state[NOTICE_KEY] = LEFT
        st.rerun(scope="app")
    runs = view.spec.runs()
    attended = next((i for i, (c, _) in enumerate(runs) if c.attention != "none"), 0)
    if view.snapshots[attended]:
        config = runs[attended][0]
        probe = probe_example(config.task, config.max_len)  # the same for every run of the task
        probe_heatmaps_ui(config, probe, view.snapshots[attended][-1], "lab_live")
    curves = curves_of([(s, c) for s, (c, _) in zip(view.snapshots, runs, strict=True)])
    if curves:
        plotly_chart(training_curves(curves, title="Training so far"), key="lab_live_curves")


def summary_ui(runs: tuple[LabRun, ...]) -> None:
    """Final sequence accuracy, accuracy on the longest sources and training time per run."""
    for col, run in zip(st.columns(len(runs)), runs, strict=True):
        last = run.snapshots[-1]
        long = [acc for n, acc in last.by_length if n > 2 * run.config.max_len // 3]
        with col:
            st.markdown(f"**{run_label(run.config)}**")
            a, b, c = st.columns(3)
            a.metric("Sequences right", f"{last.accuracy:.0%}")
            b.metric(
                "Longest third",
                f"{sum(long) / len(long):.0%}" if long else "–",
                help="Sequence accuracy on sources longer than 2/3 of the longest.",
            )
            c.metric(
                "Training time",
                f"{last.seconds:.0f} s",
                help=f"{last.sequences_per_second:,.0f} sequences per second",
            )


def timeline_ui(runs: tuple[LabRun, ...]) -> int:
    """The timeline slider over the snapshots; returns the chosen snapshot index."""
    steps = [s.step for s in runs[0].snapshots]
    key = f"lab_timeline_{abs(hash((runs[0].config, runs[0].seed)))}"
    index = st.select_slider(
        "Timeline: scrub through training",
        options=range(len(steps)),
        value=len(steps) - 1,
        format_func=lambda i: f"step {steps[i]:,}",
        key=key,
    )
    return int(index)


@st.fragment
def results_ui(runs: tuple[LabRun, ...]) -> None:
    """A finished job: summary, the timeline with the probe's attention, the curves, and the
    comparison by length at the chosen moment (a fragment: scrubbing reruns only this)."""
    summary_ui(runs)
    st.subheader("Watch the alignment form")
    index = timeline_ui(runs)
    attended = next((r for r in runs if r.config.attention != "none"), runs[0])
    snap = attended.snapshots[min(index, len(attended.snapshots) - 1)]
    probe_heatmaps_ui(attended.config, attended.probe, snap, "lab_result")
    curves = curves_of([(r.snapshots, r.config) for r in runs])
    plotly_chart(training_curves(curves, step=snap.step, title="Training curves"), key="lab_curves")
    st.subheader("With and without attention, by source length")
    series = [
        (
            run_label(r.config),
            r.config.attention,
            r.snapshots[min(index, len(r.snapshots) - 1)].by_length,
        )
        for r in runs
    ]
    plotly_chart(
        length_accuracy_chart(series, title=f"Sequence accuracy at step {snap.step:,}"),
        key="lab_by_length",
    )
    if len(runs) > 1:
        st.markdown(BOTTLENECK)
    download_json([run_summary(r) for r in runs], "training-lab.json", key="lab_json")


def start(spec: JobSpec) -> None:
    """Submit ``spec`` for this tab, leaving the tab's earlier job when it trains other settings."""
    server, watcher = lab_server(), watcher_id()
    old = st.session_state.get(JOB_KEY)
    view = server.view(old) if old else None
    if view is not None and view.spec != spec:
        server.cancel(old, watcher)
    st.session_state[JOB_KEY] = server.submit(spec, watcher)


def train_bar_ui(settings: LabSettings) -> None:
    """The Train button and how busy the server's trainers are."""
    server = lab_server()
    left, right = st.columns([1, 5], vertical_alignment="center")
    if left.button(
        "Train", type="primary", icon=":material/play_arrow:", key="lab_train", width="stretch"
    ):
        start(settings.spec)
    running, waiting = server.load()
    right.caption(
        f"Trainers busy: {running} of {server.max_jobs}; {waiting} waiting. Runs are "
        "cached by settings and seed: a link to a finished run opens it at once."
    )


def job_ui(spec: JobSpec) -> None:
    """This tab's job (live or ended) or the cached run of the current settings."""
    server, watcher = lab_server(), watcher_id()
    job_id = st.session_state.get(JOB_KEY)
    view = server.view(job_id, watcher) if job_id else None
    if view is not None and not view.finished:
        if view.spec != spec:
            st.info(
                "Training the settings you started with; press **Train** to switch to "
                "the new ones.",
                icon=":material/info:",
            )
        live_ui(view.job_id)
        return
    if view is not None and view.spec == spec and view.state != DONE:
        shown = st.info if view.state == CANCELLED else st.error
        shown(
            f"{view.message} The settings are kept: press **Train** to start again.",
            icon=":material/stop_circle:",
        )
        return
    runs = server.cached(spec)
    if runs is None and view is not None and view.spec == spec and view.state == DONE:
        runs = tuple(view.runs)  # finished, though the cache has let it go since
    if runs:
        results_ui(runs)
    else:
        st.info("Press **Train** to train these settings.", icon=":material/model_training:")


def main() -> None:
    """The page."""
    st.title("Training lab")
    st.markdown(ABOUT)
    notices = url_notices(st.query_params.to_dict())  # before the controls drop bad values
    settings = controls_ui()
    for notice in [*notices, *settings.notes]:
        st.warning(notice, icon=":material/link_off:")
    train_bar_ui(settings)
    if NOTICE_KEY in st.session_state:
        st.info(st.session_state.pop(NOTICE_KEY), icon=":material/visibility_off:")
    job_ui(settings.spec)


main()
