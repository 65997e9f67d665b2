"""The held-out renderer (benchmarks/heldout): deterministic, and its truth matches its pixels."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.heldout.render import render_photo, write_photo
from scanner.load import load_photo
from scoring.board import Map
from scoring.game import score_game
from scoring.layouts import LAYOUTS

SIZE = (900, 700)


@pytest.fixture(scope="module")
def hard_photo():
    return render_photo(11, "hard", SIZE)


def test_same_seed_same_photo(hard_photo):
    image, truth = hard_photo
    again, truth2 = render_photo(11, "hard", SIZE)
    assert truth == truth2
    assert np.array_equal(image, again)
    other, truth3 = render_photo(12, "hard", SIZE)
    assert truth3["grid"] != truth["grid"] or not np.array_equal(other, image)


def test_truth_is_a_legal_scored_sheet(hard_photo):
    image, truth = hard_photo
    assert image.shape == (SIZE[1], SIZE[0], 3)
    game_map = Map(tuple(truth["grid"]), LAYOUTS[truth["side"]])  # raises on a bad grid
    assert 0 <= truth["coins"] <= 14
    assert score_game([game_map], truth["cards"], truth["coins"]).total == truth["total"]
    lattice = np.array(truth["lattice"])
    assert lattice.shape == (12, 12, 2)
    assert (lattice[..., 0] > 0).all() and (lattice[..., 0] < SIZE[0] - 1).all()
    assert (lattice[..., 1] > 0).all() and (lattice[..., 1] < SIZE[1] - 1).all()


def _cell_point(lattice, r, c, u, v):
    """Photo point at fraction (u, v) inside cell (r, c), bilinear in its four corners."""
    a, b, d, e = lattice[r, c], lattice[r, c + 1], lattice[r + 1, c], lattice[r + 1, c + 1]
    return (1 - v) * ((1 - u) * a + u * b) + v * ((1 - u) * d + u * e)


def test_lattice_lands_on_the_printed_mountains(hard_photo):
    """Printed mountains are dark brown where the truth lattice says, paper is light elsewhere."""
    image, truth = hard_photo
    lattice = np.array(truth["lattice"])
    grey = image.astype(float).mean(axis=2)
    layout = LAYOUTS[truth["side"]]

    def sample(r, c):
        pts = [_cell_point(lattice, r, c, u, v) for u in (0.12, 0.25) for v in (0.12, 0.25, 0.88)]
        return np.median([grey[int(round(y)), int(round(x))] for x, y in pts])

    mountains = [sample(r, c) for r, c in layout.mountains]
    # empty cells of the final map away from printed icons
    empties = [
        sample(r, c)
        for r in range(11)
        for c in range(11)
        if truth["grid"][r][c] == "." and (r, c) not in layout.ruins
    ]
    assert empties, "the sample game left no empty cell"
    # at least four of the five (glare may wash one out)
    assert sorted(mountains)[3] < 0.75 * np.median(empties), (mountains, np.median(empties))


def test_exif_turned_file_reads_back_upright(tmp_path):
    """A file stored turned with an EXIF tag decodes to the rendered upright photo."""
    seed = next(s for s in range(200) if _exif_of(s) != 1)
    image, truth = render_photo(seed, "normal", SIZE)
    written = write_photo(tmp_path / "p.jpg", seed, "normal", SIZE)
    assert written == truth
    loaded = load_photo(tmp_path / "p.jpg", work_long_side=max(SIZE))
    assert loaded.image.shape[:2] == image.shape[:2]
    diff = np.abs(loaded.image[..., ::-1].astype(int) - image.astype(int)).mean()
    assert diff < 8, diff


def _exif_of(seed: int) -> int:
    from benchmarks.heldout import render

    # the EXIF tag is the last draw before the JPEG quality; find it without rendering
    return render.exif_tag(seed, "normal")


def test_the_frame_is_drawn_where_the_printed_sheet_has_it():
    """On the printed sheet the frame's inner line lies just outside the grid's edge
    (its inside edge on it) and the outer line about 0.195 cell out (measured against
    the dashed lines' spacing, scanner.geometry.FRAME_INNER_LINE / FRAME_OUTER_LINE)."""
    from benchmarks.heldout.render import play, render_sheet
    from scanner.geometry import FRAME_INNER_LINE, FRAME_OUTER_LINE

    rng = np.random.default_rng(5)
    sheet = render_sheet(rng, play(rng, "A", 1), 80.0, False)
    ink = 255 - sheet.image[..., :3].astype(float).mean(-1)
    lattice = sheet.lattice - 0.5  # drawn coordinates -> pixel centres
    cell = (lattice[0, -1, 0] - lattice[0, 0, 0]) / 11
    edge = lattice[0, 0, 1]
    cols = slice(int(lattice[0, 5, 0] + 0.2 * cell), int(lattice[0, 6, 0] - 0.2 * cell))
    for where in (FRAME_INNER_LINE, FRAME_OUTER_LINE):
        rows = np.arange(int(edge - (where + 0.06) * cell), int(edge - (where - 0.06) * cell) + 1)
        profile = ink[rows, cols].mean(axis=1)
        weight = np.clip(profile - 0.5 * profile.max(), 0, None)
        centre = (weight * rows).sum() / weight.sum()
        assert abs(centre - (edge - where * cell)) < 0.01 * cell, where


def test_photo_pixels_show_the_page_points_the_truth_puts_there():
    """The dense backward maps (photo pixel -> page point) invert the camera's forward
    mapping everywhere, so the photo's content lies where the truth lattice says."""
    from benchmarks.heldout.camera import Camera

    theta = 0.3
    homography = np.array(
        [[np.cos(theta), -np.sin(theta), 300.0], [np.sin(theta), np.cos(theta), 40.0], [1e-4, 0, 1]]
    )
    curl = (np.array([3.0, 2.0]), np.array([[0.01, 0.004], [0.003, 0.012]]), np.array([0.4, 1.1]))
    cam = Camera((1200, 900), homography, curl, -0.04)
    mx, my = cam.backward_maps()
    rng = np.random.default_rng(0)
    ys, xs = rng.integers(0, 900, 200), rng.integers(0, 1200, 200)
    page = np.stack([mx[ys, xs], my[ys, xs]], 1).astype(np.float64)
    back = cam.forward(page)
    err = np.linalg.norm(back - np.stack([xs, ys], 1), axis=1)
    # (the outermost half-step of pixels is extrapolated: a few stray tenths there)
    assert np.median(err) < 0.05 and np.percentile(err, 95) < 0.2, (np.median(err), err.max())


def _result(seed: int, coins: int, truth: int, seen: int = 14, note: bool = False) -> dict:
    """One photo's row as ``measure`` writes it: grid right, one cell read right."""
    return {
        "seed": seed,
        "found": True,
        "readable": True,
        "oriented": True,
        "side_ok": True,
        "coins": coins,
        "coins_truth": truth,
        "coins_seen": seen,
        "coin_note": note,
        "cells": [("T", "T", False, False)],
        "all_cells_right": True,
        "total_ok": coins == truth,
        "hand": "graphite",
        "ms": 50.0,
    }


def test_the_coin_figures_set_apart_photos_cut_off_above_the_track(capsys):
    """A photo that does not show the track cannot be read (the report says so); the
    figures say how the photos showing it went, and how many were wrong silently."""
    from benchmarks.heldout.measure import report

    report(
        [
            _result(1, 3, 3),
            _result(2, 0, 8, seen=0, note=True),  # track out of the photo: said so
            _result(3, 0, 14, note=True),  # an unsure count: said so
            _result(4, 2, 5),  # wrong, and nothing said
        ],
        "normal",
    )
    out = capsys.readouterr().out
    assert "coins right (of those):                 1/4 (25.0%)" in out
    assert "of photos showing the whole track:    1/3 (33.3%)" in out
    assert "wrong with no note in the report: 1" in out
