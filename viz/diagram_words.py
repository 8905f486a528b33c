"""A figure that draws no numbers to read (a diagram) named and summarised by its page's words,
for a figure's ``layout.meta["atlas"]`` (viz.describe reads it), its inline formulas read as
symbols."""

from __future__ import annotations

import re

# LaTeX a caption writes between $...$, as a screen reader should say it
_LATEX = {
    r"\odot": "⊙",
    r"\cdot": "·",
    r"\times": "×",
    r"\sigma": "σ",
    r"\alpha": "α",
    r"\tanh": "tanh",
    r"\sum": "Σ",
    r"\sqrt": "√",
    r"\left": "",
    r"\right": "",
}
_TILDE = re.compile(r"\\tilde\{([^{}]*)\}")


def plain_math(text: str) -> str:
    """``text`` with its inline LaTeX read as symbols: ``$\\tilde{h}_t \\odot c$`` -> ``h̃_t ⊙ c``."""
    text = _TILDE.sub(lambda m: m.group(1) + "\u0303", text)
    for command, symbol in _LATEX.items():
        text = text.replace(command, symbol)
    text = re.sub(r"\\[A-Za-z]+", "", text).replace("$", "")
    return " ".join(text.replace("{", "").replace("}", "").split())


def described(figure, name: str, summary: str | None = None):
    """``figure`` (a go.Figure) named ``name`` and, where given, summarised by ``summary`` (its
    inline formulas read as symbols): for a figure that draws no numbers to read (a diagram),
    the words its page has for it."""
    meta = dict(figure.layout.meta or {}) if isinstance(figure.layout.meta, dict) else {}
    words = dict(meta.get("atlas") or {}) | {"name": plain_math(name)}
    if summary:
        words["summary"] = plain_math(summary)
    figure.update_layout(meta=meta | {"atlas": words})
    return figure
