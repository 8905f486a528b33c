"""The Alignment page in real Chromium: the formulas drawn by KaTeX, the four
scores on a typed sentence, every chart legible (``tests.legibility.check_page``) at a projector's
1280x720 in classroom mode and on a phone, the Mode control whole, the beam hypotheses whole, and
the warning next to the translation of Chinese text.

The server reads the shipped checkpoints where the four global models exist, else tiny
random-weight ones (what is checked here does not depend on training).
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.load.protocol import element_type_of
from models.rnn.translator import Translator
from tests.browser_helpers import (
    CHART,
    checkpoints_fixture,
    is_shipped,
    served_fixtures,
    wait_settled,
)
from tests.legibility import check_page, main_chart_visible
from tests.tiny_seq2seq import build_tiny_checkpoints

pytestmark = pytest.mark.browser
GLOBAL = ("bahdanau", "luong-dot", "luong-general", "luong-concat")
TYPED = "Two children are playing with a red ball in the park."
LONG = (  # 46 words
    "A man in light colored clothing photographs a group of men wearing dark suits and hats "
    "standing around a woman dressed in a strapless gown while two children play with a red "
    "ball near the old stone fountain in the park on a sunny day in early spring ."
)
PROJECTOR, PHONE = {"width": 1280, "height": 720}, {"width": 390, "height": 844}

checkpoints = checkpoints_fixture(
    lambda: all(is_shipped(f"seq2seq-{k}") for k in GLOBAL),
    lambda folder: build_tiny_checkpoints(folder, attentions=GLOBAL),
    "tiny_alignment_browser",
)
url, tab = served_fixtures("streamlit_alignment", 180_000)


def _open(page, url: str, params: dict[str, str], n_charts: int) -> None:
    page.goto(f"{url}/alignment?{urllib.parse.urlencode(params)}")
    wait_settled(page, n_charts)


def _type(page, sentence: str, source_tokens: list[str]) -> None:
    """Type ``sentence``, press Enter, wait until the first chart shows its source tokens."""
    box = page.get_by_role("textbox", name="English sentence")
    box.fill(sentence)
    box.press("Enter")
    want = json.dumps(source_tokens)
    page.wait_for_function(
        f"() => {{ const c = document.querySelectorAll('{CHART}')[0]; if (!c) return false; "
        "return JSON.stringify([...c.querySelectorAll('.xtick text')].map(t => t.textContent)) "
        f"=== JSON.stringify({want}); }}"
    )
    wait_settled(page, 1)


def _pick(page, key: str, option: str) -> None:
    """Choose ``option`` in the selectbox ``key`` (the first click after typing in the sentence
    box only takes the focus from it, so open the list until it shows)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # with the browser fixture

    for __ in range(5):
        page.locator(f'.st-key-{key} button[aria-label="Open"]').click()
        try:
            page.get_by_role("option").first.wait_for(timeout=500)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    page.get_by_role("option", name=option, exact=True).click()


def _legible(page, classroom: bool) -> None:
    problems = check_page(page, classroom=classroom)
    assert not problems, "\n".join(problems)


def test_formulas_are_drawn(tab, url):
    _open(tab, url, {"aln_model": "luong-concat"}, 4)
    tex = tab.locator(".katex annotation").all_text_contents()  # KaTeX keeps the TeX source
    assert any(r"v_a^{\top} \tanh\left(W_a [h_t; \bar h_s]\right)" in t for t in tex), tex
    assert any(r"\operatorname{softmax}_s" in t for t in tex)
    assert any(r"\bar h_s" in t and "c_t" in t for t in tex)
    assert any(r"\lVert c_{" in t for t in tex)  # the step inspector's context, in numbers
    assert tab.locator(".katex-display").count() >= 5


def test_four_scores_on_a_typed_sentence(tab, url, checkpoints):
    tab.set_viewport_size(PROJECTOR)
    _open(tab, url, {"aln_mode": "four", "classroom": "true"}, 6)
    first = Translator.load(checkpoints / "seq2seq-bahdanau")
    _type(tab, TYPED, first.translate(TYPED).source_tokens)
    wait_settled(tab, 6)
    charts = tab.locator(CHART)
    titles = [charts.nth(i).locator(".gtitle").text_content() for i in range(charts.count())]
    assert titles[:4] == [
        "Bahdanau (additive)",
        "Luong global · dot",
        "Luong global · general",
        "Luong global · concat",
    ]
    rows = [charts.nth(i).locator(".ytick text").all_text_contents() for i in range(4)]
    assert rows[0] and all(r == rows[0] for r in rows)  # one shared translation
    assert "luong-dot minus bahdanau" in titles
    assert tab.locator(".katex").count() >= 4  # each map's score formula
    _pick(tab, "aln_pair", "luong-concat − luong-general")
    tab.wait_for_function(
        "[...document.querySelectorAll('.gtitle')]"
        ".some(t => t.textContent === 'luong-concat minus luong-general')"
    )
    assert "aln_pair=luong-concat" in urllib.parse.unquote_plus(tab.url)
    wait_settled(tab, 6)
    _legible(tab, classroom=True)


