"""Torch weights back from an ONNX export of :class:`models.net.CellNet`, to train on.

The export folds each batch norm into the convolution before it, so the file holds
one weight and one bias per convolution. Those weights go back into the convolutions,
and each batch norm is set so that it undoes its own normalisation on the given
calibration cells: its scale and shift are those cells' per-channel spread and mean
(plus the folded bias). In evaluation mode the rebuilt net computes the export's
function exactly; in training mode, on batches like the calibration cells, nearly so,
so training can go on from a committed model whose ``.pt`` is gone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def state_from_onnx(path: Path, layers: tuple, pool: str, calibration: np.ndarray) -> dict:
    """A state dict for ``CellNet(layers, pool=pool)`` computing the export at ``path``.

    Parameters
    ----------
    path : an ONNX file written by :func:`models.net.export_onnx` for this architecture.
    layers, pool : the net's architecture (:data:`models.net.LAYERS`, :data:`models.net.POOL`).
    calibration : (N, 48, 48, 3) uint8 training cells whose batch statistics the batch
        norms take (a few thousand is plenty).
    """
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    from models.net import CellNet
    from scanner.normalize import to_tensor

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    net = CellNet(layers, pool=pool)
    state = net.state_dict()
    for name in state:
        if name in weights:  # the linear layers keep their names in the export
            state[name] = torch.from_numpy(weights[name].copy())
    net.load_state_dict(state)
    stages = list(net.features)
    n_convs = sum(isinstance(m, nn.Conv2d) for m in stages)
    if n_convs != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, the net has {n_convs}")
    h = torch.from_numpy(to_tensor(calibration))
    k = 0
    with torch.no_grad():
        for i, stage in enumerate(stages):
            if not isinstance(stage, nn.Conv2d):
                if not isinstance(stage, (nn.BatchNorm2d, nn.ReLU)):
                    h = stage(h)
                continue
            stage.weight.copy_(torch.from_numpy(weights[convs[k].input[1]].copy()))
            bias = torch.from_numpy(weights[convs[k].input[2]].copy())
            z = stage(h)
            mean, var = z.mean(dim=(0, 2, 3)), z.var(dim=(0, 2, 3), unbiased=False)
            norm = stages[i + 1]
            norm.weight.copy_(torch.sqrt(var + norm.eps))
            norm.bias.copy_(mean + bias)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            h = torch.relu(z + bias[None, :, None, None])
            k += 1
    return net.state_dict()
