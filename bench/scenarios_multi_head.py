"""Scenarios for the Multi-head attention page (pretrained all-MiniLM-L6-v2, warm):

- one head at 512 x 512: Enter in the sentence box -> the large head's heatmap redrawn (the time
  includes the encoder's run; the timing rows below give the model alone, so the drawing is the
  difference; the issue's budget: <= 2 s after the model ran);
- the overview of all 6 x 12 heads at 128 tokens: Enter -> the overview redrawn (<= 3 s).

Each try changes the number of pieces (the words are single word pieces), and the chart titles
carry that number, so the predicate knows when try i is on screen.
"""

from __future__ import annotations

import statistics
import time

from bench.registry import Row, Scenario, register, timing

WORDS = "the dog runs in the park with a red ball".split()  # one word piece each


def text_with_pieces(n_pieces: int) -> str:
    """A text of ``n_pieces - 2`` words (plus [CLS] and [SEP] = n_pieces word pieces)."""
    n = n_pieces - 2
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def _pieces(base: int, i: int) -> int:
    return base - (i % 4)


def _enter(base: int):  # noqa: ANN202
    def interact(page, i: int) -> None:  # noqa: ANN001 - a playwright Page
        box = page.get_by_role("textbox", name="Sentence")
        box.fill(text_with_pieces(_pieces(base, i)))
        box.press("Enter")

    return interact


def _title_shows(text_of: callable):  # noqa: ANN202
    def redrawn(i: int) -> str:
        want = text_of(i)
        return (
            "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')].some(c => "
            "{ const t = c.querySelector('.gtitle');"
            f" return t && t.textContent.endsWith({want!r}) && c.querySelector('.heatmaplayer'); }})"
        )

    return redrawn


register(
    Scenario(
        name="multi-head: Enter -> one head 512 x 512 drawn (incl. the encoder)",
        url_path="multi_head?mh_model=pretrained",
        interact=_enter(512),
        redrawn=_title_shows(lambda i: f"· {_pieces(512, i)} x {_pieces(512, i)}"),
    )
)

register(
    Scenario(
        name="multi-head: Enter -> 6 x 12 overview at 128 tokens drawn (incl. the encoder)",
        url_path="multi_head?mh_model=pretrained",
        interact=_enter(128),
        redrawn=_title_shows(lambda i: f"· {_pieces(128, i)} tokens"),
    )
)


@timing
def multi_head_model_times() -> list[Row]:
    """The encoder alone at 512 and 128 pieces, and the figure builders, median of 5."""
    from models.transformer.pretrained import PretrainedEncoder  # noqa: PLC0415
    from viz.multi_head import head_grid, head_heatmap  # noqa: PLC0415

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
