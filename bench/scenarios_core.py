"""Scenarios for the empty reference page and the two model-free pages."""

from __future__ import annotations

from bench.registry import Scenario, register


def _type(page, name: str, role: str, text: str) -> None:  # noqa: ANN001 - a playwright Page
    """Fill an input by its accessible name and press Enter."""
    box = page.get_by_role(role, name=name)
    box.fill(text)
    box.press("Enter")


def _title_has(text: str) -> str:
    return f"() => [...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes({text!r}))"


def _tick_is(text: str) -> str:
    return (
        f"() => [...document.querySelectorAll('.xtick text')].some(t => t.textContent === {text!r})"
    )


# Two references, each measured right after every try of every scenario. The first, the floor's
# "empty Streamlit page", runs with Streamlit's default settings; the app turns off one default
# that costs every rerun (runner.postScriptGC, see .streamlit/config.toml), and the second
# reference runs with the app's settings, so the table shows the ratio both ways.
for _name, _args in (
    ("empty page (text input -> echo)", ("--runner.postScriptGC", "true")),
    ("empty page with the app's settings (postScriptGC off)", ()),
):
    register(
        Scenario(
            name=_name,
            url_path="",
            script="bench/empty_app.py",
            interact=lambda page, i: _type(page, "Text", "textbox", f"v{i}"),
            redrawn=lambda i: f"() => document.body.innerText.includes('echo: v{i}')",
            baseline=True,
            server_args=_args,
        )
    )

register(
    Scenario(
        name="anatomy (temperature -> weights chart)",
        url_path="anatomy",
        interact=lambda page, i: _type(page, "Temperature T", "spinbutton", f"{2 + i / 100:g}"),
        redrawn=lambda i: _title_has(f"T = {2 + i / 100:g})"),
    )
)

register(
    Scenario(
        name="positional encoding (sentence -> attention maps)",
        url_path="positional_encoding",
        interact=lambda page, i: _type(page, "Sentence", "textbox", f"w{i} the cat sat"),
        redrawn=lambda i: _tick_is(f"w{i}"),
    )
)

# Lower bounds: the empty page plus one figure that changes with the text (bench/chart_app.py).
# They show what one plotly chart redraw costs before any page does anything else.
for _figure, _what in (("heatmap", "one 4x4 heatmap"), ("panels", "four 4x4 maps in one figure")):
    register(
        Scenario(
            name=f"lower bound: text box + {_what}",
            url_path=f"?figure={_figure}",
            script="bench/chart_app.py",
            interact=lambda page, i: _type(page, "Text", "textbox", f"w{i} the cat sat"),
            redrawn=lambda i: _tick_is(f"w{i}"),
        )
    )
