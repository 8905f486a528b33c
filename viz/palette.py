"""The atlas's colours, named once. The figure builders (viz/) and the pages' colour way
(``ui.charts``) import them; the chart component's scripts get theirs in the options the server
sends with each chart (``viz.hover_link.HoverLink``, ``app_pages.anatomy.drag.DragOptions``), so a
colour is changed here and nowhere else.

The eight colours are Okabe and Ito's ("Color Universal Design", 2008), under their names: chosen
to stay distinguishable under the common colour-vision deficiencies (the red-green ones above all,
which about one man in twelve has), so that no series, guess or highlight is told apart by a
colour some of a class cannot see. Pure: no plotly, no streamlit.
"""

from __future__ import annotations

# Okabe and Ito's eight
BLACK = "#000000"
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
BLUISH_GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
REDDISH_PURPLE = "#CC79A7"

# The order series take them in: plotly's colour way on every page, the first eight heads of a
# layer, the lines of a chart.
OKABE_ITO = (BLUE, VERMILLION, BLUISH_GREEN, REDDISH_PURPLE, ORANGE, SKY_BLUE, YELLOW, BLACK)
# Eight more where a chart has more series than that (a layer's heads): after Paul Tol's
# qualitative schemes, also chosen for colour-blind readers.
TOL = ("#882255", "#44AA99", "#999933", "#AA4499", "#661100", "#6699CC", "#888888", "#117733")

# Neutrals: what carries no meaning of its own.
WHITE = "#FFFFFF"
TEXT = "#222222"  # a diagram's words
AXIS_LINE = "#333333"  # the frame of a plot drawn with a grid
ARROW = "#444444"  # a diagram's arrows
GREY = "#555555"  # a mark without a colour of its own: a reference line, an unnamed series
ZERO_LINE = "#888888"
MASKED_CELL = "#BDBDBD"  # a cell left out (a causal mask's upper triangle)
GRID = "#DDDDDD"

# Pale colours under text (a diagram's boxes) and a dimmed one (the bars that are not the answer).
PALE_BLUE = "#E8F1FA"
PALE_VERMILLION = "#FDEBD9"
PALE_GREEN = "#E3F4EC"
MUTED_BLUE = "#9FB8CC"


def rgba(colour: str, alpha: float) -> str:
    """``colour`` ("#RRGGBB") at opacity ``alpha``, as plotly reads it: "rgba(0,114,178,0.08)"."""
    red, green, blue = (int(colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha:g})"


TRANSPARENT = rgba(BLACK, 0)  # a marker or outline that is not drawn, keeping its place
