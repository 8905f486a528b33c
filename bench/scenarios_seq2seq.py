"""Timings of the RNN translators themselves, against their speed floor, on this machine's CPU.

translate() of a 20-word sentence greedy and beam 5 (median of 50), the whole test set greedy
(batched), and loading one checkpoint.
"""

from __future__ import annotations

import statistics
import time

import torch

from bench.register import Row, timing

SENTENCE = (
    "A young man in a blue shirt and black pants is playing the guitar on a small stage "
    "while people watch ."
)  # 20 words and a full stop


def _median_ms(fn, n: int = 50) -> float:
    fn()  # warm-up
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


@timing
def seq2seq_speed() -> list[Row]:
    """Median translate() latency, test-set evaluation time and load time for seq2seq-bahdanau."""
    from models.checkpoints import SHIPPED_ROOT
    from models.rnn.translator import Translator

    folder = SHIPPED_ROOT / "seq2seq-bahdanau"
    if not (folder / "model.safetensors").is_file():
        return [Row("seq2seq speed", "skipped", f"{folder} missing")]
    torch.set_num_threads(1)
    start = time.perf_counter()
    tr = Translator.load(folder)
    load_s = time.perf_counter() - start
    rows = [Row("load seq2seq-bahdanau", f"{load_s:.2f} s", "floor 0.5 s")]
    with torch.inference_mode():
        rows.append(
            Row(
                "translate 20 words, greedy (median of 50)",
                f"{_median_ms(lambda: tr.translate(SENTENCE)):.1f} ms",
                "floor 20 ms",
            )
        )
        rows.append(
            Row(
                "translate 20 words, beam 5 (median of 50)",
                f"{_median_ms(lambda: tr.translate(SENTENCE, beam=5)):.1f} ms",
                "floor 100 ms",
            )
        )
    rows.append(_test_set_row(tr))
    return rows


def _test_set_row(tr) -> Row:
    from training.data import DEFAULT_DATA, load_pairs
    from training.evaluate import translate_corpus

    if not (DEFAULT_DATA / "test_2016_flickr.en.gz").is_file():
        return Row("test set greedy (1,000 sentences)", "skipped", f"no data at {DEFAULT_DATA}")
    sources = [s for s, _ in load_pairs(DEFAULT_DATA, "test_2016_flickr")]
    start = time.perf_counter()
    translate_corpus(tr.model, tr.src_tok, tr.tgt_tok, sources)
    return Row(
        "test set greedy (1,000 sentences, batched)",
        f"{time.perf_counter() - start:.1f} s",
        "floor 30 s",
    )
