"""Scenarios for the Multi-head attention page (pretrained all-MiniLM-L6-v2, warm):

- one head at 512 x 512: Enter in the sentence box -> the large head's heatmap redrawn (the time
  includes the encoder's run; the timing rows below give the model alone, so the drawing is the
  difference; the budget: <= 2 s after the model ran);
- the overview of all 6 x 12 heads at 128 tokens: Enter -> the overview redrawn (<= 3 s).

Each try changes the number of pieces (the words are single word pieces), and the chart titles
carry that number, so the predicate knows when try i is on screen.
"""

from __future__ import annotations

import statistics
import time

from bench.register import Row, Scenario, register, timing

WORDS = "the dog runs in the park with a red ball".split()  # one word piece each


def text_with_pieces(n_pieces: int) -> str:
    """A text of ``n_pieces - 2`` words (plus [CLS] and [SEP] = n_pieces word pieces)."""
    n = n_pieces - 2
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def _pieces(base: int, i: int) -> int:
    return base - (i % 4)


def _enter(base: int):
    def interact(page, i: int) -> None:  # a playwright Page
        box = page.get_by_role("textbox", name="Sentence")
        box.fill(text_with_pieces(_pieces(base, i)))
        box.press("Enter")

    return interact


def _title_shows(base: int, title_end: str):
    """JS predicate of try i: a chart whose title ends with ``title_end`` (``{n}``: try i's number
    of pieces) has drawn its heatmap."""

    def redrawn(i: int) -> str:
        want = title_end.format(n=_pieces(base, i))
        return (
            "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')].some(c => "
            "{ const t = c.querySelector('.gtitle, .annotation-text');"
            f" return t && t.textContent.endsWith({want!r}) && c.querySelector('.heatmaplayer'); }})"
        )

    return redrawn


for _name, _base, _title_end in (
    (
        "multi-head: Enter -> one head 512 x 512 drawn (incl. the encoder)",
        512,
        "· {n} queries x {n} keys",
    ),
    (
        "multi-head: Enter -> 6 x 12 overview at 128 tokens drawn (incl. the encoder)",
        128,
        "· {n} tokens",
    ),
):
    register(
        Scenario(
            name=_name,
            url_path="multi_head?mh_model=pretrained",
            interact=_enter(_base),
            redrawn=_title_shows(_base, _title_end),
        )
    )


@timing
def multi_head_model_times() -> list[Row]:
    """The encoder alone at 512 and 128 pieces, and the figure builders, median of 5."""
    from models.transformer.pretrained import PretrainedEncoder
    from viz.multi_head import head_grid, head_heatmap

    encoder = PretrainedEncoder.load()
    rows = []
    for n in (512, 128):
        text = text_with_pieces(n)
        encoder.attend(text)
        times, result = [], None
        for _ in range(5):
            start = time.perf_counter()
            result = encoder.attend(text)
            times.append(time.perf_counter() - start)
        rows.append(
            Row(
                f"multi-head: MiniLM forward at {n} pieces",
                f"{statistics.median(times) * 1000:.0f} ms",
            )
        )
        start = time.perf_counter()
        fig = (
            head_heatmap(result.attentions[0, 0], result.tokens, result.tokens)
            if n == 512
            else head_grid(result.attentions)
        )
        fig.to_json()
        what = "one head figure + JSON" if n == 512 else "6 x 12 overview figure + JSON"
        rows.append(
            Row(f"multi-head: {what} at {n}", f"{(time.perf_counter() - start) * 1000:.0f} ms")
        )
    return rows
