"""The Transformer: shapes, masks, parity with torch's attention, decoding, checkpoint round trip,
and (when shipped) the trained checkpoints' quality on a held-out slice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from models.checkpoints import SHIPPED_ROOT, CheckpointError, read_card, save_translator
from models.tokenizer import BOS_ID, EOS_ID, PAD_ID
from models.transformer.checkpoint import load_transformer
from models.transformer.model import Transformer, TransformerConfig
from models.transformer.translator import (
    TransformerTranslator,
    beam_ids,
    decode_step,
    greedy_ids,
    start_cache,
)
from tests.requirements_env import need, need_data
from tests.tiny_transformer import build_tiny_transformers, tiny_transformer_config

SENTENCE = "a black dog runs on the green grass ."


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_transformers(tmp_path_factory.mktemp("tiny_transformers"))


def _model(positional: str = "sinusoidal", seed: int = 0) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(tiny_transformer_config(positional)).eval()


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    """Two sources (lengths 6 and 4, padded) and two decoder inputs (lengths 5 and 3, padded)."""
    src = torch.tensor([[5, 6, 7, 8, 9, EOS_ID], [10, 11, 12, EOS_ID, PAD_ID, PAD_ID]])
    tgt = torch.tensor([[BOS_ID, 5, 6, 7, 8], [BOS_ID, 9, 10, PAD_ID, PAD_ID]])
    return src, tgt


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_shapes_rows_and_masks(positional: str) -> None:
    model = _model(positional)
    src, tgt = _batch()
    with torch.inference_mode():
        enc = model.encode(src)
        dec = model.decode(tgt, enc)
    assert enc.weights.shape == (2, 2, 4, 6, 6)  # (L, B, H, S, S)
    assert dec.self_weights.shape == (2, 2, 4, 5, 5)
    assert dec.cross_weights.shape == (2, 2, 4, 5, 6)
    assert dec.logits.shape == (2, 5, 300)
    for w in (enc.weights, dec.self_weights, dec.cross_weights):
        torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1]))
    upper = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
    assert bool((dec.self_weights[..., upper] == 0).all())  # causal: exactly 0 above the diagonal
    assert bool((enc.weights[:, 1, :, :, 4:] == 0).all())  # padded source keys get exactly 0
    assert bool((dec.cross_weights[:, 1, :, :, 4:] == 0).all())
    assert bool((dec.self_weights[:, 1, :, :, 3:] == 0).all())  # padded target keys


def test_padding_does_not_change_a_sentence() -> None:
    model = _model()
    src, tgt = _batch()
    with torch.inference_mode():
        batched = model(src, tgt)[1, :3]
        alone = model(src[1:, :4], tgt[1:, :3])[0]
    torch.testing.assert_close(batched, alone, atol=1e-5, rtol=1e-5)


def test_attention_equals_torch_sdpa() -> None:
    """Our multi-head self-attention (weights kept) equals torch's fused SDPA on the same inputs."""
    model = _model()
    mha = model.decoder[0].self_attn
    x = torch.randn(2, 5, 16)
    mask = torch.tensor([[True] * 5, [True, True, True, False, False]])[:, None, None, :]
    with torch.inference_mode():
        ours, weights = mha(x, x, x, mask=mask, causal=True)
        q, k, v = (mha._split(x, i) for i in range(3))
        causal = torch.ones(5, 5, dtype=torch.bool).tril()
        ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=mask & causal)
        theirs = mha.out_proj(ctx.transpose(1, 2).reshape(2, 5, 16))
    torch.testing.assert_close(ours, theirs, atol=1e-5, rtol=1e-5)
    assert weights.shape == (2, 4, 5, 5)


def test_cached_step_equals_full_pass() -> None:
    """Step-by-step decoding with the key/value cache gives the full pass's log-probabilities."""
    model = _model("learned")
    src, tgt = _batch()
    with torch.inference_mode():
        enc = model.encode(src)
        full = torch.log_softmax(model.decode(tgt[:1], enc.select(torch.tensor([0]))).logits, -1)
        cache = start_cache(model, enc.select(torch.tensor([0])))
        steps = torch.stack([decode_step(model, tgt[0, t : t + 1], cache)[0] for t in range(5)])
    torch.testing.assert_close(steps, full[0], atol=1e-5, rtol=1e-5)


