"""The Transformer (Vaswani et al. 2017): our small translator, positional encodings, and the pretrained encoder."""
