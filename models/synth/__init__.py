"""Synthetic sheets: rendered look-alike printings, hand-drawn games, phone photos, truth.

Public API (stable):

- ``make_photo(seed, difficulty) -> (bgr, truth)``: a phone photo or flatbed scan as the
  user sees it (EXIF orientation applied). ``neighbour_monsters=P`` (here and in
  ``make_view``) has a neighbour draw the monsters on a share P of the sheets, as in a
  game of several players.
- ``write_sample(path, seed, difficulty) -> truth``: the JPEG (maybe stored turned with an
  EXIF orientation tag) and ``<name>.json``.
- ``make_view(seed, difficulty) -> (bgr, truth)``: FAST mode, the scanner's canonical view.

Truth keys: seed, difficulty, style, monster_style (the style the monsters are drawn in),
monsters_by ("owner" or "neighbour"), side, grid (11 strings), season_grids (4 x 11),
coins, season_coins (4), cards {"A".."D": id}, written {"seasons": [{card1, card2, coins,
monsters, total} x 4], "total"}, grid_corners ([x, y] x 4: top-left next to A1, top-right,
bottom-right, bottom-left), lattice (12 x 12 x [x, y], row-major from the A1 corner),
exif_orientation, image_size [w, h]. Image coordinates follow OpenCV (pixel (i, j)'s
centre is the point (i, j)) in the displayed (EXIF-applied) image.
Difficulties: clean (scan-like), normal (typical phone photo), hard.
"""

from models.synth.photo import DIFFICULTIES, make_photo, write_sample
from models.synth.view import make_view

__all__ = ["DIFFICULTIES", "make_photo", "make_view", "write_sample"]

VERSION = "29"  # bump when the rendering changes enough to invalidate cached training sets
