"""Does attention explain? The math of models/analysis/explain.py on tiny random-weight translators
(leave-one-out, gradient x input, Spearman's rho, counterfactual attention), its figures, and the
Alignment page's section under AppTest."""

from __future__ import annotations

import copy
import html
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from models.analysis.explain import explain, ranks, spearman
from models.checkpoints import CHECKPOINTS_ENV
from models.rnn.translator import Translator
from models.subword_merge import group_pieces
from models.tokenizer import BOS_ID
from tests.app_helpers import figures, open_app
from tests.tiny_explain import several_word_checkpoints
from tests.tiny_seq2seq import build_tiny_checkpoints
from viz.explain import counterfactual_figure, measures_figure, normalised, rho_text

ATTENTIVE = ("bahdanau", "luong-dot", "luong-general", "luong-concat", "local-m", "local-p")
SENTENCE = "a black dog runs on the green grass ."
FRENCH = "un chien noir court sur l' herbe verte ."
ALIGNMENT = "app_pages/alignment/alignment.py"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoints(tmp_path_factory.mktemp("tiny_explain"))


@pytest.fixture(scope="module")
def translators(root: Path) -> dict[str, Translator]:
    return {k: Translator.load(root / f"seq2seq-{k}") for k in (*ATTENTIVE, "none")}


def _target(tr: Translator) -> list[str]:
    return tr.force(SENTENCE, FRENCH).target_tokens


def _ids(tr: Translator, target: list[str]) -> list[int]:
    return [tr.tgt_tok.sp.piece_to_id(p) for p in target]


def _state_before(model, src_ids: list[int], target: list[int], step: int, embedded=None):
    """One sentence, one pass: (memory, decoder state before step t, output of step t)."""
    src = torch.tensor([src_ids])
    lengths = torch.tensor([len(src_ids)])
    emb = model.encoder.embedding(src) if embedded is None else embedded
    memory, state = model.encode_embedded(emb, lengths)
    for y in [BOS_ID, *target[:step]]:
        before = state
        out, state = model.decode_step(torch.tensor([y]), state, memory)
    return memory, before, out


def _log_prob(model, src_ids: list[int], target: list[int], step: int) -> float:
    with torch.no_grad():
        out = _state_before(model, src_ids, target, step)[2]
    return float(torch.log_softmax(out.logits.float(), -1)[0, target[step]])


# ---------------------------------------------------------------- Spearman


def test_ranks_average_ties():
    assert ranks(np.array([10, 20, 20, 5])).tolist() == [2, 3.5, 3.5, 1]
    assert ranks(np.array([3.0, 3.0, 3.0])).tolist() == [2, 2, 2]


def test_spearman_on_known_vectors():
    iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
    tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]
    assert spearman(iq, tv) == pytest.approx(-29 / 165)  # = 1 - 6 * 194 / (10 * 99)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(4.5 / math.sqrt(22.5))
    assert spearman([1, 2, 3], [10, 200, 3000]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3])) and math.isnan(spearman([1], [2]))
    with pytest.raises(ValueError, match="3 and 2"):
        spearman([1, 2, 3], [1, 2])


# ---------------------------------------------------------------- the measures


@pytest.mark.parametrize("kind", ATTENTIVE)
def test_leave_one_out_equals_separate_single_passes(translators, kind):
    tr = translators[kind]
    target = _target(tr)
    step = 2
    ex = explain(tr, SENTENCE, target, step)
    ids = tr.src_tok.encode(SENTENCE) + [3]
    full = _log_prob(tr.model, ids, _ids(tr, target), step)
    assert ex.log_prob == pytest.approx(full, abs=1e-5)
    assert len(ex.leave_one_out) == len(ex.source_words) == len(ex.word_pieces)
    for w, pieces in enumerate(ex.word_pieces):
        without = [i for j, i in enumerate(ids) if j not in pieces]
        alone = _log_prob(tr.model, without, _ids(tr, target), step)
        assert ex.leave_one_out[w] == pytest.approx(full - alone, abs=1e-5), ex.source_words[w]