def test_greedy_equals_beam_1_and_batching() -> None:
    model = _model()
    src, _ = _batch()
    batched = greedy_ids(model, src, max_len=10)
    for i, length in enumerate((6, 4)):
        alone = greedy_ids(model, src[i : i + 1, :length], max_len=10)[0]
        assert batched[i] == alone
        assert list(beam_ids(model, src[i : i + 1, :length], beam=1, max_len=10)[0].tokens) == alone


def test_beam_search_returns_ranked_hypotheses() -> None:
    model = _model()
    found = beam_ids(model, _batch()[0][:1], beam=4, max_len=8)
    assert 1 <= len(found) <= 4
    scores = [h.score for h in found]
    assert scores == sorted(scores, reverse=True)
    with pytest.raises(ValueError, match="beam must be between"):
        beam_ids(model, _batch()[0][:1], beam=11)


def test_translator_result(tiny_root: Path) -> None:
    tr = TransformerTranslator.load(tiny_root / "transformer-sinusoidal")
    result = tr.translate(SENTENCE)
    S, T = len(result.source_tokens), len(result.target_tokens)
    assert result.source_tokens[-1] == "</s>" and result.decoder_input_tokens[0] == "<s>"
    assert result.decoder_input_tokens[1:] == result.target_tokens[:-1]
    assert result.encoder_self.shape == (2, 4, S, S)
    assert result.decoder_self.shape == (2, 4, T, T)
    assert result.cross.shape == (2, 4, T, S)
    assert np.all(np.triu(result.decoder_self, 1) == 0)
    np.testing.assert_allclose(result.cross.sum(-1), 1.0, atol=1e-5)
    assert result.token_probs.shape == (T,) and np.all(result.token_probs <= 1)
    beam = tr.translate(SENTENCE, beam=3)
    assert beam.hypotheses and beam.hypotheses[0].target_tokens == beam.target_tokens
    forced = tr.force(SENTENCE, "un chien noir court .")
    assert forced.forced and forced.target_tokens[-1] == "</s>"
    with pytest.raises(ValueError, match="empty"):
        tr.translate("   ")


def test_long_input_is_truncated(tiny_root: Path) -> None:
    tr = TransformerTranslator.load(tiny_root / "transformer-learned")
    result = tr.translate("dog " * 300)
    assert result.truncated and result.n_source_pieces > 40
    assert len(result.source_tokens) == 41  # 40 pieces + </s>


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    model = _model("learned", seed=3)
    save_translator(model, tmp_path / "ck")
    src, tgt = _batch()
    tiny = build_tiny_transformers(tmp_path / "tiny", cards=False)
    for side in ("src.model", "tgt.model"):
        shutil.copy(tiny / "transformer-learned" / side, tmp_path / "ck" / side)
    loaded, _, _ = load_transformer(tmp_path / "ck")
    assert json.loads((tmp_path / "ck" / "config.json").read_text())["positional"] == "learned"
    assert loaded.generator.weight is loaded.tgt_embedding.weight  # tying survives
    with torch.inference_mode():
        # fp16 storage: compare against the original rounded to fp16
        model.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})
        torch.testing.assert_close(loaded(src, tgt), model(src, tgt), atol=1e-4, rtol=1e-4)


def test_missing_or_damaged_checkpoint(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="train_transformer --positional learned"):
        load_transformer(tmp_path / "transformer-learned")
    (tmp_path / "transformer-learned").mkdir()
    (tmp_path / "transformer-learned" / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="damaged"):
        load_transformer(tmp_path / "transformer-learned")


def test_config_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="positional"):
        TransformerConfig(positional="rotary")
    with pytest.raises(ValueError, match="divisible"):
        TransformerConfig(d_model=30, n_heads=8)


