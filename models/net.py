"""The cell classifier network (torch, training only; the scanner runs the ONNX export).

A small plain CNN on the ``3 x 48 x 48`` ink-amount image of one cell and its margin
(:mod:`scanner.normalize`), plus one scalar input saying whether the layout prints a
ruins icon in that cell. The flag enters after the convolutions, so the network learns
to look past the icon rather than to find it. Size and depth were chosen by timing
onnxruntime on this machine (~10 ms for a sheet of 121 cells on one thread, ~170k
parameters): the stride-2 first layer and the 24 x 24 stage dominate the cost.
"""

from __future__ import annotations

import torch
from torch import nn

from scanner.normalize import CLASSES, FEATURES_OUTPUT, IMAGE_INPUT, INPUT_PX, RUINS_INPUT

#: (out channels, stride) per 3x3 conv, "P" for a 2x2 max-pool.
LAYERS: tuple = ((16, 2), (32, 1), "P", (48, 1), "P", (96, 1), "P", (128, 1))


def _conv(cin: int, cout: int, stride: int) -> list[nn.Module]:
    return [
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    ]


class CellNet(nn.Module):
    """Logits over :data:`scanner.normalize.CLASSES` for a batch of cells."""

    def __init__(self, layers: tuple = LAYERS, n_classes: int = len(CLASSES)) -> None:
        super().__init__()
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
        self.dropout = nn.Dropout(0.2)
        self.ruins_embed = nn.Linear(1, channels)
        self.head = nn.Linear(channels, n_classes)

    def embed(self, image: torch.Tensor, ruins: torch.Tensor) -> torch.Tensor:
        """The pooled feature vector the head reads (exported as :data:`FEATURES_OUTPUT`)."""
        h = self.features(image).mean(dim=(2, 3))
        # The ruins flag shifts the pooled features (learned), then a linear read-out.
        return torch.relu(h + self.ruins_embed(ruins))

    def forward(self, image: torch.Tensor, ruins: torch.Tensor) -> torch.Tensor:
        return self.head(self.dropout(self.embed(image, ruins)))


class _WithFeatures(nn.Module):
    """Export wrapper: logits and the pooled features, for the sheet-consistency step."""

    def __init__(self, model: CellNet) -> None:
        super().__init__()
        self.model = model

    def forward(self, image: torch.Tensor, ruins: torch.Tensor):
        h = self.model.embed(image, ruins)
        return self.model.head(h), h


def export_onnx(model: CellNet, path: str, opset: int = 17) -> None:
    """Write ``model`` as ONNX (one file, dynamic batch, inputs ``image`` and ``ruins``).

    Outputs ``logits`` and :data:`FEATURES_OUTPUT` (the pooled vector the head reads).
    """
    model.eval()
    image = torch.zeros(2, 3, INPUT_PX, INPUT_PX)
    ruins = torch.zeros(2, 1)
    torch.onnx.export(
        _WithFeatures(model).eval(),
        (image, ruins),
        path,
        dynamo=False,
        opset_version=opset,
        input_names=[IMAGE_INPUT, RUINS_INPUT],
        output_names=["logits", FEATURES_OUTPUT],
        dynamic_axes={
            IMAGE_INPUT: {0: "cells"},
            RUINS_INPUT: {0: "cells"},
            "logits": {0: "cells"},
            FEATURES_OUTPUT: {0: "cells"},
        },
        do_constant_folding=True,
    )
