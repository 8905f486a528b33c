"""The accessibility judge: axe-core (npm, pinned in tests/axe/package-lock.json, installed by
``make setup-dev``) injected into a page from this machine's disk, never fetched, and run with the
rules tagged WCAG 2.0/2.1 A and AA.

``python -m bench.axe [--lang en,zh] [--sizes classroom,laptop,phone]`` serves the app and scans
every view (the 14 main views: each page, a lesson's step and the join page) in each language
and screen size, printing the serious and critical violations per view and rule; the browser
tests (tests/test_browser_accessibility.py) hold the same judge to zero."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AXE_JS = ROOT / "tests" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
BLOCKING = ("serious", "critical")  # the impacts the judge holds to zero


@dataclass(frozen=True)
class Size:
    """A screen the judge looks at: a viewport, and classroom mode (the projector's) or not."""

    name: str
    width: int
    height: int
    classroom: bool = False


SIZES = {
    "classroom": Size("classroom", 1280, 720, classroom=True),
    "laptop": Size("laptop", 1280, 800),
    "phone": Size("phone", 390, 844),
}
# The 14 main views: (name, path and query after the server's root)
VIEWS = (
    ("home", ""),
    ("lessons", "lessons"),
    ("lesson step", "lessons?lesson=bahdanau&step=2"),
    ("join", "join"),
    ("anatomy", "anatomy"),
    ("recurrent", "recurrent"),
    ("why attention", "why_attention"),
    ("lab", "lab"),
    ("alignment", "alignment"),
    ("local attention", "local_attention"),
    ("captions", "captions"),
    ("multi-head", "multi_head"),
    ("scaling", "scaling"),
    ("positional encoding", "positional_encoding"),
)


@dataclass(frozen=True)
class Violation:
    """One axe rule broken on a page: its id, impact, help text and the nodes' selectors."""

    rule: str
    impact: str
    help: str
    targets: tuple[str, ...]

    def __str__(self) -> str:
        where = ", ".join(self.targets[:3]) + (" ..." if len(self.targets) > 3 else "")
        return f"{self.impact} {self.rule} ({len(self.targets)}): {self.help} [{where}]"


def violations(page, impacts: tuple[str, ...] = BLOCKING) -> list[Violation]:
    """axe-core's violations of ``impacts`` on ``page`` as it is now (injected once per page)."""
    if not AXE_JS.is_file():
        raise FileNotFoundError(f"{AXE_JS} is missing: run `make setup-dev` (npm ci in tests/axe)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=AXE_JS.read_text())
    found = page.evaluate(
        """async (tags) => (await axe.run(document, {
             runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})).violations
           .map(v => ({rule: v.id, impact: v.impact, help: v.help,
                       targets: v.nodes.map(n => n.target.join(' '))}))""",
        list(TAGS),
    )
    return [
        Violation(v["rule"], v["impact"] or "", v["help"], tuple(v["targets"]))
        for v in found
        if v["impact"] in impacts
    ]


def view_url(base: str, path: str, lang: str, size: Size) -> str:
    """The URL of a view in ``lang`` and ``size``'s mode."""
    sep = "&" if "?" in path else "?"
    mode = "&classroom=true" if size.classroom else ""
    return f"{base}/{path}{sep}lang={lang}{mode}"


def _scan(base: str, langs: list[str], sizes: list[Size]) -> Counter:
    from playwright.sync_api import sync_playwright

    from bench.browser import launch_chromium
    from bench.register import RENDERED

    counts: Counter = Counter()
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        for size in sizes:
            context = browser.new_context(viewport={"width": size.width, "height": size.height})
            page = context.new_page()
            for lang in langs:
                for name, path in VIEWS:
                    page.goto(view_url(base, path, lang, size))
                    page.wait_for_function(RENDERED, timeout=120_000)
                    page.wait_for_timeout(500)
                    found = violations(page)
                    for v in found:
                        counts[(size.name, lang, name, v.rule, v.impact)] += len(v.targets)
                    nodes = sum(len(v.targets) for v in found)
                    print(f"{size.name:9} {lang} {name:20} {nodes:3} nodes", flush=True)
                    for v in found:
                        print(f"    {v}", flush=True)
            context.close()
        browser.close()
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", default="en,zh")
    parser.add_argument("--sizes", default="classroom,laptop,phone")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    args = parser.parse_args(argv)
    from serve.launch import streamlit_server

    sizes = [SIZES[s] for s in args.sizes.split(",")]
    with streamlit_server() as (base, _seconds):
        counts = _scan(base, args.lang.split(","), sizes)
    by_rule = Counter()
    for (_size, _lang, _view, rule, impact), n in counts.items():
        by_rule[(rule, impact)] += n
    total = sum(counts.values())
    print(f"\n{total} serious or critical nodes in all")
    for (rule, impact), n in by_rule.most_common():
        print(f"  {n:4}  {impact:8} {rule}")
    if args.json:
        rows = [[*key, n] for key, n in sorted(counts.items())]
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
