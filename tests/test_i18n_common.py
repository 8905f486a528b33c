"""The shared pieces in Chinese: a model's refusal (a ValueError that ``ui.guard`` turns
into the page's message) is worded in the session's language, and so are the checkpoint errors,
the model card's headline, the text notices, the error sentence, the shared charts' names and hover
text; a Chinese label gets the width of a full em in the charts' margins."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from i18n import use_language
from models.analysis.toy import permutation_demo
from models.attention import masked_softmax
from models.beam import check_beam
from models.checkpoints import Card, CheckpointError, read_card
from models.rnn.translator import Translator
from models.transformer.pretrained import PretrainedEncoder, unknown_encoder_message
from tests.tiny_seq2seq import build_tiny_checkpoints
from ui.errors import error_message
from ui.guard import guarded
from ui.text import TextBox, read_text, tokenize
from ui.translation import SENTENCE_BOX
from viz import matrix_heatmap, vector_diagram, weights_bar
from viz.measure import fitted_margin, text_px, widest_px


@pytest.fixture(scope="module")
def translator(tmp_path_factory: pytest.TempPathFactory) -> Translator:
    root = build_tiny_checkpoints(
        tmp_path_factory.mktemp("tiny_zh_refusals"), attentions=("luong-dot",)
    )
    return Translator.load(root / "seq2seq-luong-dot")


def _refusal(run) -> str:
    value, message = guarded(run)
    assert value is None and message
    return message


def test_an_empty_sentence_is_refused_in_chinese(translator: Translator):
    with use_language("zh"):
        assert _refusal(lambda: translator.translate("  ")) == "句子是空的：请输入要翻译的英文句子"
        assert (
            _refusal(lambda: translator.force("a dog runs", "")) == "参考译文是空的：请输入一句法语"
        )
        encoder = object.__new__(PretrainedEncoder)  # the check comes before the model is needed
        assert _refusal(lambda: encoder.attend(" ")) == "句子是空的：请输入一些文字"
        assert _refusal(lambda: permutation_demo([], with_pe=True)) == "至少需要一个词元"
    assert _refusal(lambda: translator.translate("  ")).startswith("The sentence is empty")
    assert _refusal(lambda: permutation_demo([], with_pe=True)) == "Need at least one token"


def test_other_refusals_are_in_chinese():
    everything_masked = torch.zeros(1, 3, dtype=torch.bool)
    with use_language("zh"):
        assert _refusal(lambda: check_beam(0, 10)) == "束宽必须在 1 到 10 之间，当前为 0"
        assert "遮蔽" in _refusal(lambda: masked_softmax(torch.zeros(1, 3), everything_masked))
        assert "温度" in _refusal(lambda: masked_softmax(torch.zeros(3), temperature=0.0))
        assert unknown_encoder_message(("a", "b")) == "本服务器提供这些编码器：a、b；请从中选择一个"
    assert _refusal(lambda: check_beam(0, 10)) == "Beam must be between 1 and 10, got 0"


def test_checkpoint_errors_and_headline_in_chinese(tmp_path: Path):
    card = Card(
        name="seq2seq-x",
        family="seq2seq",
        description="d",
        data={},
        commands=("c",),
        evaluate_commands=("e",),
        wall_time_s=1.0,
        metrics={"bleu_greedy": 30.0, "bleu_beam5": 31.5},
    )
    with use_language("zh"):
        with pytest.raises(CheckpointError) as missing:
            read_card(tmp_path / "seq2seq-x")
        assert missing.value.reason == "这里还没有构建检查点 seq2seq-x。"
        assert "重建命令：" in str(missing.value)
        assert card.headline() == "测试集 BLEU：贪心解码 30.0，束宽 5 的束搜索 31.5"
    assert card.headline() == "test BLEU 30.0 greedy, 31.5 beam 5"


def test_notices_and_error_sentence_in_chinese():
    with use_language("zh"):
        cut = read_text(TextBox(10, "-"), "x" * 12)
        assert cut.notice == "你的文本有 12 个字符；只使用前 10 个。"
        assert tokenize("a b c", 2)[1] == "共 3 个词元；只使用前 2 个。"
        assert read_text(SENTENCE_BOX, "  ").hint.startswith("句子是空的：请在上方的输入框中")
        sentence = error_message("0a1b2c3d")
        assert "**0a1b2c3d**" in sentence and "错误编号" in sentence
    assert read_text(SENTENCE_BOX, "  ").hint.startswith("The sentence is empty: type an")


def test_shared_charts_follow_the_language():
    with use_language("zh"):
        heat = matrix_heatmap([[0.12345, 0.87655]], ["a", "b"], ["q"])
        bars = weights_bar([0.25, 0.75], ["A", "B"])
        vectors = vector_diagram([1, 0], [[1, 0], [0, 1]], [[2, 0], [0, 2]], [1.5, 0.5], ["A", "B"])
    assert heat.data[0].customdata[0][1] == "查询：q<br>键：b<br>权重：0.877"
    assert heat.data[0].colorbar.title.text == "权重"
    assert bars.layout.yaxis.title.text == "权重" and "：" in bars.data[0].hovertemplate
    legend = [t.name for t in vectors.data if t.mode == "lines+markers"]
    assert legend == ["键", "值", "查询", "上下文向量"]
    english = matrix_heatmap([[0.5, 0.5]], ["a", "b"], ["q"])
    assert english.data[0].customdata[0][0] == "query: q<br>key: a<br>weight: 0.500"


def test_chinese_labels_are_measured_a_full_em_wide():
    assert text_px("注意力") >= 3 * 12  # 12 px font: each CJK character (and full-width mark) 1 em
    assert text_px("权重：") >= 3 * 12
    assert widest_px(["键 x"]) > widest_px(["key"])  # wider than three narrow Latin letters
    chinese, _angle = fitted_margin(["甲", "乙"], ["上下文向量"])
    latin, _angle = fitted_margin(["a", "b"], ["ctxvc"])
    assert chinese["l"] >= latin["l"] + 5 * 12 * 0.4  # five ems, not five narrow letters
