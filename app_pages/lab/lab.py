"""Training lab: train a small encoder-decoder live on a toy task whose true alignment is known,
watch its attention form, scrub the timeline, and compare it with the same model without
attention, accuracy by source length (the fixed-length bottleneck, reproduced in a minute)."""

from __future__ import annotations

import streamlit as st

from app_pages.lab.controls import (
    JOB_KEY,
    LabSettings,
    controls_ui,
    job_message,
    lab_server,
    number,
    run_label,
    run_summary,
    shown_tokens,
    url_notices,
    watcher_id,
)
from i18n import N_, _, current_language
from models.lab.tasks import Example, probe_example
from models.lab.train import LabConfig, LabRun, Snapshot
from serve.lab_jobs import CANCELLED, DONE, QUEUED, STARTING, JobSpec, JobView
from ui.charts import plotly_chart
from ui.choices import SHOWN_IN
from ui.downloads import download_json
from ui.errors import fragment
from ui.text import page_intro
from viz.alignment import alignment_heatmap
from viz.lab import (
    Curves,
    length_accuracy_chart,
    probe_player_chart,
    training_curves,
)

ATTENTION_AT = N_("Attention at step {step}")  # short: a half column
PLAY_HINT = N_(
    "Press **▶ play** to watch the map form, snapshot by snapshot, or drag its slider; the "
    "timeline above also moves the curves and the comparison."
)
POLL_S = 1.0  # the live view polls the job (and renews its heartbeat) this often
NOTICE_KEY = "lab_notice"  # session state: a message for the next run of the page
LEFT = N_(
    "You stopped watching this run; another tab (or another visitor) is training the same "
    "settings, so it goes on there. Press **Train** to watch it again."
)
ABOUT = N_(
    "Pick a model and a toy task whose **true alignment** is known (reverse a sequence: the "
    "anti-diagonal; copy it: the diagonal; sort digits: a permutation; normalise a date: each "
    "digit reads its field), then press **Train**. The model is the one behind the translators "
    "on the other pages, only smaller; it trains here, on the server's CPU, in about a minute. "
    "Watch the attention of one fixed *probe* example sharpen into the true alignment, then "
    "scrub the timeline, and see what the same model does with no attention at all: one vector "
    "for the whole source."
)
BOTTLENECK = N_(
    "**The fixed-length bottleneck, live.** Both models saw the same batches for the same number "
    "of steps. Without attention, the decoder reads the whole source from one vector of the "
    "hidden size: short sources fit, long ones do not, and its accuracy falls with the length. "
    "With attention, each output step looks back at the source position it needs, and the "
    "length hardly matters."
)


def curves_of(runs: list[tuple[tuple[Snapshot, ...], LabConfig]]) -> list[Curves]:
    """Training curves of each (snapshots, config) with at least one snapshot."""
    out = []
    for snaps, config in runs:
        if snaps:
            agreement = None if config.attention == "none" else [s.agreement for s in snaps]
            steps, losses = [s.step for s in snaps], [s.loss for s in snaps]
            accuracy = [s.accuracy for s in snaps]
            out.append(
                Curves(run_label(config), config.attention, steps, losses, accuracy, agreement)
            )
    return out


def written(config: LabConfig, snap: Snapshot) -> str:
    """What the model writes for the probe at ``snap`` (characters joined for dates)."""
    text = ("" if config.task == "date" else " ").join(snap.probe_output)
    return text or _("(nothing)")


def probe_heatmaps_ui(
    config: LabConfig,
    probe: Example,
    snap: Snapshot,
    key: str,
    snapshots: tuple[Snapshot, ...] = (),
) -> None:
    """The probe's attention at ``snap`` next to the true alignment, and what the model writes.
    With the run's ``snapshots`` (a finished run), the map plays through them in the browser."""
    src, tgt = shown_tokens(probe.source), shown_tokens(probe.target)
    left, right = st.columns(2)
    with left:
        if snap.probe_weights is None:
            st.info(_("This model has no attention: there is no alignment to draw."))
        elif snapshots:
            chart = probe_player_chart(
                [s.probe_weights for s in snapshots],
                [s.step for s in snapshots],
                src,
                tgt,
                titles=[_(ATTENTION_AT).format(step=s.step) for s in snapshots],
                index=next(i for i, s in enumerate(snapshots) if s is snap),
            )
            plotly_chart(chart, key=key)
            st.caption(_(PLAY_HINT))
        else:
            title = _(ATTENTION_AT).format(step=snap.step)
            plotly_chart(alignment_heatmap(snap.probe_weights, src, tgt, title=title), key=key)
    with right:
        truth = alignment_heatmap(probe.alignment, src, tgt, title=_("True alignment"))
        plotly_chart(truth, key=f"{key}_truth")
    text = _("Probe: `{source}` → **{model}** writes `{output}` at step {step}.").format(
        source="".join(probe.source),
        model=run_label(config),
        output=written(config, snap),
        step=snap.step,
    )
    if snap.agreement is not None:
        text += " " + _("Attention on the true alignment: {share:.0%}.").format(
            share=snap.agreement
        )
    st.caption(text)


