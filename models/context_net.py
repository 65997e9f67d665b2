"""The sheet-context net (torch, training only): a cell's terrain read among its sheet.

Each of a sheet's 121 cells is one token: the cell model's 160 features and 8
log-probabilities, the printed terrain under it (free, mountain, wasteland, ruins),
the side, and (with ``positions``) its row and column. A small transformer
encoder lets every cell look at the others; the output adds to the cell model's
logits, starting from zero, so an untrained net changes nothing. Inference runs the
ONNX export in :mod:`scanner.context`; the input names below are shared with it.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from scanner.cell_model import MODEL_PATH
from scanner.context import (
    CELL_MODEL_KEY,
    FEATURES_INPUT,
    LOG_PROBS_INPUT,
    N_FEATURES,
    PRINTED_INPUT,
    SIDE_INPUT,
    TERRAINS,
    drawn_terrain,
    file_sha256,
)
from scanner.normalize import CLASSES
from scoring.layouts import SIZE

#: Printed kinds, :func:`scanner.context.printed_kinds`: free, mountain, wasteland, ruins.
KINDS = 4


class _SheetNet(nn.Module):
    """What the context nets share: a cell's reading as a vector (its log-probabilities,
    the printed kind, the side), and a head that starts at zero, so that an untrained
    net returns the cell model's own logits. A subclass's :meth:`mix` turns the sheet's
    cells into one vector each."""

    def __init__(self, width: int):
        super().__init__()
        self.features_norm = nn.LayerNorm(N_FEATURES)
        self.probs_in = nn.Linear(len(CLASSES), width)
        self.printed = nn.Embedding(KINDS, width)
        self.side = nn.Embedding(2, width)
        self.head = nn.Linear(width, len(CLASSES))
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def reading(self, log_probs: torch.Tensor, printed: torch.Tensor, side: torch.Tensor):
        return self.probs_in(log_probs) + self.printed(printed) + self.side(side)[:, None, :]

    def mix(self, log_probs, features, printed, side) -> torch.Tensor:
        raise NotImplementedError

    def forward(self, log_probs, features, printed, side) -> torch.Tensor:
        """``(B, 121, 8)``, ``(B, 121, 160)``, ``(B, 121)``, ``(B,)`` -> ``(B, 121, 8)`` logits."""
        return log_probs + self.head(self.mix(log_probs, features, printed, side))


class ContextNet(_SheetNet):
    """Every cell a token of its features and reading (and, with ``positions``, its row
    and column), through a transformer encoder."""

    def __init__(self, width: int = 64, layers: int = 2, heads: int = 4, positions: bool = False):
        super().__init__(width)
        self.features_in = nn.Linear(N_FEATURES, width)
        self.positions = positions
        self.row = nn.Embedding(SIZE, width)
        self.col = nn.Embedding(SIZE, width)
        layer = nn.TransformerEncoderLayer(
            width, heads, 2 * width, dropout=0.1, batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        index = torch.arange(SIZE * SIZE)
        self.register_buffer("rows", index // SIZE, persistent=False)
        self.register_buffer("cols", index % SIZE, persistent=False)

    def mix(self, log_probs, features, printed, side) -> torch.Tensor:
        x = self.features_in(self.features_norm(features)) + self.reading(log_probs, printed, side)
        if self.positions:
            x = x + self.row(self.rows) + self.col(self.cols)
        return self.encoder(x)


class VoteNet(_SheetNet):
    """A learned look-alike vote: a cell's own features never reach its output directly.

    The attention between cells is computed from their features (which cells look
    alike); what flows between them is their readings (log-probabilities, printed
    kind, side), updated layer by layer. A cell's output is its own log-probabilities
    plus what its look-alikes' readings say, so the net can learn how a sheet's designs
    vote but not one renderer's looks. Same inputs and output as :class:`ContextNet`.
    """

    def __init__(self, width: int = 64, layers: int = 2, heads: int = 4, positions: bool = False):
        super().__init__(width)
        if positions:
            raise ValueError("the vote net has no positions")
        self.looks = nn.Linear(N_FEATURES, width)
        self.attend = nn.ModuleList(
            nn.MultiheadAttention(width, heads, dropout=0.1, batch_first=True)
            for _ in range(layers)
        )
        self.norms = nn.ModuleList(nn.LayerNorm(width) for _ in range(layers))
        self.feed = nn.ModuleList(
            nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))
            for _ in range(layers)
        )
        self.register_buffer("alone", torch.eye(SIZE * SIZE, dtype=torch.bool), persistent=False)

    def mix(self, log_probs, features, printed, side) -> torch.Tensor:
        looks = self.looks(self.features_norm(features))
        reading = self.reading(log_probs, printed, side)
        for attend, norm, feed in zip(self.attend, self.norms, self.feed, strict=True):
            heard, _ = attend(looks, looks, reading, attn_mask=self.alone, need_weights=False)
            reading = reading + heard
            reading = reading + feed(norm(reading))
        return reading


class ContextMean(nn.Module):
    """Several context nets as one: the mean of their logits (trained with other seeds,
    their mistakes differ more than their right readings do)."""

    def __init__(self, nets: list[_SheetNet]):
        super().__init__()
        self.nets = nn.ModuleList(nets)

    def forward(self, log_probs, features, printed, side):
        outs = [net(log_probs, features, printed, side) for net in self.nets]
        return torch.stack(outs).mean(dim=0)


#: The context nets ``models.train_context --net`` can train.
NETS = {"context": ContextNet, "votes": VoteNet}


def terrain_loss(logits: torch.Tensor, labels: torch.Tensor, printed: torch.Tensor) -> torch.Tensor:
    """Cross-entropy among the five terrains on the free cells drawn with one: the net
    re-reads which terrain a drawn cell is, never whether it is drawn."""
    drawn = drawn_terrain(labels, printed)
    return nn.functional.cross_entropy(logits[..., TERRAINS][drawn], labels[drawn] - TERRAINS.start)


def export_context_onnx(net: nn.Module, path: str, cell_model: Path | None = None) -> None:
    """Write ``net`` as ONNX (one sheet a call, opset 17, inputs named as
    :mod:`scanner.context` feeds them), stamped with the cell model it reads
    (:func:`stamp`; default the committed one)."""
    net.eval()
    n = SIZE * SIZE
    example = (
        torch.zeros(1, n, len(CLASSES)),
        torch.zeros(1, n, N_FEATURES),
        torch.zeros(1, n, dtype=torch.int64),
        torch.zeros(1, dtype=torch.int64),
    )
    torch.onnx.export(
        net,
        example,
        path,
        dynamo=False,
        opset_version=17,
        input_names=[LOG_PROBS_INPUT, FEATURES_INPUT, PRINTED_INPUT, SIDE_INPUT],
        output_names=["logits"],
    )
    stamp(path, cell_model or MODEL_PATH)


def stamp(path: str | Path, cell_model: Path) -> None:
    """Record in the ONNX file at ``path`` the SHA-256 of the cell model whose features
    it reads: :func:`scanner.context.fits` leaves the step out for any other."""
    import onnx

    model = onnx.load(str(path))
    props = {p.key: p.value for p in model.metadata_props}
    props[CELL_MODEL_KEY] = file_sha256(cell_model)
    onnx.helper.set_model_props(model, props)
    onnx.save(model, str(path))
