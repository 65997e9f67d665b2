"""benchmarks/same_outputs.py: a record read back from JSON compares bit for bit."""

import json

import numpy as np

from benchmarks.same_outputs import _plain, differences


def _reading(fit: float) -> dict:
    lattice = np.linspace(0.0, 1.0, 12 * 12 * 2).reshape(12, 12, 2) / 3
    return json.loads(json.dumps({"fit": fit, "lattice": _plain(lattice), "coins": 7}))


def test_a_record_read_back_is_the_same_as_the_run_it_came_from():
    assert differences({"a.jpg": _reading(0.9)}, {"a.jpg": _reading(0.9)}) == []


def test_a_float_one_bit_off_is_a_difference():
    nudged = np.nextafter(0.9, 1.0)
    assert differences({"a.jpg": _reading(0.9)}, {"a.jpg": _reading(nudged)}) == [
        "a.jpg: fit differs"
    ]


def test_a_photo_read_on_one_side_only_is_named():
    assert differences({"a.jpg": _reading(0.9)}, {}) == ["a.jpg: only in the record"]