def progress_ui(view: JobView) -> None:
    """Progress bar with the run, step, loss and speed (the latest report or snapshot)."""
    runs = view.spec.runs()
    config, snaps, p = runs[view.current][0], view.snapshots[view.current], view.progress
    last = snaps[-1] if snaps else None
    if p is None or (last is not None and last.step > p.step):
        step, loss = (last.step, last.loss) if last else (0, float("nan"))
        speed = last.sequences_per_second if last else 0.0
    else:
        step, loss, speed = p.step, p.loss, p.sequences_per_second
    text = _(
        "Run {run} of {runs} ({model}): step {step:,} of {steps:,} · loss {loss} · "
        "{speed:,.0f} sequences/s"
    ).format(
        run=view.current + 1,
        runs=len(runs),
        model=run_label(config),
        step=step,
        steps=config.steps,
        loss=number(loss),
        speed=speed,
    )
    st.progress(min(1.0, (view.current + step / config.steps) / len(runs)), text=text)


def status_ui(view: JobView, max_jobs: int) -> None:
    """Queue place, start, or the progress bar."""
    if view.state == QUEUED:
        st.info(
            _(
                "Waiting for a free trainer: number {place} in the queue ({n} runs train at "
                "once on this server)."
            ).format(place=view.place, n=max_jobs),
            icon=":material/hourglass_top:",
        )
    elif view.state == STARTING:
        st.info(_("Starting a training process…"), icon=":material/hourglass_top:")
    else:
        progress_ui(view)


@fragment(run_every=POLL_S)
def live_ui(job_id: str) -> None:
    """The running job: queue place or progress, Cancel, the latest attention and the curves."""
    server, watcher = lab_server(), watcher_id()
    view = server.view(job_id, watcher)
    if view is None or view.finished:
        st.rerun(scope="app")
    bar, button = st.columns([6, 1], vertical_alignment="bottom")
    with bar:
        status_ui(view, server.max_jobs)
    if button.button(_("Cancel"), key="lab_cancel", icon=":material/stop:", width="stretch"):
        if not server.cancel(job_id, watcher):  # another tab still watches: it trains on there
            del st.session_state[JOB_KEY]
            st.session_state[NOTICE_KEY] = LEFT
        st.rerun(scope="app")
    runs = view.spec.runs()
    attended = next((i for i, (c, __) in enumerate(runs) if c.attention != "none"), 0)
    if view.snapshots[attended]:
        config = runs[attended][0]
        probe = probe_example(config.task, config.max_len)  # the same for every run of the task
        probe_heatmaps_ui(config, probe, view.snapshots[attended][-1], "lab_live")
    curves = curves_of([(s, c) for s, (c, __) in zip(view.snapshots, runs, strict=True)])
    if curves:
        fig = training_curves(curves, title=_("Training so far"))
        plotly_chart(fig, key="lab_live_curves")