@pytest.mark.parametrize("kind", ["bahdanau", "luong-concat", "local-p"])
def test_gradient_times_input_matches_autograd(translators, kind):
    tr = translators[kind]
    target = _target(tr)
    step = 3
    ex = explain(tr, SENTENCE, target, step)
    ids = tr.src_tok.encode(SENTENCE) + [3]
    emb = tr.model.encoder.embedding(torch.tensor([ids])).detach().requires_grad_(True)
    out = _state_before(tr.model, ids, _ids(tr, target), step, embedded=emb)[2]
    log_p = torch.log_softmax(out.logits, -1)[0, _ids(tr, target)[step]]
    (grad,) = torch.autograd.grad(log_p, emb)
    expected = (grad * emb).sum(-1)[0].detach().numpy()  # (S,)
    assert np.allclose(ex.grad_input, expected, atol=1e-6)
    for w, pieces in enumerate(ex.word_pieces):
        assert ex.word_grad_input[w] == pytest.approx(expected[pieces].sum(), abs=1e-6)


def test_gradient_times_input_is_the_derivative_of_scaling_the_embeddings(translators):
    """sum_j g_j . e_j = d/de log p((1 + e) x) at e = 0: a central difference in float64."""
    tr = translators["luong-general"]
    model = copy.deepcopy(tr.model).double()
    double = Translator(model, tr.src_tok, tr.tgt_tok)
    target = _target(tr)
    ex = explain(double, SENTENCE, target, 1)
    ids = tr.src_tok.encode(SENTENCE) + [3]
    emb = model.encoder.embedding(torch.tensor([ids])).detach()

    def log_p(scale: float) -> float:
        with torch.no_grad():
            out = _state_before(model, ids, _ids(tr, target), 1, embedded=emb * scale)[2]
        return float(torch.log_softmax(out.logits, -1)[0, _ids(tr, target)[1]])

    eps = 1e-5
    derivative = (log_p(1 + eps) - log_p(1 - eps)) / (2 * eps)
    assert ex.grad_input.sum() == pytest.approx(derivative, abs=1e-7)


def test_shapes_and_sums(translators):
    tr = translators["bahdanau"]
    target = _target(tr)
    ex = explain(tr, SENTENCE, target, 0)
    S, W = len(ex.source_pieces), len(ex.source_words)
    assert ex.attention.shape == ex.grad_input.shape == ex.support.shape == (S,)
    assert ex.word_attention.shape == ex.leave_one_out.shape == ex.word_grad_input.shape == (W,)
    assert ex.attention.sum() == pytest.approx(1, abs=1e-5)
    assert ex.word_attention.sum() == pytest.approx(1, abs=1e-5)
    assert ex.source_words[:3] == ["a", "black", "dog"] and ex.source_pieces[-1] == "</s>"
    assert ex.token == target[0] and ex.target_tokens == target
    forced = tr.force(SENTENCE, FRENCH)
    assert np.allclose(ex.attention, forced.weights[0], atol=1e-5)
    assert ex.candidate_probs.shape == (3, len(ex.candidates))


# ---------------------------------------------------------------- counterfactual attention


def _manual_step(model, memory, before, y_prev: int, weights: torch.Tensor) -> torch.Tensor:
    """The decoder's step written out from its modules, with the context sum_j a_j h_j for the
    given weights (S,): logits (V,)."""
    emb = model.tgt_embedding(torch.tensor([y_prev]))  # (1, E)
    context = weights @ memory.values[0]  # (H,)
    context = context[None]  # (1, H)
    if model.is_luong:
        h_t, __ = model.decoder_rnn(torch.cat([emb, before.feed], -1)[:, None], before.rnn)
        h_tilde = torch.tanh(model.readout(torch.cat([context, h_t[:, 0]], -1)))
        return model.generator(h_tilde)[0]
    s_i, __ = model.decoder_rnn(torch.cat([emb, context], -1)[:, None], before.rnn)
    readout = torch.tanh(model.readout(torch.cat([s_i[:, 0], context, emb], -1)))
    return model.generator(readout)[0]


