"""Show, Attend and Tell (Xu et al. 2015): soft and hard attention over an image."""
