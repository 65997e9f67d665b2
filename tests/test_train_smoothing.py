"""Label smoothing in training (models.train.train): it caps how sure the model gets."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")  # the [train] extra

from models.cell_data import CellSet  # noqa: E402
from models.train import train  # noqa: E402
from scanner.normalize import CLASSES, INPUT_PX, PAPER_LEVEL, to_tensor  # noqa: E402


def _two_kinds(n: int = 64) -> CellSet:
    """Blank paper (empty) and a dark cross (forest): trivially told apart."""
    img = np.full((n, INPUT_PX, INPUT_PX, 3), int(PAPER_LEVEL), np.uint8)
    img[n // 2 :, 18:30, :] = 30
    img[n // 2 :, :, 18:30] = 30
    labels = np.where(np.arange(n) < n // 2, CLASSES.index("."), CLASSES.index("T"))
    return CellSet(
        images=img,
        labels=labels.astype(np.int64),
        ruins=np.zeros((n, 1), np.float32),
        sheet=np.zeros(n, np.int32),
        style=["test"],
        difficulty=["clean"],
        side=["A"],
    )


def _top_probability(smoothing: float) -> np.ndarray:
    data = _two_kinds()
    model = train(
        data,
        data,
        steps=40,
        batch=32,
        lr=3e-3,
        seed=0,
        threads=1,
        evals=1,
        mix_share=0.0,
        log=lambda *_: None,
        label_smoothing=smoothing,
    )
    with torch.no_grad():
        logits = model(torch.from_numpy(to_tensor(data.images)), torch.from_numpy(data.ruins))
    probs = torch.softmax(logits, 1).numpy()
    assert (probs.argmax(1) == data.labels).all()
    return probs.max(1)


def test_smoothing_keeps_the_model_from_certainty():
    # Smoothing s aims the true class at 1 - s + s / K: 0.5625 for s = 0.5 and 8 classes.
    assert _top_probability(0.5).max() < 0.7
    assert _top_probability(0.0).min() > 0.9