def test_shipped_size_fits() -> None:
    """The default configuration stays under 12 MB as fp16 weights."""
    model = Transformer(TransformerConfig(positional="learned"))
    assert model.n_parameters() * 2 < 12e6


# ------------------------------------------------------------------ shipped checkpoints


@pytest.mark.checkpoints
@pytest.mark.parametrize("name", ["transformer-sinusoidal", "transformer-learned"])
def test_shipped_checkpoint_quality(name: str) -> None:
    folder = SHIPPED_ROOT / name
    card_file = folder / "card.json"
    need(
        folder.is_dir(),
        f"{folder} is not shipped: python -m training.train_transformer --positional {name.split('-')[1]}",
    )
    need(card_file.is_file(), f"{folder} has no card.json (the card is written when training ends)")
    assert sum(f.stat().st_size for f in folder.iterdir()) < 12e6
    card = read_card(folder)
    rnn = [read_card(p).metrics["bleu_greedy"] for p in SHIPPED_ROOT.glob("seq2seq-*/")]
    assert card.metrics["bleu_greedy"] >= max(rnn, default=0.0)
    tr = TransformerTranslator.load(folder)
    result = tr.translate("a black dog runs on the green grass .")
    assert "chien" in result.text and "noir" in result.text
    from training.data import load_pairs
    from training.evaluate import evaluate_pairs

    pairs = load_pairs(need_data(), "test_2016_flickr")[:100]
    report = evaluate_pairs(tr.model, tr.src_tok, tr.tgt_tok, pairs)
    assert report["bleu"] >= 30.0


def test_evaluate_cli_dispatches_to_the_transformer(
    tiny_root: Path, tmp_path: Path, capsys
) -> None:
    """``python -m training.evaluate --model <transformer folder>`` works like for the RNNs."""
    from training.evaluate import main as evaluate_main

    (tmp_path / "src.en").write_text("a black dog runs .\ntwo men play music .\n")
    (tmp_path / "ref.fr").write_text("un chien noir court .\ndeux hommes jouent .\n")
    folder = str(tiny_root / "transformer-learned")
    evaluate_main(
        [
            "--model",
            folder,
            "--src",
            str(tmp_path / "src.en"),
            "--ref",
            str(tmp_path / "ref.fr"),
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 2 and "bleu_by_length" in report
    evaluate_main(
        [
            "--model",
            folder,
            "--src",
            str(tmp_path / "src.en"),
            "--ref",
            str(tmp_path / "ref.fr"),
            "--beam",
            "3",
            "--json",
        ]
    )
    assert json.loads(capsys.readouterr().out)["beam"] == 3


@pytest.mark.data
def test_one_training_step_writes_a_resumable_checkpoint(tiny_root: Path, tmp_path: Path) -> None:
    """``training.train_transformer`` end to end on 64 real pairs: one step, export, resume."""
    from training import train_transformer

    data = need_data()
    out, run = tmp_path / "transformer-learned", tmp_path / "run"
    args = [
        "--positional",
        "learned",
        "--data",
        str(data),
        "--out",
        str(out),
        "--run-dir",
        str(run),
        "--tokenizers",
        str(tiny_root / "transformer-learned"),
        "--train-limit",
        "64",
        "--val-limit",
        "4",
        "--max-steps",
        "1",
        "--epochs",
        "1",
        "--d-model",
        "16",
        "--n-heads",
        "4",
        "--d-ff",
        "32",
        "--enc-layers",
        "1",
        "--dec-layers",
        "1",
        "--skip-test",
        "--device",
        "cpu",
    ]
    train_transformer.main(args)
    card = read_card(out)
    assert card.epochs_trained == 1 and card.history[0]["train_loss"] > 0
    assert (run / "state.pt").is_file() and (out / "model.safetensors").is_file()
    train_transformer.main([*args, "--resume", "--epochs", "2"])
    assert read_card(out).epochs_trained == 2
    assert TransformerTranslator.load(out).translate(SENTENCE).cross.shape[0] == 1
