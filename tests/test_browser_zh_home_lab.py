"""The Home page and the Training lab in Chinese, in Chromium.

Home (``?lang=zh``): no English word left on screen or in the models table (its headers and every
cell: the pages, ``Card.headline``'s measured figures, the sizes) other than the checkpoints' own
names; no missing-glyph box; switching to English and back gives the same table again.

Training lab (``?lang=zh``): the default view; then a tiny configuration from a link, its task
picked in the page, trained to the end: the summary, the timeline, the probe's heatmaps, the
curves and the comparison by length; then a longer run watched live and cancelled. No English
word is left on screen, in the charts' SVG text or in their hover text other than the cells' and
the attention's names and the probe's tokens; no missing-glyph box; switching to English and back
keeps the settings (the link's and the picked task), the results and the timeline's step.
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

import app_pages.lab.controls
from app_pages.lab.controls import CELL_LABELS
from models.checkpoints import checkpoint_root
from models.lab.tasks import LETTERS, probe_example
from models.lab.train import LAB_ATTENTIONS
from serve.lab_jobs import LabServer
from tests.browser_helpers import (
    CHART,
    assert_chinese,
    chart_hover_texts,
    english_left,
    shown_texts,
    switch_language,
    wait_settled,
)
from tests.test_i18n_app import _app, _open, english_words

TABLE = '[data-testid="stTable"]'
HEADERS = {
    "zh": ["模型", "所在页面", "实测结果", "大小"],
    "en": ["model", "shown on", "measured", "size"],
}
TITLE = {"zh": "注意力图谱", "en": "Attention atlas"}
LAB_TITLE = {"zh": "训练实验室", "en": "Training lab"}
CJK = re.compile(r"[\u4e00-\u9fff]")
# Names that stay as they are (docs/glossary.md), word by word: the cells offered (RNN, LSTM, GRU)
# and the one attention the tests train (the twin's label, "GRU，无注意力", is Chinese).
LAB_NAMES = {word for label in CELL_LABELS.values() for word in english_words(label)}
ATTENTION = "bahdanau"
# A tiny configuration (with the default hidden size, 32, it trains in a few seconds:
# tests/test_browser_lab.py), and a long one to cancel
TINY = {"lab_len": "4", "lab_bi": "false", "lab_steps": "100"}
LONG = {**TINY, "lab_steps": "3000"}
TIMELINE = {"zh": "时间轴：拖动回看训练过程", "en": "Timeline: scrub through training"}
TASK = {"zh": "任务", "en": "Task"}
BIDIRECTIONAL = {"zh": "双向编码器", "en": "Bidirectional encoder"}
STEP = {"zh": "第 {step} 步", "en": "step {step}"}
AT_STEP = {"zh": "第 {step} 步的注意力", "en": "Attention at step {step}"}


def _check_chinese(texts: list[str], allowed: set[str]) -> None:
    """No English word beyond ``allowed`` in ``texts``; no missing-glyph box."""
    assert_chinese(texts, allowed)


# ---------------------------------------------------------------- Home


def _table(page) -> tuple[list[str], list[list[str]]]:
    """The models table's headers and rows."""
    table = page.locator(TABLE)
    table.locator("thead th").nth(3).wait_for(state="attached")
    headers = [h.strip() for h in table.locator("thead th").all_text_contents() if h.strip()]
    rows = table.locator("tbody tr")
    return headers, [row.locator("td").all_text_contents() for row in rows.all()]


def _open_home(page, lang: str) -> tuple[list[str], list[list[str]]]:
    """The home page in ``lang``, once the table shows its headers in ``lang``: the table's
    headers and rows."""
    page.get_by_role("heading", name=TITLE[lang], exact=True).wait_for()
    page.wait_for_function(
        f"want => JSON.stringify([...document.querySelectorAll('{TABLE} thead th')]"
        ".map(h => h.textContent.trim()).filter(Boolean)) === JSON.stringify(want)",
        arg=HEADERS[lang],
    )
    return _table(page)