@pytest.mark.parametrize("mode", ["translate", "reference", "compare", "four"])
def test_every_chart_legible_at_46_words(tab, url, mode):
    """At 46 words the heatmap stayed ~250 px wide and its labels fused; the reference
    bars had no readable labels; compare's entropy labels shrank to dots and the difference's
    row labels overlapped."""
    params = {"aln_text": LONG, "aln_mode": mode, "aln_ref": "Un homme photographie un groupe ."}
    for viewport, classroom in ((PROJECTOR, True), (PHONE, False)):
        tab.set_viewport_size(viewport)
        _open(tab, url, params | ({"classroom": "true"} if classroom else {}), 3)
        _legible(tab, classroom)


# Where each row label and the visible part of its chart lie, after the chart is scrolled.
ROW_LABELS = """h => { const box = h.getBoundingClientRect();
  const labels = [...h.querySelectorAll('.yaxislayer-above .ytick text')].map(t => {
    const r = t.getBoundingClientRect(); return [r.left, r.right]; });
  return {left: box.left, right: box.right, labels, scrolled: h.scrollLeft,
    wide: h.scrollWidth > h.clientWidth + 1}; }"""


ROW_LABEL_LAYERS = """h => { const layers = [...h.querySelectorAll('.yaxislayer-above')];
  return h.scrollLeft > 0 && layers.length > 1
    && layers.every(t => t.style.transform.includes(String(h.scrollLeft))); }"""


def test_a_map_wider_than_the_projector_is_wrapped(tab, url):
    """The 46-word map (61 source pieces) was wider than the projector's column and
    scrolled sideways; now its columns are wrapped in blocks one under the other (viz.wrap):
    nothing scrolls, and every block has its row labels in view."""
    tab.set_viewport_size(PROJECTOR)
    _open(tab, url, {"aln_text": LONG, "classroom": "true"}, 3)
    host = tab.locator(CHART).first
    shown = host.evaluate(ROW_LABELS)
    assert not shown["wide"], "the 46-word map scrolls sideways at 1280x720"
    assert host.locator(".cartesianlayer > .subplot").count() >= 2  # two blocks or more
    assert shown["labels"] and all(
        shown["left"] - 1 <= left and right <= shown["right"] + 1 for left, right in shown["labels"]
    )


def test_a_map_that_scrolls_on_a_phone_keeps_its_row_labels_in_view(tab, url):
    """On a phone a map of more tokens than fit scrolls sideways inside its chart (the
    wrapped blocks are still wider than 390 px); the row labels of every block (the French
    tokens) stay at its left edge, in view, wherever it is scrolled to."""
    tab.set_viewport_size(PHONE)
    _open(tab, url, {"aln_text": LONG}, 3)
    host = tab.locator(CHART).first
    before = host.evaluate(ROW_LABELS)
    assert before["wide"], "the 46-word map fits a phone: nothing to scroll"
    host.evaluate("h => { h.scrollLeft = h.scrollWidth; }")
    tab.wait_for_function(ROW_LABEL_LAYERS, arg=host.element_handle())
    after = host.evaluate(ROW_LABELS)
    assert after["scrolled"] > 100 and len(after["labels"]) == len(before["labels"]) > 10
    for (left, right), (was_left, __) in zip(after["labels"], before["labels"], strict=True):
        assert after["left"] - 1 <= left and right <= after["right"] + 1  # in view
        assert left == pytest.approx(was_left, abs=1)  # where they were before the scroll


def test_main_chart_on_the_projectors_first_screen(tab, url, screenshots):
    """The heatmap began at 606 px of 720 and its lines were under it; now both are
    whole on the first screen, side by side, so that their hover link can be shown to a class
    (the README's screenshot of classroom mode is this first screen)."""
    tab.set_viewport_size(PROJECTOR)
    _open(tab, url, {"classroom": "true"}, 4)
    assert main_chart_visible(tab, whole=True)
    boxes = [tab.locator(CHART).nth(i).bounding_box() for i in range(2)]
    heatmap, lines = boxes
    assert lines["x"] > heatmap["x"] + heatmap["width"] - 1  # beside it
    assert 0 <= lines["y"] and lines["y"] + lines["height"] <= PROJECTOR["height"]
    _legible(tab, classroom=True)
    if is_shipped("seq2seq-bahdanau"):
        tab.screenshot(path=str(screenshots / "alignment.classroom.png"))
    # the page header, 75 px over the page, lets clicks through to the title row
    tab.get_by_role("button", name="About this page").click(timeout=10_000)
    tab.get_by_text("A recurrent encoder reads it").wait_for()
    tab.keyboard.press("Escape")
    tab.get_by_text("A recurrent encoder reads it").wait_for(state="hidden")
    button = tab.locator('[data-testid="stExpandSidebarButton"]').bounding_box()
    centre = [button["x"] + button["width"] / 2, button["y"] + button["height"] / 2]
    hit = "([x, y]) => !!document.elementFromPoint(x, y).closest('[data-testid=stExpandSidebarButton]')"
    assert tab.evaluate(hit, centre)  # the header's own buttons still take clicks


