"""The message catalogue: the runtime (languages, context, lookups), the build (extraction, merging
the Chinese fragments, the report) and the committed catalogues (complete and current)."""

from __future__ import annotations

import re
import textwrap
import threading
from pathlib import Path

import pytest

import i18n
from i18n import N_, _, current_language, negotiate, ngettext, pgettext, set_language, use_language
from i18n.build import OUTPUTS, build_catalogues, read_catalog, stale_files, stub, write_files
from i18n.extract import check_sources, extract_template

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _english():
    """Each test starts in English with no resolver, and leaves it so."""
    with use_language("en"):
        yield
    i18n.set_language_resolver(None)


# ---------------------------------------------------------------- runtime


@pytest.mark.parametrize(
    ("tag", "lang"),
    [
        ("zh-CN", "zh"),
        ("zh_Hans_CN", "zh"),
        ("ZH-tw", "zh"),
        ("zh", "zh"),
        ("en-GB", "en"),
        ("fr-FR", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_negotiate_browser_locales(tag, lang):
    assert negotiate(tag) == lang


def test_use_language_restores_and_rejects_unknown():
    with use_language("zh"):
        assert current_language() == "zh"
        with use_language("en"):
            assert current_language() == "en"
        assert current_language() == "zh"
    assert current_language() == "en"
    with pytest.raises(ValueError, match="fr"):
        set_language("fr")


def test_language_is_per_thread_with_resolver_fallback():
    seen = {}

    def worker(name):
        seen[name] = current_language()

    set_language("zh")
    thread = threading.Thread(target=worker, args=("plain",))
    thread.start()
    thread.join()
    i18n.set_language_resolver(lambda: "zh")
    thread = threading.Thread(target=worker, args=("resolved",))
    thread.start()
    thread.join()
    assert seen == {"plain": "en", "resolved": "zh"}  # a new thread never inherits set_language


def test_committed_catalogue_translates():
    assert _("Attention atlas") == "Attention atlas"
    with use_language("zh"):
        assert _("Attention atlas") == "注意力图谱"
        assert pgettext("list separator", ", ") == "、"
        assert _("a message nobody wrote") == "a message nobody wrote"  # falls back to the id
    assert N_("Alignment") == "Alignment"  # marks, never translates


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _fragment(entries: str) -> str:
    return 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n' + entries


# ---------------------------------------------------------------- the build, on a tiny project

TINY_CODE = """
    from i18n import N_, _, ngettext, pgettext

    TITLE = N_("Scores")


    def show(n):
        # i18n: the count of heads
        print(ngettext("{n} head", "{n} heads", n).format(n=n))
        print(_("Hello {name}").format(name="x"), _(TITLE), pgettext("verb", "Open"))
"""
TINY_TOML = """
    [[stage]]
    name = "The core idea"
    blurb = "Soft addressing."
"""


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    _write(tmp_path, {"app_pages/page/page.py": TINY_CODE, "ui/pages.toml": TINY_TOML})
    _write(
        tmp_path,
        {
            "locale/zh/fragments/page.po": _fragment(
                'msgid "Scores"\nmsgstr "分数"\n\n'
                'msgid "{n} head"\nmsgid_plural "{n} heads"\nmsgstr[0] "{n} 个头"\n\n'
                'msgid "Hello {name}"\nmsgstr "你好"\n\n'  # the placeholder is lost
                'msgid "Gone"\nmsgstr "已删除"\n\n'  # no longer in the code
                '#, fuzzy\nmsgid "The core idea"\nmsgstr "核心"\n\n'  # to review: still missing
            ),
            "locale/zh/fragments/other.po": _fragment(
                'msgid "Scores"\nmsgstr "得分"\n\n'  # conflicts with page.po
                'msgctxt "verb"\nmsgid "Open"\nmsgstr "打开"\n'
            ),
        },
    )
    return tmp_path


def test_extraction_finds_every_marker_and_the_registry(tiny: Path):
    template = extract_template(tiny)
    ids = {(m.id if isinstance(m.id, str) else m.id[0], m.context) for m in template if m.id}
    assert ids == {
        ("Scores", None),
        ("{n} head", None),
        ("Hello {name}", None),
        ("Open", "verb"),
        ("The core idea", None),
        ("Soft addressing.", None),
    }
    plural = template.get(("{n} head", "{n} heads"))
    assert plural.auto_comments == ["the count of heads"]
    assert plural.locations[0][0] == "app_pages/page/page.py"


def test_build_reports_missing_unused_conflicts_and_placeholders(tiny: Path):
    files, report = build_catalogues(tiny)
    assert set(files) == set(OUTPUTS)
    assert {m.split(" (")[0] for m in report.missing} == {"'The core idea'", "'Soft addressing.'"}
    assert report.unused == ["page.po: 'Gone'"]
    assert len(report.conflicts) == 1 and "Scores" in report.conflicts[0]
    assert len(report.placeholders) == 1 and "Hello {name}" in report.placeholders[0]
    assert report.errors


def test_built_catalogues_load_and_translate(tiny: Path):
    files, _report = build_catalogues(tiny)
    write_files(files, tiny / "locale")
    zh = i18n.load_catalogue("zh", tiny / "locale")
    en = i18n.load_catalogue("en", tiny / "locale")
    assert zh.gettext("Scores") == "得分"  # the first fragment (by name) wins, and is reported
    assert zh.ngettext("{n} head", "{n} heads", 1) == zh.ngettext("{n} head", "{n} heads", 5)
    assert zh.ngettext("{n} head", "{n} heads", 5) == "{n} 个头"
    assert zh.pgettext("verb", "Open") == "打开"
    assert en.ngettext("{n} head", "{n} heads", 5) == "{n} heads"
    english = read_catalog(tiny / "locale" / "en" / "LC_MESSAGES" / "messages.po", "en")
    assert all(m.string == m.id for m in english if m.id)  # English: msgstr = msgid


def test_stale_files_compare_without_writing(tiny: Path):
    stale, _report = stale_files(tiny)
    assert stale == list(OUTPUTS) and not (tiny / "locale" / "messages.pot").exists()
    files, _report = build_catalogues(tiny)
    write_files(files, tiny / "locale")
    assert stale_files(tiny)[0] == []
    _write(tiny, {"app_pages/new/new.py": 'from i18n import _\n\n_("New words")\n'})
    assert stale_files(tiny)[0] == list(OUTPUTS)  # a new message makes all three stale


def test_stub_appends_untranslated_messages_of_the_files(tiny: Path):
    assert stub(tiny, "home", ["ui/pages.toml"]) == 2
    fragment = read_catalog(tiny / "locale" / "zh" / "fragments" / "home.po", "zh")
    assert sorted(m.id for m in fragment if m.id) == ["Soft addressing.", "The core idea"]
    assert stub(tiny, "home", ["ui/pages.toml"]) == 0  # already there


def test_source_checks_catch_what_extraction_would_skip(tmp_path: Path):
    _write(
        tmp_path,
        {
            "ui/bad.py": """
        from i18n import _

        def show(n, name):
            print(_(f"{n} tokens"), _("a" + name), _("{n} x".format(n=n)))
            for _ in range(3):
                pass
    """
        },
    )
    problems = check_sources(tmp_path)
    assert len(problems) == 4
    assert "f-string" in problems[0] and "ui/bad.py:5" in problems[0]
    assert "rebound" in problems[3]


# ---------------------------------------------------------------- the committed catalogues


def test_every_message_has_both_languages_and_the_catalogue_is_current():
    stale, report = stale_files(ROOT)
    assert not report.errors, "\n".join(report.lines())
    assert stale == [], f"{stale} stale: run `make i18n` (python -m i18n.build) and commit them"


def test_committed_catalogues_cover_every_message():
    template = extract_template(ROOT)
    ids = {(m.id, m.context) for m in template if m.id}
    for lang in ("en", "zh"):
        catalog = read_catalog(ROOT / "locale" / lang / "LC_MESSAGES" / "messages.po", lang)
        translated = {(m.id, m.context) for m in catalog if m.id and all(_strings(m.string))}
        assert ids <= translated, f"{lang}: {sorted(map(str, ids - translated))[:10]}"


def _strings(value) -> list[str]:
    return list(value) if isinstance(value, tuple | list) else [value]


def test_ngettext_in_both_languages():
    with use_language("en"):
        assert ngettext("{n} head", "{n} heads", 2) == "{n} heads"
    with use_language("zh"):  # not in the catalogue: falls back to English's plural rule
        assert ngettext("{n} head", "{n} heads", 1) == "{n} head"


def test_a_registry_text_the_extraction_misses_is_reported(tmp_path: Path):
    _write(tmp_path, {"ui/pages.toml": '[[page]]\ntitle = "Lab"\ndescription = """Two\nlines"""\n'})
    problems = check_sources(tmp_path)
    assert len(problems) == 1 and "Two\\nlines" in problems[0]


_PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*(?:[:!][^{}]*)?\}")


def _rendered_text(markdown: str) -> str:
    """``markdown`` through a CommonMark renderer (the flanking rules Streamlit's renderer
    follows), placeholders filled with a letter, tags stripped: the text a reader sees."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(_PLACEHOLDER.sub("X", markdown))
    return re.sub(r"<[^>]+>", "", html)


def test_chinese_emphasis_closes_as_the_english_does():
    """A CommonMark bold opened or closed next to full-width punctuation (``**预测：**文``) is
    not emphasis: the reader sees the asterisks. No Chinese message shows more literal
    asterisks than its English."""
    broken = []
    for path in sorted((ROOT / "locale" / "zh" / "fragments").glob("*.po")):
        for message in read_catalog(path, "zh"):
            if not message.id or message.fuzzy:
                continue
            english = _rendered_text(_strings(message.id)[0]).count("*")
            for text in _strings(message.string):
                if text and _rendered_text(text).count("*") > english:
                    broken.append(f"{path.name}: {text[:60]!r}")
    assert not broken, "\n".join(broken)
