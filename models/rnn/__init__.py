"""Recurrent encoder-decoders with Bahdanau and Luong attention (Bahdanau et al. 2015; Luong et al. 2015)."""
