"""Build the catalogues: ``python -m i18n.build`` (``make i18n``).

1. Extract every message from the code into ``locale/messages.pot`` (see ``i18n.extract``).
2. Merge the Chinese fragments ``locale/zh/fragments/<area>.po`` (one per area of the app, so that
   several people translate at once without editing one file) into
   ``locale/zh/LC_MESSAGES/messages.po``, and write ``locale/en/LC_MESSAGES/messages.po``
   (msgstr = msgid).
3. Report what is missing a Chinese translation, fragment entries no longer used, translations
   whose placeholders differ from the English, and source problems (f-strings in ``_()``).

``--check`` builds into a temporary folder and compares with the committed files (``make lint``);
``--stub AREA FILE...`` appends the untranslated messages of those files to AREA's fragment, with
an empty msgstr for the translator to fill.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po, write_po

from i18n.extract import check_sources, extract_template, new_catalog

ROOT = Path(__file__).resolve().parent.parent
AREAS = (
    "common",
    "home",
    "lessons",
    "live",
    "sidebar",
    "anatomy",
    "why_attention",
    "alignment",
    "local_attention",
    "captions",
    "multi_head",
    "positional_encoding",
    "scaling",
    "recurrent",
    "explain",
    "lab",
    "viz",
)
OUTPUTS = ("messages.pot", "en/LC_MESSAGES/messages.po", "zh/LC_MESSAGES/messages.po")
HEADERS = {
    "en": "# English messages of the Attention atlas (msgstr = msgid).\n"
    "# Built by `make i18n` from the code: do not edit by hand.\n#",
    "zh": "# Simplified Chinese messages of the Attention atlas.\n"
    "# Built by `make i18n` from the code and locale/zh/fragments/*.po: edit the fragments,\n"
    "# not this file. Terms: docs/glossary.md.\n#",
}
_BRACES = re.compile(r"\{[^{}]*\}")

Key = tuple[str, str | None]  # (msgid, msgctxt)


@dataclass
class Report:
    """What a build found; ``errors`` fail ``--check`` and the catalogue test."""

    missing: list[str] = field(default_factory=list)  # msgids without Chinese
    unused: list[str] = field(default_factory=list)  # fragment entries the code no longer has
    conflicts: list[str] = field(default_factory=list)  # one msgid, two different translations
    placeholders: list[str] = field(default_factory=list)  # {name}s differ from the English
    sources: list[str] = field(default_factory=list)  # see i18n.extract.check_sources

    @property
    def errors(self) -> list[str]:
        return [
            *self.conflicts,
            *self.placeholders,
            *self.sources,
            *(f"missing Chinese: {m}" for m in self.missing),
        ]

    def lines(self, only: tuple[str, ...] = ()) -> list[str]:
        """The report as text; with ``only`` (paths or fragment names), just the items naming one."""

        def kept(items: list[str]) -> list[str]:
            return [item for item in items if not only or any(path in item for path in only)]

        out = []
        for title, items in (
            ("message(s) without Chinese", self.missing),
            ("fragment entries no longer in the code", self.unused),
            ("conflicting translations", self.conflicts),
            ("placeholders differ", self.placeholders),
            ("source problems", self.sources),
        ):
            if kept(items) or title.startswith("message"):
                out += [f"{len(kept(items))} {title}:", *(f"  {item}" for item in kept(items))]
        return out


def _key(message: Message) -> Key:
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    return str(msgid), message.context


def _strings(message: Message) -> list[str]:
    value = message.string
    return [str(s) for s in value] if isinstance(value, tuple | list) else [str(value or "")]


def _label(message: Message) -> str:
    msgid, context = _key(message)
    where = ", ".join(sorted({path for path, _line in message.locations}))
    return (
        f"{msgid!r}"
        + (f" [context {context!r}]" if context else "")
        + (f" ({where})" if where else "")
    )


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=locale)


def read_fragments(folder: Path) -> tuple[dict[Key, tuple[Message, str]], list[str]]:
    """Every translated (non-fuzzy) fragment entry by key, with its file; and the conflicts (one
    key given two different translations in two places)."""
    entries: dict[Key, tuple[Message, str]] = {}
    conflicts = []
    for path in sorted(folder.glob("*.po")):
        for message in read_catalog(path, "zh"):
            if not message.id or not any(_strings(message)) or message.fuzzy:
                continue  # untranslated, or marked for review (fuzzy): counts as missing
            key, name = _key(message), path.name
            if key in entries and _strings(entries[key][0]) != _strings(message):
                conflicts.append(f"{_label(message)}: {entries[key][1]} and {name} differ")
                continue
            entries.setdefault(key, (message, name))
    return entries, conflicts


def _placeholders(text: str) -> list[str]:
    return sorted(_BRACES.findall(text))


def _placeholder_problem(source: Message, translated: list[str]) -> str | None:
    ids = [source.id] if isinstance(source.id, str) else list(source.id)
    expected = _placeholders(ids[-1])  # the plural form carries the count too
    for text in translated:
        if _placeholders(text) != expected and _placeholders(text) != _placeholders(ids[0]):
            return f"{_label(source)}: {text!r} has {_placeholders(text)}, expected {expected}"
    return None


def merge_chinese(
    template: Catalog, fragments: dict[Key, tuple[Message, str]], report: Report
) -> Catalog:
    """The Chinese catalogue: each template message with its fragment translation (or empty)."""
    catalog = new_catalog("zh", HEADERS["zh"])
    for message in template:
        if not message.id:
            continue
        found = fragments.get(_key(message))
        strings = _strings(found[0])[:1] if found else [""]  # Chinese has one plural form
        if not strings[0]:
            report.missing.append(_label(message))
        elif problem := _placeholder_problem(message, strings):
            report.placeholders.append(problem)
        string = tuple(strings) if message.pluralizable else strings[0]
        _copy(catalog, message, string)
    return catalog


def _copy(catalog: Catalog, message: Message, string: str | tuple[str, ...]) -> None:
    catalog.add(
        message.id,
        string,
        message.locations,
        flags=message.flags,
        auto_comments=message.auto_comments,
        context=message.context,
    )


def english(template: Catalog) -> Catalog:
    """The English catalogue: each msgstr is its msgid (plural: singular, plural)."""
    catalog = new_catalog("en", HEADERS["en"])
    for message in template:
        if message.id:
            _copy(catalog, message, tuple(message.id) if message.pluralizable else message.id)
    return catalog


def render(catalog: Catalog) -> bytes:
    """The .po text, sorted by msgid, file names without line numbers (fewer spurious diffs)."""
    buffer = io.BytesIO()
    write_po(buffer, catalog, sort_output=True, include_lineno=False, width=100)
    return buffer.getvalue()


def build_catalogues(root: Path = ROOT) -> tuple[dict[str, bytes], Report]:
    """The three built files (relative to locale/) and the report; writes nothing."""
    report = Report(sources=check_sources(root))
    template = extract_template(root)
    fragments, report.conflicts = read_fragments(root / "locale" / "zh" / "fragments")
    zh = merge_chinese(template, fragments, report)
    used = {_key(m) for m in template if m.id}
    report.unused = [
        f"{name}: {key[0]!r}" for key, (_m, name) in fragments.items() if key not in used
    ]
    files = dict(
        zip(OUTPUTS, (render(template), render(english(template)), render(zh)), strict=True)
    )
    return files, report


def write_files(files: dict[str, bytes], locale_dir: Path) -> list[str]:
    """Write the built files (atomically, each), returning the ones that changed."""
    changed = []
    for name, data in files.items():
        path = locale_dir / name
        if path.is_file() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(data)
        os.chmod(handle.name, 0o644)
        os.replace(handle.name, path)
        changed.append(name)
    return changed


def stale_files(root: Path = ROOT) -> tuple[list[str], Report]:
    """The committed files that differ from a fresh build (nothing is written under root)."""
    files, report = build_catalogues(root)
    with tempfile.TemporaryDirectory() as tmp:
        write_files(files, Path(tmp))
        stale = [
            name
            for name in OUTPUTS
            if not (root / "locale" / name).is_file()
            or (root / "locale" / name).read_bytes() != (Path(tmp) / name).read_bytes()
        ]
    return stale, report


def stub(root: Path, area: str, paths: list[str]) -> int:
    """Append to AREA's fragment the untranslated messages found in ``paths`` (files or folders,
    relative to root); returns how many were added."""
    fragment_path = root / "locale" / "zh" / "fragments" / f"{area}.po"
    fragment = (
        read_catalog(fragment_path, "zh") if fragment_path.is_file() else empty_fragment(area)
    )
    present = {_key(m) for m in fragment if m.id}
    translated, _conflicts = read_fragments(fragment_path.parent)
    prefixes = tuple(p.rstrip("/") for p in paths)
    added = 0
    for message in extract_template(root):
        key = _key(message)
        wanted = any(
            path == p or path.startswith(p + "/")
            for path, _l in message.locations
            for p in prefixes
        )
        if message.id and wanted and key not in present and key not in translated:
            _copy(fragment, message, ("",) if message.pluralizable else "")
            added += 1
    write_fragment(fragment, fragment_path)
    return added


def empty_fragment(area: str) -> Catalog:
    """A new fragment for ``area``, its header saying what it is."""
    header = (
        f"# Chinese for the {area} area of the Attention atlas: a fragment merged by `make i18n`\n"
        "# into locale/zh/LC_MESSAGES/messages.po. Terms: docs/glossary.md.\n#"
    )
    return new_catalog("zh", header)


def write_fragment(fragment: Catalog, path: Path) -> None:
    """Write a fragment in the order of its entries (a translator's order is kept)."""
    buffer = io.BytesIO()
    write_po(buffer, fragment, include_lineno=False, width=100)
    write_files({path.name: buffer.getvalue()}, path.parent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m i18n.build", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="fail when the committed catalogues are stale or incomplete; write nothing",
    )
    parser.add_argument(
        "--stub",
        nargs="+",
        metavar=("AREA", "FILE"),
        help="append the untranslated messages of FILEs to AREA's fragment",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=(),
        metavar="FILE",
        help="report only the messages of these files (or fragments)",
    )
    args = parser.parse_args(argv)
    only = tuple(args.only)
    if args.stub:
        area, *paths = args.stub
        if area not in AREAS or not paths:
            parser.error(f"--stub AREA FILE...: AREA is one of {', '.join(AREAS)}")
        print(f"{stub(ROOT, area, paths)} message(s) added to locale/zh/fragments/{area}.po")
        return 0
    if args.check:
        stale, report = stale_files(ROOT)
        print("\n".join(report.lines(only)))
        for name in stale:
            print(f"locale/{name} is stale: run `make i18n` and commit it")
        return 1 if stale or report.errors else 0
    files, report = build_catalogues(ROOT)
    for name in write_files(files, ROOT / "locale"):
        print(f"wrote locale/{name}")
    print("\n".join(report.lines(only)))
    return 1 if report.conflicts or report.placeholders or report.sources else 0


if __name__ == "__main__":
    sys.exit(main())