@pytest.mark.browser
def test_home_in_chinese(page, app_url):
    page.goto(f"{app_url}/?lang=zh")
    headers, rows = _open_home(page, "zh")
    folders = sorted(p.name for p in checkpoint_root().iterdir() if p.is_dir())
    assert [row[0] for row in rows[:-1]] == folders  # one row per checkpoint, then MiniLM
    names = {word for folder in folders for word in english_words(folder)}
    assert all(CJK.search(row[2]) for row in rows), rows  # the measured figures: Card.headline
    assert all("BLEU" in row[2] and "贪心" in row[2] for row in rows if "seq2seq" in row[0])
    _check_chinese([*shown_texts(page), *headers, *(cell for row in rows for cell in row)], names)

    switch_language(page, "English", "en")
    __, english = _open_home(page, "en")
    assert [row[0] for row in english][:-1] == folders
    assert all("greedy" in row[2] for row in english if "seq2seq" in row[0])
    switch_language(page, "简体中文", "zh")
    assert _open_home(page, "zh") == (headers, rows)
    assert urllib.parse.urlsplit(page.url).query == "lang=zh"


# ---------------------------------------------------------------- Training lab


def _tokens(page) -> set[str]:
    """The words of the probe's tokens the captions show as code (its source, what each model
    writes): checked to be letters of the task's vocabulary, then allowed."""
    codes = page.locator('[data-testid="stMain"] code').all_text_contents()
    words = {word for code in codes for word in re.findall(r"[A-Za-z]{3,}", code)}
    assert all(set(word) <= set(LETTERS) for word in words), codes
    return words


def _check_lab(page, hover_has: tuple[str, ...] = ()) -> None:
    """The lab in Chinese: on screen, in the charts and their hover text (which shows each of
    ``hover_has``)."""
    hover = chart_hover_texts(page)
    for text in hover_has:
        assert any(text in h for h in hover), (text, hover)
    _check_chinese(shown_texts(page) + hover, LAB_NAMES | {ATTENTION} | _tokens(page))


def _chart(page, title: str):
    """The plotly chart whose title contains ``title``."""
    return page.locator(CHART).filter(has=page.locator(".gtitle", has_text=title)).first


def _lab_url(app_url: str, params: dict[str, str]) -> str:
    return f"{app_url}/lab?{urllib.parse.urlencode({'lang': 'zh', **params})}"


def _query(page) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


def _pick_task(page, label: str, task: str) -> None:
    page.get_by_role("combobox", name=TASK["zh"]).click()
    page.get_by_role("option", name=label, exact=True).click()
    page.wait_for_url(re.compile(rf"lab_task={task}"))
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")


def _timeline_shows(page, lang: str) -> str:
    """The timeline's label at its thumb, the same as the one it gives screen readers."""
    timeline = page.locator('[data-testid="stSlider"]', has_text=TIMELINE[lang])
    shown = timeline.locator('[data-testid="stSliderThumbValue"]').inner_text()
    assert page.get_by_role("slider", name=TIMELINE[lang]).get_attribute("aria-valuetext") == shown
    return shown


def _keeps_settings(page, params: dict[str, str], lang: str, task: str, step: int) -> None:
    """After a switch to ``lang``: the settings in the URL and in the controls, the results and
    the timeline at ``step``, in the charts and at the slider's thumb."""
    switch_language(page, {"zh": "简体中文", "en": "English"}[lang], lang)
    page.get_by_role("heading", name=LAB_TITLE[lang], exact=True).wait_for()
    assert _query(page) == {**params, "lang": lang}, page.url
    assert page.get_by_role("combobox", name=TASK[lang]).input_value() == task
    assert not page.get_by_role("switch", name=BIDIRECTIONAL[lang]).is_checked()
    page.get_by_text(TIMELINE[lang]).wait_for()
    _chart(page, AT_STEP[lang].format(step=step)).wait_for()
    wait_settled(page, 4)
    assert _timeline_shows(page, lang) == STEP[lang].format(step=step)


