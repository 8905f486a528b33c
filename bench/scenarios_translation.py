"""Scenarios for the translation pages: Enter in the sentence box -> heatmap redrawn (warm, greedy).

The sentence has 15 words and changes with the try number; the heatmap's source tick labels, joined
without the word-start mark, then contain ``with<i>dogs`` whatever the subword segmentation.
"""

from __future__ import annotations

from bench.register import ALL_UPDATED, Scenario, register

WORDS = "A man in a blue shirt is playing with {i} dogs on the green grass."  # 15 words


def _sentence(i: int) -> str:
    return WORDS.format(i=i)


def _enter_sentence(page, i: int) -> None:  # a playwright Page
    """Type try i's sentence in the English sentence box and press Enter."""
    box = page.get_by_role("textbox", name="English sentence")
    box.fill(_sentence(i))
    box.press("Enter")


def _heatmap_shows(i: int) -> str:
    """JS predicate: the first chart's x tick labels spell try i's sentence."""
    return (
        "() => { const c = document.querySelector('[data-testid=\"stPlotlyChart\"]');"
        " if (!c) return false;"
        " const t = [...c.querySelectorAll('.xtick text')].map(e => e.textContent).join('');"
        f" return t.replaceAll('\u2581', '').includes('with{i}dogs'); }}"
    )


register(
    Scenario(
        name="alignment (Enter -> heatmap, 15 words, greedy)",
        url_path="alignment?aln_beam=1",
        interact=_enter_sentence,
        redrawn=_heatmap_shows,
    )
)

LOCAL = register(
    Scenario(
        name="local attention (Enter -> local heatmap, 15 words)",
        url_path="local_attention",
        interact=_enter_sentence,
        redrawn=_heatmap_shows,
    )
)


def _move_step(page, i: int) -> None:  # a playwright Page
    """Move the Alignment page's step slider to try i's step (0 and 1 in turn, from 0)."""
    slider = page.get_by_test_id("stSlider").filter(has_text="Target step").get_by_role("slider")
    slider.focus()
    slider.press("ArrowRight" if (i + 1) % 2 else "ArrowLeft")


def _step_shows(i: int) -> str:
    """JS predicate: the step inspector's chart shows try i's step, every chart updated."""
    return (
        "() => [...document.querySelectorAll('.st-key-aln_step_fig .gtitle')]"
        f".some(t => t.textContent.startsWith('Step {(i + 1) % 2}:')) && {ALL_UPDATED}"
    )


register(
    Scenario(
        name="alignment (step slider -> step inspector redrawn, 15 words)",
        url_path=f"alignment?aln_beam=1&aln_step=0&aln_text={_sentence(0).replace(' ', '+')}",
        interact=_move_step,
        redrawn=_step_shows,
    )
)
