"""The live parts of the Recurrent networks page: the shipped translator's bidirectional GRU
encoder on the typed sentence (its hidden states, its update and reset gates, both directions),
and the vanishing gradient of three small trained encoders (plain RNN, LSTM, GRU).

Results are cached with ``st.cache_data`` on the weights' identity (:func:`ui.loaders.weights_id`;
:mod:`serve.cache`); every model call goes through :func:`ui.guard.guarded_ui`; a missing
checkpoint shows the project's missing-model box and the rest of the page goes on.
"""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st

from i18n import N_, _
from models.checkpoints import Card
from models.rnn.cells import CellTrace, EncoderTrace, encoder_trace, most_varying_units
from models.rnn.gradients import GradientProfile, encoder_profile
from models.rnn.translator import Translator
from ui.charts import plotly_chart
from ui.choices import segmented_ui
from ui.fit import PAGE, Fit, side_by_side
from ui.guard import guarded_ui
from ui.loaders import ModelKey, cached_translator, card_of, load_model, spinner, weights_id
from ui.tables import table_ui
from viz.recurrent import token_lines, units_heatmap

N_UNITS = 32  # units shown in each heatmap: the most varying over the sentence
ENCODER_CELLS = ("rnn", "lstm", "gru")  # checkpoints rnn-encoder-<cell_type>
CELL_NAMES = {"rnn": "RNN", "lstm": "LSTM", "gru": "GRU"}  # names: never translated
DIRECTIONS = {"forward": N_("forward →h"), "backward": N_("backward ←h")}
TRAINED_NOTE = N_(
    "These encoders are small (128 units) and were trained for a few epochs on a shared CPU, so "
    "they translate far worse than the shipped translators (their test BLEU is in the table). How "
    "fast the gradient fades, though, is a property of the recurrent cell, and it already shows. "
    "Each checkpoint's card.json holds its training history; these commands rebuild them:"
)
UNITS_NOTE = N_(
    "Each heatmap shows {n} of the {total} units of that direction: those whose state varies most "
    "over your sentence, most varying at the top; the row label is the unit's index."
)


@st.cache_data(max_entries=64, show_spinner=False)  # 64 traces of a sentence, < 1 MB each
def _trace(_translator: Translator, weights: ModelKey, text: str) -> EncoderTrace:
    return encoder_trace(_translator, text)


@st.cache_data(max_entries=64, show_spinner=False)  # 64 small norm vectors
def _profile(_translator: Translator, weights: ModelKey, text: str) -> GradientProfile:
    """encoder_profile needs autograd, so it runs outside inference mode."""
    return encoder_profile(_translator, text)


def trace_of(translator: Translator, text: str) -> EncoderTrace | None:
    """The encoder's states and gates on ``text``, or None after the refusal message."""
    with spinner(_("Running the encoder…")):
        return guarded_ui(lambda: _trace(translator, weights_id(translator), text))


def _direction_names() -> tuple[str, str]:
    return _(DIRECTIONS["forward"]), _(DIRECTIONS["backward"])


def side_by_side_ui(builds: list[Callable[[bool], go.Figure]], keys: list[str]) -> None:
    """Maps of units by tokens side by side, their tokens across; where a sentence's tokens do not
    fit half the page, turned (tokens down) and one under the other. ``builds``: each map's
    builder, given whether its tokens go across."""
    figs = [build(True) for build in builds]
    columns = side_by_side(figs)
    if columns:
        places = st.columns(len(builds))
    else:
        figs = [build(False) for build in builds]
        places, columns = [st.container() for _build in builds], [PAGE] * len(builds)
    for place, fig, column, key in zip(places, figs, columns, keys, strict=True):
        with place:
            plotly_chart(fig, key=key, fit=Fit(column))


def hidden_states_ui(trace: EncoderTrace) -> None:
    """The hidden state h_t of both directions, side by side (units x tokens)."""
    layer = trace.layers[0]
    names = _direction_names()
    axis_names = (_("unit"), _("token"))
    builds, keys = [], []
    for direction, name in zip(layer, names, strict=False):
        units = most_varying_units(direction.hidden, N_UNITS)
        builds.append(
            lambda across, d=direction, u=units, n=name: units_heatmap(
                d.hidden[:, u],
                trace.tokens,
                u,
                title=_("hidden state h_t, {direction}").format(direction=n),
                axis_names=axis_names,
                value_name="h_t",
                signed=True,
                across=across,
            )
        )
        keys.append(f"rc_hidden_{int(direction.reverse)}")
    side_by_side_ui(builds, keys)
    total = layer[0].hidden.shape[1]
    st.caption(_(UNITS_NOTE).format(n=min(N_UNITS, total), total=total))