@pytest.mark.parametrize("kind", ["bahdanau", "luong-dot", "luong-concat"])
def test_uniform_override_is_one_over_t_and_gives_the_models_output(translators, kind):
    tr = translators[kind]
    target = _target(tr)
    step, ids = 2, tr.src_tok.encode(SENTENCE) + [3]
    ex = explain(tr, SENTENCE, target, step)
    learned, uniform, permuted = ex.counterfactuals
    S = len(ex.source_pieces)
    assert np.allclose(uniform.weights, 1 / S) and ex.support.all()
    with torch.no_grad():
        memory, before, __ = _state_before(tr.model, ids, _ids(tr, target), step)
        logits = _manual_step(
            tr.model, memory, before, _ids(tr, target)[step - 1], 1 / S * torch.ones(S)
        )
    probs = torch.softmax(logits, -1)
    assert uniform.log_prob == pytest.approx(float(probs[_ids(tr, target)[step]].log()), abs=1e-5)
    top = probs.topk(5)
    assert [p for p, __ in uniform.top_k] == tr.tgt_tok.pieces(top.indices.tolist())
    assert np.allclose([q for __, q in uniform.top_k], top.values.numpy(), atol=1e-6)
    assert learned.log_prob == pytest.approx(ex.log_prob, abs=1e-5)
    assert learned.tvd == 0 and not learned.argmax_changed
    assert sorted(permuted.weights) == pytest.approx(sorted(learned.weights))
    assert 0 <= ex.permuted_changed <= 1 and 0 <= ex.permuted_median_tvd <= 1


@pytest.mark.parametrize("kind", ATTENTIVE)
def test_override_with_the_models_own_weights_changes_nothing(translators, kind):
    model = translators[kind].model
    ids = translators[kind].src_tok.encode(SENTENCE) + [3]
    with torch.no_grad():
        memory, before, out = _state_before(model, ids, [5, 6, 7], 2)
        again, __ = model.decode_step(torch.tensor([6]), before, memory, None, out.weights)
    assert torch.allclose(again.logits, out.logits, atol=1e-5)


def test_permutations_are_seeded(translators):
    tr = translators["luong-dot"]
    target = _target(tr)
    a, b = explain(tr, SENTENCE, target, 1, seed=3), explain(tr, SENTENCE, target, 1, seed=3)
    c = explain(tr, SENTENCE, target, 1, seed=4)
    assert np.array_equal(a.counterfactuals[2].weights, b.counterfactuals[2].weights)
    assert not np.array_equal(a.counterfactuals[2].weights, c.counterfactuals[2].weights)


@pytest.mark.parametrize("kind", ["local-m", "local-p"])
def test_local_counterfactuals_stay_inside_the_window(translators, kind):
    tr = translators[kind]
    target = _target(tr)
    step = 4
    ex = explain(tr, SENTENCE, target, step)
    forced = tr.force(SENTENCE, FRENCH)
    positions = np.arange(len(ex.source_pieces))
    window = np.abs(positions - forced.p_t[step]) <= forced.D
    assert np.array_equal(ex.support, window)
    __, uniform, permuted = ex.counterfactuals
    assert (
        np.allclose(uniform.weights[window], 1 / window.sum())
        and (uniform.weights[~window] == 0).all()
    )
    assert (permuted.weights[~window] == 0).all()


def test_refusals_are_value_errors(translators):
    target = _target(translators["bahdanau"])
    with pytest.raises(ValueError, match="without attention"):
        explain(translators["none"], SENTENCE, target, 0)
    with pytest.raises(ValueError, match="outside the translation"):
        explain(translators["bahdanau"], SENTENCE, target, len(target))
    with pytest.raises(ValueError, match="empty"):
        explain(translators["bahdanau"], " \u200b ", target, 0)


def test_works_after_translating_and_inside_inference_mode(translators):
    """translate() caches an inference-mode copy of the output weights: the gradient must not
    meet it; and a caller already in inference mode still gets the gradient."""
    tr = translators["bahdanau"]
    target = tr.translate(SENTENCE).target_tokens
    outside = explain(tr, SENTENCE, target, 0)
    with torch.inference_mode():
        inside = explain(tr, SENTENCE, target, 0)
    assert (
        np.allclose(outside.grad_input, inside.grad_input) and np.abs(inside.grad_input).sum() > 0
    )
    assert all(p.grad is None for p in tr.model.parameters())  # the shared model is untouched


# ---------------------------------------------------------------- figures


def test_measures_figure_labels_every_word_and_normalises_each_row():
    words = ["a", "<b>dog</b>", "</s>"]
    fig = measures_figure(
        words, [0.2, 0.5, 0.3], [0.1, -0.4, 0.0], [0, 0, 0], rho_loo=0.5, rho_grad=float("nan")
    )
    assert list(fig.layout.xaxis.ticktext) == [html.escape(w, quote=False) for w in words]
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2]
    assert np.allclose(fig.data[0].y, [0.4, 1, 0.6]) and np.allclose(fig.data[1].y, [0.25, -1, 0])
    assert np.allclose(fig.data[2].y, 0)
    labels = [a.text for a in fig.layout.annotations]
    assert "+0.50" in labels[1] and "—" in labels[2]
    with pytest.raises(ValueError, match="3 labels for 2"):
        measures_figure(words, [0.5, 0.5], [0, 0], [0, 0], rho_loo=0, rho_grad=0)