def summary_ui(runs: tuple[LabRun, ...]) -> None:
    """Final sequence accuracy, accuracy on the longest sources and training time per run."""
    for col, run in zip(st.columns(len(runs)), runs, strict=True):
        last = run.snapshots[-1]
        long = [acc for n, acc in last.by_length if n > 2 * run.config.max_len // 3]
        with col:
            st.markdown(f"**{run_label(run.config)}**")
            a, b, c = st.columns(3)
            a.metric(_("Sequences right"), f"{last.accuracy:.0%}")
            b.metric(
                _("Longest third"),
                f"{sum(long) / len(long):.0%}" if long else "–",
                help=_("Sequence accuracy on sources longer than 2/3 of the longest."),
            )
            c.metric(
                _("Training time"),
                f"{last.seconds:.0f} s",
                help=_("{n:,.0f} sequences per second").format(n=last.sequences_per_second),
            )


def timeline_ui(runs: tuple[LabRun, ...]) -> int:
    """The timeline slider over the snapshots; returns the chosen snapshot index."""
    steps = [s.step for s in runs[0].snapshots]
    key = f"lab_timeline_{abs(hash((runs[0].config, runs[0].seed)))}"  # one per run
    if key not in st.session_state:
        st.session_state[key] = len(steps) - 1
    elif st.session_state.get(SHOWN_IN + key) != current_language():
        # Its labels are translated: resending the value makes the browser show the new labels
        # at the chosen step (else its thumb goes back to the first step, while the charts stay
        # at the chosen one, and it sends that first step on the next rerun).
        st.session_state[key] = st.session_state[key]
    st.session_state[SHOWN_IN + key] = current_language()
    index = st.select_slider(
        _("Timeline: scrub through training"),
        options=range(len(steps)),
        format_func=lambda i: _("step {step:,}").format(step=steps[i]),
        key=key,
    )
    return int(index)


def comparison_ui(runs: tuple[LabRun, ...], index: int) -> None:
    """Accuracy by source length of every run at snapshot ``index``, and what each writes."""
    st.subheader(_("With and without attention, by source length"))
    snaps = [r.snapshots[min(index, len(r.snapshots) - 1)] for r in runs]
    series = [
        (run_label(r.config), r.config.attention, s.by_length)
        for r, s in zip(runs, snaps, strict=True)
    ]
    title = _("Sequence accuracy at step {step:,}").format(step=snaps[0].step)
    plotly_chart(length_accuracy_chart(series, title=title), key="lab_by_length")
    for col, run, snap in zip(st.columns(len(runs)), runs, snaps, strict=True):
        right = list(snap.probe_output) == list(run.probe.target)
        col.caption(
            _("**{model}** writes `{output}` for the probe ({verdict}).").format(
                model=run_label(run.config),
                output=written(run.config, snap),
                verdict=_("right") if right else _("wrong"),
            )
        )
    if len(runs) > 1:
        st.markdown(_(BOTTLENECK))


@fragment
def results_ui(runs: tuple[LabRun, ...]) -> None:
    """A finished job: summary, the timeline with the probe's attention, the curves, and the
    comparison by length at the chosen moment (a fragment: scrubbing reruns only this)."""
    summary_ui(runs)
    st.subheader(_("Watch the alignment form"))
    index = timeline_ui(runs)
    attended = next((r for r in runs if r.config.attention != "none"), runs[0])
    snap = attended.snapshots[min(index, len(attended.snapshots) - 1)]
    probe_heatmaps_ui(attended.config, attended.probe, snap, "lab_result", attended.snapshots)
    curves = curves_of([(r.snapshots, r.config) for r in runs])
    fig = training_curves(curves, step=snap.step, title=_("Training curves"))
    plotly_chart(fig, key="lab_curves")
    comparison_ui(runs, index)
    download_json([run_summary(r) for r in runs], "training-lab.json", key="lab_json")


def start_job(spec: JobSpec) -> None:
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
    label = _("Train")
    if left.button(label, type="primary", icon=":material/play_arrow:", key="lab_train"):
        start_job(settings.spec)
    running, waiting = server.load()
    right.caption(
        _(
            "Trainers busy: {running} of {n}; {waiting} waiting. Runs are kept by settings and "
            "seed: a link to a finished run opens it at once."
        ).format(running=running, n=server.max_jobs, waiting=waiting)
    )


def ended_ui(view: JobView) -> None:
    """A cancelled or failed job of the current settings: why, and what to do."""
    shown = st.info if view.state == CANCELLED else st.error
    shown(
        _("{reason} The settings are kept: press **Train** to start again.").format(
            reason=job_message(view)
        ),
        icon=":material/stop_circle:",
    )


def job_ui(spec: JobSpec) -> None:
    """This tab's job (live or ended) or the cached run of the current settings."""
    server, watcher = lab_server(), watcher_id()
    job_id = st.session_state.get(JOB_KEY)
    view = server.view(job_id, watcher) if job_id else None
    if view is not None and not view.finished:
        if view.spec != spec:
            st.info(
                _("Training the settings you started with; press **Train** for the new ones."),
                icon=":material/info:",
            )
        live_ui(view.job_id)
        return
    if view is not None and view.spec == spec and view.state != DONE:
        ended_ui(view)
        return
    runs = server.cached(spec)
    if runs is None and view is not None and view.spec == spec and view.state == DONE:
        runs = tuple(view.runs)  # finished, though the cache has let it go since
    if runs:
        results_ui(runs)
    else:
        st.info(_("Press **Train** to train these settings."), icon=":material/model_training:")


def main() -> None:
    """The page."""
    page_intro(_("Training lab"), _(ABOUT))
    notices = url_notices(st.query_params.to_dict())  # before the controls drop bad values
    settings = controls_ui()
    for notice in [*notices, *settings.notes]:
        st.warning(notice, icon=":material/link_off:")
    train_bar_ui(settings)
    notice = st.session_state.pop(NOTICE_KEY, None)  # a message id, shown once
    if notice:
        st.info(_(notice), icon=":material/visibility_off:")
    job_ui(settings.spec)


main()