def gate_means_ui(trace: EncoderTrace) -> None:
    """The update and reset gates per word, averaged over the units, for both directions."""
    series = {}
    for direction, name in zip(trace.layers[0], _direction_names(), strict=False):
        series[f"z̄_t · {name}"] = direction.gates["z"].mean(axis=1)
        series[f"r̄_t · {name}"] = direction.gates["r"].mean(axis=1)
    fig = PAGE.across_or_turned(
        lambda across: token_lines(
            trace.tokens,
            series,
            title=_("update gate z_t and reset gate r_t per word (mean over the units)"),
            x_title=_("token"),
            y_title=_("gate value"),
            y_range=(0.0, 1.0),
            dash_every=2,
            across=across,
        )
    )
    plotly_chart(fig, key="rc_gate_means")


def gate_heatmaps_ui(trace: EncoderTrace) -> None:
    """The update and reset gates of one direction (chosen, kept in the URL), unit by unit."""
    chosen = segmented_ui(st, _("Direction of the gate heatmaps"), DIRECTIONS, key="rc_dir")
    directions: list[CellTrace] = trace.layers[0]
    direction = directions[-1] if chosen == "backward" else directions[0]
    units = most_varying_units(direction.hidden, N_UNITS)
    name = _(DIRECTIONS["backward" if direction.reverse else "forward"])
    gates = (
        ("z", _("update gate z_t, {direction}"), "rc_gate_z"),
        ("r", _("reset gate r_t, {direction}"), "rc_gate_r"),
    )
    builds = [
        lambda across, g=gate, t=title: units_heatmap(
            direction.gates[g][:, units],
            trace.tokens,
            units,
            title=t.format(direction=name),
            axis_names=(_("unit"), _("token")),
            value_name=f"{g}_t",
            signed=False,
            across=across,
        )
        for gate, title, _key in gates
    ]
    side_by_side_ui(builds, [key for _gate, _title, key in gates])


def live_gru_ui(text: str) -> None:
    """The shipped Bahdanau translator's BiGRU encoder on ``text``."""
    translator = cached_translator("bahdanau")
    if translator is None:
        return
    trace = trace_of(translator, text)
    if trace is None:
        return
    if trace.truncated:
        st.info(
            _("The sentence is longer than the encoder reads; only its first pieces are shown."),
            icon=":material/content_cut:",
        )
    hidden_states_ui(trace)
    st.subheader(_("The update and reset gates, word by word"))
    gate_means_ui(trace)
    gate_heatmaps_ui(trace)


# ---------------------------------------------------------------- the vanishing gradient


def _profiles(text: str) -> tuple[dict[str, GradientProfile], dict[str, Card | None]]:
    """cell_type -> the gradient profile of each trained encoder that loads (the missing-model box for
    each of the others), and cell_type -> its card."""
    profiles, cards = {}, {}
    for cell_type in ENCODER_CELLS:
        name = f"rnn-encoder-{cell_type}"
        translator = load_model("seq2seq", name)
        if translator is None:
            continue
        with spinner(_("Computing the gradients…")):
            found = guarded_ui(lambda t=translator: _profile(t, weights_id(t), text))
        if found is None:
            return {}, {}
        profiles[cell_type], cards[cell_type] = found, card_of(name)
    return profiles, cards


def vanishing_gradient_ui(text: str) -> None:
    """‖∂h_T/∂x_t‖ for the plain RNN, the LSTM and the GRU, on one chart, and what they are."""
    profiles, cards = _profiles(text)
    if not profiles:
        return
    tokens = next(iter(profiles.values())).tokens
    same = {k: p for k, p in profiles.items() if p.tokens == tokens}
    fig = PAGE.across_or_turned(
        lambda across: token_lines(
            tokens,
            {CELL_NAMES[k]: p.norms for k, p in same.items()},
            title=_("‖∂h_T/∂x_t‖ for each input position t (log scale)"),
            x_title=_("input position t (h_T is read after the last one)"),
            y_title="‖∂h_T/∂x_t‖",
            log=True,
            digits=".2e",
            across=across,
        )
    )
    plotly_chart(fig, key="rc_gradients")
    table_ui([_model_row(k, p, cards.get(k)) for k, p in same.items()])
    commands = [card.commands[-1] for card in cards.values() if card and card.commands]
    if commands:
        st.caption(_(TRAINED_NOTE))
        st.code("\n".join(commands), language="bash", wrap_lines=True)


def _model_row(cell_type: str, profile: GradientProfile, card: Card | None) -> dict[str, object]:
    """One encoder's row: its measured test BLEU and training, and its gradient's decay."""
    bleu = card.metrics.get("bleu_greedy") if card else None
    return {
        _("encoder"): CELL_NAMES[cell_type],
        _("test BLEU (greedy)"): "—" if bleu is None else f"{bleu:.1f}",
        _("epochs"): str(card.epochs_trained) if card else "—",
        _("parameters"): f"{card.parameters:,}" if card and card.parameters else "—",
        _("first piece ÷ last piece"): f"{profile.first_to_last:.1e}",
        _("median gain per step back"): f"{profile.median_step_ratio:.2f}",
    }
