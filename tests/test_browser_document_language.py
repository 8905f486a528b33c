"""The page's document declares the app's language (WCAG 3.1.1): ``<html lang="zh-Hans">`` in
Chinese, ``lang="en"`` in English, on every page and after switching in the sidebar, so that a
screen reader reads Chinese with a Chinese voice."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
LANG = "document.documentElement.lang"


def _declares(page, lang: str) -> None:
    page.wait_for_function(f"{LANG} === {lang!r}", timeout=30_000)


@pytest.mark.parametrize("path", ["", "alignment", "lessons", "join"])
def test_each_page_declares_the_apps_language(page, app_url, path):
    page.goto(f"{app_url}/{path}?lang=zh")
    _declares(page, "zh-Hans")
    page.goto(f"{app_url}/{path}?lang=en")
    _declares(page, "en")


def test_switching_the_language_in_the_sidebar_changes_the_declared_language(page, app_url):
    page.goto(f"{app_url}/?lang=en")
    _declares(page, "en")
    page.get_by_label("语言 · Language").first.click()
    page.get_by_role("option", name="简体中文").click()
    _declares(page, "zh-Hans")
