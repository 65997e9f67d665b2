"""scanner.bend.lattice_stages and benchmarks/lattice_stages.py, on kept renders."""

import numpy as np
import pytest

from benchmarks.lattice_stages import stage_errors
from benchmarks.measure_scanner import cell_centre_error
from scanner.bend import lattice_stages, with_lattice
from scanner.detect import find_grid
from scanner.load import load_photo
from scanner.pipeline import scan_photo
from tests.pinned_renders import pinned_photo

# (seed, synthesis, the step that ends the lattice): tuning photos kept as they were drawn;
# 304012 is bent well beyond flat, 300053 nearly flat (tests/test_scanner_synth.py).
CASES = [(304_012, 25, "held to the bend"), (300_053, 29, "flat")]


@pytest.mark.parametrize("seed, synthesis, last", CASES)
def test_the_last_step_is_the_lattice_the_fit_keeps(seed, synthesis, last):
    path, _ = pinned_photo("hard", seed, synthesis)
    detection = find_grid(load_photo(path).image, lattice=False)
    stages = lattice_stages(detection.pyramid, detection.best)
    assert [name for name, _ in stages] == ["measured", "pass 1", "pass 2", last]
    kept = with_lattice(detection.pyramid, detection.best).lattice
    assert np.array_equal(stages[-1][1], kept)
    assert all(lattice.shape == (12, 12, 2) for _, lattice in stages)


def test_the_benchmark_measures_each_step_as_measure_scanner_measures_the_scan():
    path, truth = pinned_photo("hard", 304_012, 25)
    errors = dict(stage_errors(path, truth))
    assert list(errors) == ["measured", "pass 1", "pass 2", "held to the bend", "kept"]
    scan = scan_photo(path)
    lattice = np.array(truth["lattice"], float)
    kept = min(cell_centre_error(np.rot90(scan.lattice, k, axes=(0, 1)), lattice) for k in range(4))
    assert errors["kept"] == pytest.approx(kept, abs=1e-9)
    # The last step, mapped to the photo's full resolution, is the scan's own lattice.
    assert errors["held to the bend"] == pytest.approx(kept, abs=1e-6)
    # The docstring of tests/test_scanner_synth.py: this photo's lattice is 0.075 off.
    assert kept < 0.1
