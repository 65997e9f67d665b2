"""The cell classifier network (torch, training only; the scanner runs the ONNX export).

A small plain CNN on the ``3 x 48 x 48`` ink-amount image of one cell and its margin
(:mod:`scanner.normalize`), plus one scalar input saying whether the layout prints a
ruins icon in that cell. The flag enters after the convolutions, so the network learns
to look past the icon rather than to find it. Size and depth were chosen by timing
onnxruntime on this machine (~10 ms for a sheet of 121 cells on one thread, ~170k
parameters): the stride-2 first layer and the 24 x 24 stage dominate the cost. Since
the scanner runs the 8-bit copy (twice as fast), session 14 widened the net 1.25 times
(``python -m models.train --width W`` scales every conv again).

``POOL`` says how the last stage's ``3 x 3`` map becomes the feature vector: ``"mean"``
averages it (the cell and its margin, where neighbours' strokes cross in, alike);
``"flat"`` reads the whole map with one linear layer, so the model can weigh the cell's
middle apart from its edges, for about 2 % more model time.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from scanner.normalize import CLASSES, IMAGE_INPUT, INPUT_PX, RUINS_INPUT

#: (out channels, stride) per 3x3 conv, "P" for a 2x2 max-pool. Session 14 widened the
#: sessions 9-13 net ``((16, 2), (32, 1), "P", (48, 1), "P", (96, 1), "P", (128, 1))`` by
#: 1.25 (:func:`widened`): 274k parameters, 8-bit ``classify_cells`` 10.3 against 9.5 ms.
LAYERS: tuple = ((16, 2), (40, 1), "P", (64, 1), "P", (120, 1), "P", (160, 1))
#: How the last conv map becomes the feature vector: "mean" (global average) or "flat".
POOL = "mean"


def widened(layers: tuple, factor: float) -> tuple:
    """``layers`` with every conv's channel count times ``factor`` (a multiple of 8)."""
    return tuple(
        spec if spec == "P" else (max(8, int(round(spec[0] * factor / 8)) * 8), spec[1])
        for spec in layers
    )


def first_pooled(layers: tuple) -> tuple:
    """``layers`` with the first conv at stride 1 followed by a 2x2 max-pool.

    The pooled map has the stride-2 conv's size, but every stroke is seen at the
    input's full resolution first (for thin graphite lines a pixel or two apart), for
    about 1.7 times the 8-bit model time.
    """
    out, stride = layers[0]
    if stride != 2:
        raise ValueError(f"the first conv has stride {stride}, not 2")
    return ((out, 1), "P") + tuple(layers[1:])


def output_side(layers: tuple = LAYERS, side: int = INPUT_PX) -> int:
    """Side of the last conv map for an input of ``side`` pixels (3x3 convs, padding 1)."""
    for spec in layers:
        side = side // 2 if spec == "P" else (side - 1) // spec[1] + 1
    return side


def _conv(cin: int, cout: int, stride: int) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class CellNet(nn.Module):
    """Logits over :data:`scanner.normalize.CLASSES` for a batch of cells."""

    def __init__(
        self, layers: tuple = LAYERS, n_classes: int = len(CLASSES), pool: str = POOL
    ) -> None:
        super().__init__()
        if pool not in ("mean", "flat"):
            raise ValueError(f"pool must be 'mean' or 'flat', not {pool!r}")
        mods: list[nn.Module] = []
        channels = 3
        for spec in layers:
            if spec == "P":
                mods.append(nn.MaxPool2d(2))
                continue
            out, stride = spec
            mods += _conv(channels, out, stride)
            channels = out
        self.features = nn.Sequential(*mods)
        self.pool = pool
        if pool == "flat":
            side = output_side(layers)
            self.squeeze = nn.Linear(channels * side * side, channels)
        self.dropout = nn.Dropout(0.2)
        self.ruins_embed = nn.Linear(1, channels)
        self.head = nn.Linear(channels, n_classes)

    def embed(self, image: torch.Tensor, ruins: torch.Tensor) -> torch.Tensor:
        """The pooled feature vector the head reads (exported as the features output)."""
        maps = self.features(image)
        h = self.squeeze(maps.flatten(1)) if self.pool == "flat" else maps.mean(dim=(2, 3))
        # The ruins flag shifts the pooled features (learned), then a linear read-out.
        return torch.relu(h + self.ruins_embed(ruins))

    def forward(self, image: torch.Tensor, ruins: torch.Tensor) -> torch.Tensor:
        return self.head(self.dropout(self.embed(image, ruins)))


def export_onnx(model: CellNet, path: str, opset: int = 17, px: int = INPUT_PX) -> None:
    """Write ``model`` as ONNX (one file, dynamic batch, inputs ``image`` and ``ruins``).

    Outputs ``logits`` and ``scanner.normalize.FEATURES_OUTPUT`` (the pooled vector the
    head reads, added by :func:`models.onnx_outputs.add_features_output`, so that a
    fresh export and an older one given the output have the same graph).
    """
    from models.onnx_outputs import add_features_output

    model.eval()  # no dropout in the exported graph
    image = torch.zeros(2, 3, px, px)
    ruins = torch.zeros(2, 1)
    torch.onnx.export(
        model,
        (image, ruins),
        path,
        dynamo=False,
        opset_version=opset,
        input_names=[IMAGE_INPUT, RUINS_INPUT],
        output_names=["logits"],
        dynamic_axes={IMAGE_INPUT: {0: "cells"}, RUINS_INPUT: {0: "cells"}, "logits": {0: "cells"}},
        do_constant_folding=True,
    )
    add_features_output(Path(path))
