"""Every input limit of the atlas, defined once: how many characters a text box reads, how wide a
beam a model searches, how many pieces an encoder reads. The models check theirs (``check_beam``,
the tokenizers' cut) and the pages' boxes, sliders and link checks import the same numbers, so a
widget never offers what the model refuses (HOUSE_STYLE.md, "One way to do each thing").
"""

from __future__ import annotations

# ---------------------------------------------------------------- characters per text box
# Longer text is cut with a notice (ui.text.read_text), never refused.

# An English sentence for the translators (Alignment, Local, Why attention, Recurrent, Why √d_k,
# the lessons): they read at most ``max_src_len`` (100) subword pieces, about 500 characters, so
# 2,000 keep a pasted paragraph whole enough to show the models' own cut and its notice.
TRANSLATION_CHARS = 2000
# The Multi-head page's sentence: the pretrained encoder reads up to ENCODER_PIECES pieces (about
# 2,000 characters of English), so 5,000 let its own cut, and its notice, show.
ENCODER_CHARS = 5000
# The Positional encoding page's shuffled sentence: PERMUTATION_TOKENS words fit in far fewer.
POSITIONAL_CHARS = 300

# ---------------------------------------------------------------- tokens and pieces

# Words the permutation demo shuffles: its two T x T maps stay legible up to 40 x 40.
PERMUTATION_TOKENS = 40
# Pieces a BERT-style encoder reads: its position table has 512 rows; longer input is cut.
ENCODER_PIECES = 512

# ---------------------------------------------------------------- beam widths

# The translators (the RNNs and the Transformer): the Alignment page lists every hypothesis of
# the beam with its alignment, and ten stay readable side by side.
TRANSLATOR_BEAM = 10
# The Multi-head page's Transformer: it shows one translation's attention, so it offers the beam
# the cards' BLEU is measured at (docs/models.md); the model itself takes up to TRANSLATOR_BEAM.
MULTI_HEAD_BEAM = 5
# The captioners: every hypothesis repeats the image's 196-location memory and runs its own LSTM
# step, on the server's CPU in a class.
CAPTIONER_BEAM = 5
