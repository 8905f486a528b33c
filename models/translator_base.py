"""What the RNN and Transformer translators share: the source sentence as the encoder reads it
(tokenized once, cut to the model's limit, ``</s>`` appended; a :class:`models.sentence.Sentence` is
read as its text box cleaned it, a bare ``str`` is cleaned by the tokenizer) and the target forced on the
decoder. :class:`models.rnn.translator.Translator` and
:class:`models.transformer.translator.TransformerTranslator` build on :class:`TranslatorBase`.
:func:`sentence_bleu` scores one translation against its reference (the pages, the lessons and
``training.choose_why_example`` score alike).
"""

from __future__ import annotations

from dataclasses import dataclass

import sacrebleu
import torch
from torch import nn

from i18n import _
from models.sentence import Sentence, as_sentence
from models.tokenizer import EOS_ID, SubwordTokenizer


@dataclass(frozen=True)
class Source:
    """One source sentence for the encoder.

    ids: the S piece ids read, the first ``max_src_len`` pieces then ``</s>``.
    src: (1, S) those ids as a batch of one; lengths: (1,) = [S].
    n_pieces: pieces before the cut; truncated: n_pieces > max_src_len.
    """

    ids: list[int]
    src: torch.Tensor
    lengths: torch.Tensor
    n_pieces: int
    truncated: bool


class TranslatorBase:
    """A loaded translator: the model (in eval mode) and its source and target tokenizers.

    The model's config has ``max_src_len`` (longer sources are cut) and ``max_tgt_len``.
    """

    def __init__(
        self, model: nn.Module, src_tok: SubwordTokenizer, tgt_tok: SubwordTokenizer, name: str
    ) -> None:
        self.model, self.src_tok, self.tgt_tok = model.eval(), src_tok, tgt_tok
        self.name = name

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _source(self, text: Sentence | str) -> Source:
        """The English ``text`` as the encoder reads it, tokenized once; ValueError when it is
        empty."""
        sentence = as_sentence(text)
        if not sentence.text:
            raise ValueError(_("the sentence is empty: type an English sentence to translate"))
        pieces = self.src_tok.encode(sentence)
        limit = self.model.cfg.max_src_len
        ids = pieces[:limit] + [EOS_ID]
        return Source(
            ids=ids,
            src=torch.tensor([ids], device=self.device),
            lengths=torch.tensor([len(ids)], device=self.device),
            n_pieces=len(pieces),
            truncated=len(pieces) > limit,
        )

    def _target(self, target: Sentence | str) -> list[int]:
        """The French ``target`` to force: its ids cut to the length limit, then ``</s>``;
        ValueError when it is empty."""
        sentence = as_sentence(target)
        if not sentence.text:
            raise ValueError(_("the reference translation is empty: type a French sentence"))
        return self.tgt_tok.encode(sentence)[: self.model.cfg.max_tgt_len - 1] + [EOS_ID]


def sentence_bleu(hypothesis: str, reference: str) -> float:
    """sacreBLEU sentence-level BLEU (13a, cased) of one hypothesis against one reference."""
    return float(sacrebleu.sentence_bleu(hypothesis, [reference]).score)
