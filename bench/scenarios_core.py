"""Scenarios for the empty reference page and the two model-free pages."""

from __future__ import annotations

from collections.abc import Callable

from bench.register import Scenario, register


def _typed(
    name: str,
    url_path: str,
    box: str,
    text: Callable[[int], str],
    redrawn: Callable[[int], str],
    *,
    role: str = "textbox",
    **options: object,
) -> Scenario:
    """Register a scenario whose change i fills ``text(i)`` into the input named ``box`` and presses
    Enter; ``options``: the other Scenario fields (script, baseline, server_args)."""

    def interact(page, i: int) -> None:  # a playwright Page
        field = page.get_by_role(role, name=box)
        field.fill(text(i))
        field.press("Enter")

    return register(
        Scenario(name=name, url_path=url_path, interact=interact, redrawn=redrawn, **options)
    )


def _title_has(text: str) -> str:
    return f"() => [...document.querySelectorAll('.gtitle')].some(t => t.textContent.includes({text!r}))"


def _tick_is(text: str) -> str:
    return (
        f"() => [...document.querySelectorAll('.xtick text')].some(t => t.textContent === {text!r})"
    )


def _temperature(i: int) -> str:
    return f"{2 + i / 100:g}"


# Two references, each measured right after every try of every scenario. The first, the floor's
# "empty Streamlit page", runs with Streamlit's default settings; the app turns off one default
# that costs every rerun (runner.postScriptGC, see .streamlit/config.toml), and the second
# reference runs with the app's settings, so the table shows the ratio both ways.
for _name, _args in (
    ("empty page (text input -> echo)", ("--runner.postScriptGC", "true")),
    ("empty page with the app's settings (postScriptGC off)", ()),
):
    _typed(
        _name,
        "",
        "Text",
        lambda i: f"v{i}",
        lambda i: f"() => document.body.innerText.includes('echo: v{i}')",
        script="bench/empty_app.py",
        baseline=True,
        server_args=_args,
    )

_typed(
    "anatomy (temperature -> weights chart)",
    "anatomy",
    "Temperature T",
    _temperature,
    lambda i: _title_has(f"T = {_temperature(i)})"),
    role="spinbutton",
)
_typed(
    "positional encoding (sentence -> attention maps)",
    "positional_encoding",
    "Sentence",
    lambda i: f"w{i} the cat sat",
    lambda i: _tick_is(f"w{i}"),
)

# Lower bounds: the empty page plus one figure that changes with the text (bench/chart_app.py).
# They show what one plotly chart redraw costs before any page does anything else.
for _figure, _what in (("heatmap", "one 4x4 heatmap"), ("panels", "four 4x4 maps in one figure")):
    _typed(
        f"lower bound: text box + {_what}",
        f"?figure={_figure}",
        "Text",
        lambda i: f"w{i} the cat sat",
        lambda i: _tick_is(f"w{i}"),
        script="bench/chart_app.py",
    )