def test_counterfactual_figure_bolds_the_forced_piece():
    fig = counterfactual_figure(
        ["▁chien", "▁chat"], {"model's own": [0.9, 0.1], "uniform": [0.4, 0.5]}, token="▁chien"
    )
    assert list(fig.layout.yaxis.ticktext) == ["<b>▁chien</b>", "▁chat"]
    assert [t.name for t in fig.data] == ["model's own", "uniform"]
    assert rho_text(float("nan")) == "—" and rho_text(0.123) == "+0.12"
    assert np.allclose(normalised([0, 0]), 0)


# ---------------------------------------------------------------- the Alignment page


@pytest.fixture(scope="module")
def page_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return several_word_checkpoints(tmp_path_factory.mktemp("tiny_explain_page"))


@pytest.fixture
def tiny(page_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CHECKPOINTS_ENV, str(page_root))
    return page_root


def _figure(at, title_part: str) -> dict:
    for fig in figures(at):
        if title_part in fig["layout"].get("title", {}).get("text", ""):
            return fig
    raise AssertionError(f"no chart titled {title_part!r}")


def test_alignment_page_shows_the_section_and_its_numbers(tiny: Path):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "expl_word": "3"}, timeout=120)
    assert "Does attention explain?" in [s.value for s in at.subheader]
    tr = Translator.load(tiny / "seq2seq-bahdanau")
    translation = tr.translate(SENTENCE)
    assert at.selectbox(key="expl_word").value == 3
    step = group_pieces(translation.target_tokens)[2][0]
    ex = explain(tr, SENTENCE, translation.target_tokens, step)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ρ attention vs leave-one-out"] == rho_text(ex.rho_loo)
    assert metrics["ρ attention vs gradient × input"] == rho_text(ex.rho_grad)
    assert metrics["ρ leave-one-out vs gradient × input"] == rho_text(ex.rho_loo_grad)
    fig = _figure(at, "Which words mattered")
    assert fig["layout"]["xaxis"]["ticktext"] == [
        html.escape(w, quote=False) for w in ex.source_words
    ]
    assert _figure(at, f"Step {step}: the next piece")
    table = at.table[-1].value
    assert len(table) == 3 and "Jain & Wallace" in "".join(m.value for m in at.markdown)


def test_the_measures_run_when_turned_on_and_stay_in_the_url(tiny: Path):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE}, timeout=120)
    assert "Does attention explain?" in [s.value for s in at.subheader]
    assert at.toggle(key="expl").value is False and not at.metric
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert not any("Which words mattered" in t for t in titles)
    at.toggle(key="expl").set_value(True).run()
    assert not at.exception  # the URL's ?expl=true: tests/test_browser_explain.py
    assert _figure(at, "Which words mattered") and len(at.metric) == 3
    at.toggle(key="expl").set_value(False).run()
    assert not at.metric


def test_choosing_another_word_updates_the_panel_and_the_url(tiny: Path):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "expl": "true"}, timeout=120)
    assert at.selectbox(key="expl_word").value == 1 and "expl_word" not in at.query_params
    assert _figure(at, "Step 0: the next piece")
    at.selectbox(key="expl_word").set_value(2).run()
    assert not at.exception
    assert at.query_params["expl_word"] in ("2", ["2"])
    assert _figure(at, "Step 1: the next piece") and _figure(at, "Which words mattered")


@pytest.mark.parametrize("value", ["999", "abc", "-1", "1e309"])
def test_a_bad_word_number_in_the_link_is_clamped_or_ignored(tiny: Path, value: str):
    at = open_app(ALIGNMENT, {"aln_text": SENTENCE, "expl_word": value}, timeout=120)
    box = at.selectbox(key="expl_word")
    assert box.value == (len(box.options) if value == "999" else 1)
    assert _figure(at, "Which words mattered")


def test_the_section_in_chinese(tiny: Path):
    at = open_app(
        ALIGNMENT, {"aln_text": SENTENCE, "expl": "true"}, first={"lang": "zh"}, timeout=120
    )
    assert "注意力能解释模型吗？" in [s.value for s in at.subheader]
    assert _figure(at, "哪些词")
