"""The public views (viz.views): each from a tiny real model's result gives a Chart whose figure
names its axes and tokens; viz.standalone writes it as one offline HTML page (plotly.js inside,
no URL, user text escaped)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from i18n import use_language
from models.analysis.scaling import dot_sample, saturation
from models.captioning.inference import describe
from models.rnn.seq2seq import Seq2Seq
from models.rnn.translator import Translator
from models.transformer.model import Transformer
from models.transformer.positional import sinusoidal_encoding
from models.transformer.pretrained import EncoderAttention
from models.transformer.translator import TransformerTranslator
from tests.helpers_seq2seq import tiny_config, tiny_tokenizers
from tests.tiny_captions import tiny_model
from tests.tiny_transformer import tiny_transformer_config
from viz import views
from viz.behaviours import Chart
from viz.describe import chart_text
from viz.standalone import plotly_js, standalone_html

HOSTILE = "<img src=x onerror=alert(1)>"
SENTENCE = "a black dog runs on the green grass ."


@pytest.fixture(scope="module")
def tokenizers(tmp_path_factory):
    return tiny_tokenizers(tmp_path_factory.mktemp("tok"))


def _translator(tokenizers, attention: str) -> Translator:
    torch.manual_seed(0)
    return Translator(Seq2Seq(tiny_config(attention)), *tokenizers, attention)


@pytest.fixture(scope="module")
def translation(tokenizers):
    return _translator(tokenizers, "bahdanau").translate(SENTENCE)


@pytest.fixture(scope="module")
def local_translation(tokenizers):
    return _translator(tokenizers, "local-p").translate(SENTENCE)


@pytest.fixture(scope="module")
def transformer(tokenizers):
    torch.manual_seed(0)
    model = Transformer(tiny_transformer_config())
    return TransformerTranslator(model, *tokenizers, "tiny").translate(SENTENCE)


@pytest.fixture(scope="module")
def encoder(transformer):
    """An encoder's result as the Multi-head page gets it, from the tiny model's weights."""
    tokens = transformer.source_tokens
    n = len(tokens)
    special = np.array([t == "</s>" for t in tokens])
    return EncoderAttention("tiny", tokens, transformer.encoder_self, special, False, n, n)


@pytest.fixture(scope="module")
def caption():
    model, vocab = tiny_model("hard")
    features = torch.randn(1, 196, 112, generator=torch.Generator().manual_seed(3))
    return describe(model, features, vocab, samples=3, seed=1)


def _texts(fig: go.Figure) -> str:
    """Every label the figure carries (ticks, text, hover, titles), as one string."""
    return json.dumps(fig.to_plotly_json(), default=str, ensure_ascii=False)


def _has_tokens(chart: Chart, tokens: list[str]) -> None:
    assert isinstance(chart, Chart) and isinstance(chart.figure, go.Figure)
    text = _texts(chart.figure)
    missing = [t for t in tokens if html.escape(t, quote=False) not in text and t not in text]
    assert not missing, missing


def test_the_models_results_are_the_views_results(translation, encoder, caption):
    assert isinstance(translation, views.AlignmentResult)
    assert isinstance(encoder, views.SelfAttentionResult)
    assert isinstance(caption, views.CaptionAttention)
    assert isinstance(dot_sample(4, n=10), views.DotSampleResult)
    assert not isinstance(caption, views.AlignmentResult)


def test_alignment_views(translation):
    tokens = translation.source_tokens + translation.target_tokens
    heatmap = views.alignment_view(translation)
    _has_tokens(heatmap, tokens)
    assert heatmap.behaviours.link is not None  # linked with the lines, as on the page
    assert np.allclose(np.asarray(heatmap.figure.data[0].z, dtype=float), translation.weights)
    _has_tokens(views.alignment_lines_view(translation, threshold=0.0), tokens)


def test_head_views_from_a_result_and_from_an_array(encoder, transformer):
    tokens = encoder.tokens
    for chart in (
        views.head_view(encoder, layer=1),
        views.head_view(encoder.attentions, tokens, layer=1, heads=[0, 2]),
        views.head_map_view(encoder, layer=1, head=3),
        views.model_view(encoder),
    ):
        assert chart_text(chart.figure).name  # a title, not the generic "A chart"
        assert chart_text(chart.figure).name != "A chart"
    _has_tokens(views.head_map_view(encoder, layer=1, head=3), tokens)
    _has_tokens(views.head_view(encoder), tokens)
    cross = views.head_map_view(
        transformer.cross, transformer.target_tokens, key_tokens=transformer.source_tokens
    )
    _has_tokens(cross, transformer.source_tokens + transformer.target_tokens)
    with pytest.raises(ValueError, match="layer 5"):
        views.head_view(encoder, layer=5)
    with pytest.raises(ValueError, match="tokens"):
        views.head_view(encoder.attentions)


def test_caption_views(caption):
    image = np.zeros((224, 224, 3), dtype=np.uint8)
    player = views.caption_view(image, caption)
    assert player.behaviours.play is not None and player.figure.frames
    _has_tokens(player, caption.words)
    _has_tokens(views.gate_view(caption), caption.words)
    assert views.alpha_sum_view(caption).figure.data[0].type == "heatmap"


def test_positional_local_and_scaling_views(local_translation, translation):
    pe = sinusoidal_encoding(8, 6).numpy()
    fig = views.positional_encoding_view(pe).figure
    assert "8" in fig.layout.title.text and fig.layout.xaxis.title.text
    tokens = local_translation.source_tokens + local_translation.target_tokens
    _has_tokens(views.local_window_view(local_translation), tokens)
    steps = views.local_steps_view(local_translation, step=1)
    assert steps.behaviours.play is not None and steps.figure.frames
    with pytest.raises(ValueError, match="local"):
        views.local_window_view(translation)
    hist = views.variance_view([dot_sample(4, n=50), dot_sample(64, n=50)], scaled=True)
    assert [t.name for t in hist.figure.data] == ["d_k = 4", "d_k = 64"]
    sat = views.saturation_view(saturation(dims=(2, 8), n_keys=4, n_seeds=2), measure="entropy")
    assert sat.figure.layout.yaxis.title.text and len(sat.figure.data) == 2


def test_views_speak_the_current_language(encoder):
    with use_language("zh"):
        title = chart_text(views.head_map_view(encoder).figure).name
    assert re.search(r"[\u4e00-\u9fff]", title), title


def _outside_plotly(page: str) -> str:
    """The page without plotly.js's own text (which holds URL strings that it never loads)."""
    start = page.index('<script id="atlas-plotly">')
    return page[:start] + page[page.index("</script>", start) :]