@pytest.mark.browser
def test_lab_in_chinese(page, app_url):
    page.goto(_lab_url(app_url, {}))
    page.get_by_role("heading", name="训练实验室", exact=True).wait_for()
    page.get_by_text("按 训练 用这些设置训练。").wait_for()
    _check_lab(page)

    params = {**TINY, "lab_seed": "31", "lab_task": "copy"}
    page.goto(_lab_url(app_url, {k: v for k, v in params.items() if k != "lab_task"}))
    page.get_by_role("heading", name="训练实验室", exact=True).wait_for()
    _pick_task(page, "复制", "copy")
    page.get_by_text("把字母按原来的顺序再写一遍。").wait_for()
    page.get_by_role("button", name="训练", exact=True).click()
    page.get_by_text(TIMELINE["zh"]).wait_for()  # the run has ended: the results are drawn
    wait_settled(page, 4)
    _chart(page, AT_STEP["zh"].format(step=100)).wait_for()
    assert _chart(page, "真实对齐").is_visible() and _chart(page, "训练曲线").is_visible()
    assert page.get_by_text("GRU，无注意力").first.is_visible()
    probe = probe_example("copy", 4)
    assert f"探针：{''.join(probe.source)} →" in page.locator('[data-testid="stMain"]').inner_text()
    _check_lab(page, ("目标端", "第", "长度"))

    thumb = page.get_by_role("slider", name=TIMELINE["zh"])
    thumb.focus()
    page.keyboard.press("Home")  # then one snapshot on: neither end, nor the default
    _chart(page, AT_STEP["zh"].format(step=0)).wait_for()
    page.keyboard.press("ArrowRight")
    page.locator(f'input[aria-label="{TIMELINE["zh"]}"][value="1"]').wait_for()
    step = int(re.search(r"\d+", _timeline_shows(page, "zh")).group())
    _chart(page, AT_STEP["zh"].format(step=step)).wait_for()
    wait_settled(page, 4)
    _check_lab(page)
    assert _query(page) == {**params, "lang": "zh"}
    _keeps_settings(page, params, "en", "copy", step)
    _keeps_settings(page, params, "zh", "复制", step)
    _check_lab(page, ("目标端", "第", "长度"))


@pytest.mark.browser
def test_lab_live_and_cancelled_in_chinese(page, app_url):
    page.goto(_lab_url(app_url, {**LONG, "lab_seed": "32"}))
    page.get_by_role("button", name="训练", exact=True).click()
    page.get_by_text("第 1 次训练，共 2 次").wait_for()  # the progress bar: training has started
    _chart(page, "目前的训练").wait_for()  # the live curves, after the first snapshots
    _check_lab(page, ("第",))
    page.get_by_role("button", name="取消").click()
    page.get_by_text("已取消。 设置已保留").wait_for()
    assert page.get_by_role("button", name="训练", exact=True).is_enabled()
    _check_lab(page)


# ---------------------------------------------------------------- AppTest: the lab's controls

LAB = "app_pages/lab/lab.py"
WIDGETS = ("selectbox", "slider", "select_slider", "toggle", "number_input", "button_group")


def test_lab_controls_and_notices_in_chinese(monkeypatch: pytest.MonkeyPatch):
    """The lab in ``lang=zh`` with a link it must correct: Chinese title, labels, help, options
    and notices; the task keeps its id."""
    server = LabServer(max_jobs=1, niceness=0)  # as tests/test_lab_page.py; nothing trains
    monkeypatch.setattr(app_pages.lab.controls, "lab_server", lambda: server)
    at = _open(_app({"lang": "zh"}), LAB, {"lab_task": "date", "lab_len": "5", "lab_seed": "x"})
    assert at.title[0].value == "训练实验室"
    assert at.selectbox(key="lab_task").value == "date"
    assert at.selectbox(key="lab_task").options == ["反转", "复制", "排序", "日期"]
    widgets = [w for kind in WIDGETS for w in at.main.get(kind)]
    texts = [w.proto.label for w in widgets] + [w.proto.help for w in widgets]
    texts += [e.value for e in (*at.caption, *at.info, *at.warning, *at.markdown)]
    texts += [b.proto.label for b in at.main.get("button")]
    assert sum("：" in w.value for w in at.warning) == 2, at.warning  # the link's, the date's
    names = {word for attention in LAB_ATTENTIONS for word in english_words(attention)}
    # the link's key in its notice (`lab_seed=x`), the date task's format (YYYY-MM-DD)
    allowed = LAB_NAMES | names | {"lab", "seed", "YYYY"}
    assert not english_left([t for t in texts if t], allowed), english_left(texts, allowed)