def _cut_buttons(page) -> list[str]:
    """The Mode control's buttons that pass the right edge of their container or the window."""
    return page.evaluate(
        """() => { const box = document.querySelector('.st-key-aln_mode');
        const edge = Math.min(box.getBoundingClientRect().right, window.innerWidth);
        return [...box.querySelectorAll('button')]
          .filter(b => b.getBoundingClientRect().right > edge + 1).map(b => b.innerText); }"""
    )


@pytest.mark.parametrize(
    ("viewport", "params"),
    [
        ({"width": 1280, "height": 800}, {}),
        (PROJECTOR, {"classroom": "true"}),
        (PHONE, {}),
        ({"width": 1280, "height": 800}, {"lang": "zh"}),
    ],
)
def test_mode_control_is_whole(tab, url, viewport, params):
    """At 1280 px the Mode control was cut ("compar...")."""
    tab.set_viewport_size(viewport)
    _open(tab, url, params, 3)
    if params.get("classroom"):  # the Mode control is in the settings popover, beside the model
        tab.get_by_role("button", name="Settings").click()
    buttons = tab.locator('.st-key-aln_mode button[data-variant="segmented_control"]')
    buttons.first.wait_for()
    assert buttons.count() == 4
    assert not _cut_buttons(tab)


def test_beam_hypotheses_are_whole(tab, url):
    """Hypotheses 2-5 differed only in a tail the table hid."""
    tab.set_viewport_size({"width": 1280, "height": 800})
    _open(tab, url, {"aln_text": LONG, "aln_beam": "5"}, 4)
    table = tab.locator('[data-testid="stTable"]').filter(has_text="rank")
    cells = table.locator("td")
    assert cells.count() >= 3 * 2
    hidden = cells.evaluate_all(
        "cells => cells.filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.innerText)"
    )
    assert not hidden


def test_chinese_text_is_flagged_next_to_the_translation(tab, url):
    tab.set_viewport_size({"width": 1280, "height": 800})
    _open(tab, url, {"aln_text": "注意力机制很重要"}, 3)
    alerts = tab.locator('[data-testid="stAlert"]').all_inner_texts()
    assert any("not in the Latin alphabet" in a for a in alerts), alerts
    translation = tab.get_by_text("Translation:").bounding_box()
    warning = tab.get_by_text("not in the Latin alphabet").bounding_box()
    assert 0 < warning["y"] - translation["y"] < 200  # right under the translation


def test_the_link_to_multi_head_is_whole(tab, url):
    """In a column beside the language note the link read "Multi-head attentior"."""
    tab.set_viewport_size({"width": 1280, "height": 800})
    _open(tab, url, {}, 3)
    link = tab.locator('[data-testid="stPageLink"]').filter(has_text="Multi-head attention")
    assert link.count() == 1
    cut = link.evaluate_all(
        "links => links.flatMap(l => [l, ...l.querySelectorAll('*')])"
        ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)"
    )
    assert not cut


def _new_elements(frames: list) -> list[str]:
    """The element_types of the elements drawn by the websocket ``frames`` (bench.load.protocol's)."""
    element_types = []
    for frame in frames:
        if isinstance(frame, str):
            continue
        msg = ForwardMsg()
        msg.ParseFromString(frame)
        element_types.append(element_type_of(msg))
    return [kind for kind in element_types if kind]


def test_moving_the_step_redraws_the_inspector_alone(tab, url):
    """The step inspector is a fragment of its own, so moving its step sends the
    inspector's elements only (not the sentence box, the controls, the heatmap and the lines)
    and the charts above it are not drawn again."""
    tab.set_viewport_size({"width": 1280, "height": 800})
    frames: list = []
    tab.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(frame)))
    _open(tab, url, {"aln_text": TYPED, "aln_step": "0"}, 4)
    heatmap = tab.locator(".st-key-aln_main_heatmap [data-draws]")
    draws = heatmap.get_attribute("data-draws")
    frames.clear()
    step = tab.get_by_test_id("stSlider").filter(has_text="Target step").get_by_role("slider")
    step.focus()
    step.press("ArrowRight")
    tab.wait_for_url("**aln_step=1**")
    tab.wait_for_function(
        "() => [...document.querySelectorAll('.st-key-aln_step_fig .gtitle')]"
        ".some(t => t.textContent.startsWith('Step 1:'))"
    )
    wait_settled(tab, 4)
    sent = _new_elements(frames)
    assert sent.count("bidi_component") == 2, sent  # the step's scores and its candidates
    assert "text_input" not in sent and "button_group" not in sent, sent
    assert len(sent) < 15, sent  # the whole page's rerun sends about 30
    assert heatmap.get_attribute("data-draws") == draws