def test_standalone_html_is_one_offline_page(translation):
    hostile = views.alignment_view(
        type(translation)(
            **{**translation.__dict__, "source_tokens": [HOSTILE, *translation.source_tokens[1:]]}
        )
    )
    page = standalone_html(hostile, lang="zh")
    assert page.startswith("<!DOCTYPE html>") and '<html lang="zh-Hans">' in page
    assert plotly_js()[:2000] in page  # the bundle is inlined
    rest = _outside_plotly(page)
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", rest, re.IGNORECASE)
    assert not re.search(r"https?://", rest)
    assert HOSTILE not in rest  # escaped in the text, \u003c in the figure's JSON
    assert "&lt;img src=x onerror=alert(1)&gt;" in rest
    assert "<table>" in rest and "<caption>" in rest and '<h1 id="atlas-name">' in rest
    assert rest.count("</script>") == 3  # plotly.js, the figure, the drawing: none closed early
    figure = re.search(r'id="atlas-figure">(.*?)</script>', rest, re.DOTALL).group(1)
    assert json.loads(figure)["data"][0]["type"] == "heatmap"


def test_standalone_html_of_a_bare_figure_and_a_bad_language():
    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]), layout={"title": {"text": "Bars"}})
    page = standalone_html(fig)
    assert "<title>Bars</title>" in page and '<html lang="en">' in page
    with pytest.raises(ValueError, match="language"):
        standalone_html(fig, lang="fr")


def test_the_skeleton_is_the_components():
    from atlas_plotly import ASSETS

    skeleton = (ASSETS / "standalone.html").read_text(encoding="utf-8")
    script = (ASSETS / "standalone.js").read_text(encoding="utf-8")
    assert "standalone.html" in script  # the browser fills the same file
    for element in ("atlas-name", "atlas-summary", "atlas-numbers", "atlas-figure", "atlas-plotly"):
        assert skeleton.count(f'id="{element}"') == 1
        assert element in script
    assert not re.search(r"https?://", skeleton)
    assert Path(ASSETS / "describe.js").read_text(encoding="utf-8").count("atlas-html-button") >= 2
