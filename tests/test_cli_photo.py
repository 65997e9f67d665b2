"""`cartoscore score/read` on rendered photos, with a stand-in cell model (plumbing only).

What is checked here does not depend on how well cells are read: the JSON shape of
a photo's result (CLI.md), overlays (size, what is drawn where), `read`'s text map
loading back, and the settings file. Recognition itself is checked against the
rendered truth in test_cli_end_to_end.py with the committed model.
"""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import scanner.cell_model
from scanner import geometry as g
from scoring.cards import CARDS
from scoring.game import score_game
from scoring.layouts import SIZE, parse_space
from scoring.textmap import load_map_file
from tests.cli_fixtures import DEAL, ROOT, SAMPLE, STAND_IN_MODEL, run


@pytest.fixture(scope="module")
def photo(tmp_path_factory) -> tuple[str, dict]:
    from models.synth import write_sample

    path = tmp_path_factory.mktemp("photos") / "table1.jpg"
    truth = write_sample(path, 2, "clean")
    return str(path), truth


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(scanner.cell_model, "MODEL_PATH", STAND_IN_MODEL)
    return STAND_IN_MODEL


def test_photo_json_has_the_contract_fields(photo, stand_in):
    path, truth = photo
    res = run("score", path, "--cards", DEAL, "--json")
    assert res.exit_code == 0, res.stderr
    [obj] = [json.loads(line) for line in res.stdout.splitlines()]
    assert obj["source"] == path
    assert obj["side"] == truth["side"]  # the side comes from the scanner, not the model
    assert len(obj["grid"]) == SIZE and all(len(row) == SIZE for row in obj["grid"])
    assert len(obj["confidence"]) == SIZE
    assert all(len(row) == SIZE and all(0 <= p <= 1 for p in row) for row in obj["confidence"])
    assert isinstance(obj["coins"], int) and 0 <= obj["coins"] <= 14
    assert [s["season"] for s in obj["seasons"]] == ["spring", "summer", "fall", "winter"]
    assert obj["total"] == sum(s["total"] for s in obj["seasons"])
    assert 0.5 < obj["scan"]["fit"] <= 1 and obj["scan"]["orientation"] in (0, 90, 180, 270)
    assert 0 <= obj["scan"]["coin_confidence"] <= 1
    for item in obj["review"]:
        parse_space(item["space"])
        assert item["reason"] in ("low confidence", "close call")
    # The printed mountains are read as such whatever the model says (layout prior):
    # side A has one at B4.
    assert truth["side"] == "A" and obj["grid"][1][3] == "^"


def test_a_photo_scored_after_another_reads_as_when_scored_alone(photo, stand_in, tmp_path):
    """The second photo of a call is decoded in a second thread while the first is
    read: its report is the same as when it is scored on its own."""
    path, _ = photo
    again = tmp_path / "again.jpg"
    again.write_bytes(Path(path).read_bytes())
    alone = run("score", str(again), "--cards", DEAL, "--json")
    both = run("score", path, str(again), "--cards", DEAL, "--json")
    assert alone.exit_code == 0 and both.exit_code == 0, both.stderr
    [first, second] = [json.loads(line) for line in both.stdout.splitlines()]
    assert first["source"] == path
    assert second == json.loads(alone.stdout)


def test_photo_human_report_shows_map_coins_cards_and_seasons(photo, stand_in):
    path, _ = photo
    res = run("score", path, "--cards", DEAL)
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert path in out.replace("\n", "") or Path(path).name in out
    for text in ("Sentinel Wood", "Seasons", "Total:", "Solo:", "Coins read on the coin track"):
        assert text in out
    assert "All four seasons were scored on this one map" in out


def test_overlay_of_a_photo_is_the_canonical_view_with_labels(photo, stand_in, tmp_path):
    path, _ = photo
    out = tmp_path / "check.png"
    res = run("score", path, "--cards", DEAL, "--overlay", str(out))
    assert res.exit_code == 0, res.stderr
    assert f"overlay written to {out}" in res.stderr
    img = cv2.imread(str(out))
    w, h = g.canonical_size()
    assert img.shape == (h, w, 3)
    # Every review cell gets a red frame: pure red pixels on its border.
    reviewed = json.loads(run("score", path, "--cards", DEAL, "--json").stdout)["review"]
    assert len(reviewed) >= 5  # the stand-in model is unsure of many cells
    for item in reviewed[:5]:
        r, c = parse_space(item["space"])
        x0, y0 = (round(v) for v in g.to_canonical_px(c, r))
        border = img[y0 + 2, x0 + 10 : x0 + 50]
        assert np.all((border[:, 2] > 200) & (border[:, 0] < 60) & (border[:, 1] < 60)), item


def cell_means(img: np.ndarray) -> np.ndarray:
    """Mean colour of each cell's middle (8 px in from the lines), (11, 11, 3)."""
    out = np.zeros((SIZE, SIZE, 3))
    for r in range(SIZE):
        for c in range(SIZE):
            x0, y0 = (round(v) for v in g.to_canonical_px(c, r))
            out[r, c] = img[y0 + 22 : y0 + 56, x0 + 8 : x0 + 56].reshape(-1, 3).mean(axis=0)
    return out


def test_explain_tints_exactly_the_spaces_that_scored(tmp_path):
    # wilderness-a.txt's working: Great City (C) scores the 7-village cluster at D4 ...
    plain, explained = tmp_path / "plain.png", tmp_path / "c.png"
    assert run("score", SAMPLE, "--overlay", str(plain)).exit_code == 0
    res = run("score", SAMPLE, "--overlay", str(explained), "--explain", "great city")
    assert res.exit_code == 0, res.stderr
    changed = np.abs(cell_means(cv2.imread(str(explained))) - cell_means(cv2.imread(str(plain))))
    tinted = {(r, c) for r in range(SIZE) for c in range(SIZE) if changed[r, c].max() > 10}
    mf = load_map_file(SAMPLE)
    spaces = score_game([mf.map], mf.cards, mf.coins).card_results["C"].explanation.spaces
    assert len(spaces) == 7
    assert tinted == set(spaces)


def test_a_cluster_is_outlined_round_its_holes_too():
    """samples/forest-road-a.txt, Stoneside Forest: the forest cluster G1...K8 surrounds
    J6 (water) without holding it, so J6's four sides carry the cluster's outline (drawn
    round the outside only, J6 looked part of the cluster). The first cluster's colour
    is CLUSTER_COLOURS[0] wherever it lies in the explanation's order."""
    from app.overlay import CLUSTER_COLOURS, draw_overlay
    from scanner.sheet import Sheet

    mf = load_map_file(ROOT / "samples" / "forest-road-a.txt")
    cards = {"A": "stoneside-forest", "B": "canal-lake", "C": "wildholds", "D": "borderlands"}
    game = score_game([mf.map], cards, mf.coins)
    clusters = game.card_results["A"].explanation.clusters
    [k] = [i for i, cl in enumerate(clusters) if (9, 5) not in cl and (9, 4) in cl]
    colour = np.array(CLUSTER_COLOURS[k % len(CLUSTER_COLOURS)])
    img = draw_overlay(Sheet(source="forest-road-a.txt", map=mf.map), None, game, "A")
    x0, y0 = (round(v) for v in g.to_canonical_px(5, 9))  # J6's top-left corner
    px = round(g.CANON_PX_PER_CELL)
    sides = {
        "top": img[y0, x0 + 20 : x0 + px - 20],
        "bottom": img[y0 + px - 1, x0 + 20 : x0 + px - 20],
        "left": img[y0 + 20 : y0 + px - 20, x0],
        "right": img[y0 + 20 : y0 + px - 20, x0 + px - 1],
    }
    for name, line in sides.items():
        assert np.all(np.abs(line.astype(int) - colour).max(axis=1) <= 1), name


def test_lost_barony_tints_one_side_and_outlines_its_square():
    """Lost Barony: "3 per space along one side of the largest solid square" (RULES.md
    §3). Side A prints nothing on D3..F5 (§1): villages there make a 3x3 square, 9
    points. The explained overlay outlines the whole square and tints only the three
    spaces of the one side that was paid, not all nine."""
    from app.overlay import CLUSTER_COLOURS, draw_overlay
    from scanner.sheet import Sheet
    from scoring.board import Map
    from scoring.layouts import SIDE_A

    square = [(r, c) for r in range(3, 6) for c in range(2, 5)]  # D3..F5
    m = Map.empty(SIDE_A)
    for space in square:
        m = m.with_terrain(space, "V")
    cards = {"A": "sentinel-wood", "B": "canal-lake", "C": "wildholds", "D": "lost-barony"}
    game = score_game([m], cards, 0)
    assert game.card_points["D"] == 9
    sheet = Sheet(source="square.txt", map=m)
    plain = draw_overlay(sheet, None, game)
    explained = draw_overlay(sheet, None, game, "D")
    changed = np.abs(cell_means(explained) - cell_means(plain)).max(axis=2) > 10
    tinted = {(r, c) for r in range(SIZE) for c in range(SIZE) if changed[r, c]}
    sides = [
        {(3, 2), (3, 3), (3, 4)},  # top D3-D5
        {(5, 2), (5, 3), (5, 4)},  # bottom F3-F5
        {(3, 2), (4, 2), (5, 2)},  # left D3-F3
        {(3, 4), (4, 4), (5, 4)},  # right D5-F5
    ]
    assert tinted in sides, sorted(tinted)
    # The square's outline runs along its four sides, paid or not.
    colour = np.array(CLUSTER_COLOURS[0])
    x0, y0 = (round(v) for v in g.to_canonical_px(2, 3))  # D3's top-left corner
    x1, y1 = (round(v) for v in g.to_canonical_px(5, 6))  # F5's bottom-right corner
    px = round(g.CANON_PX_PER_CELL)
    mid_x, mid_y = (x0 + x1) // 2, (y0 + y1) // 2
    border = {
        "top": explained[y0, mid_x - px : mid_x + px],
        "bottom": explained[y1 - 1, mid_x - px : mid_x + px],
        "left": explained[mid_y - px : mid_y + px, x0],
        "right": explained[mid_y - px : mid_y + px, x1 - 1],
    }
    for name, line in border.items():
        assert np.all(np.abs(line.astype(int) - colour).max(axis=1) <= 1), name


def test_explain_by_edict_letter_and_unknown_card(tmp_path):
    out = tmp_path / "d.png"
    assert run("score", SAMPLE, "--overlay", str(out), "--explain", "D").exit_code == 0
    assert out.exists()
    # A card not dealt: with --cards for every input, bad usage before anything is read;
    # with the cards of the map's own header, that input's overlay fails (exit 1).
    res = run("score", SAMPLE, "--overlay", str(out), "--explain", "greenbough", "--cards", DEAL)
    assert res.exit_code == 2 and "greenbough is not one of this game's cards" in res.stderr
    assert res.stdout == ""
    res = run("score", SAMPLE, "--overlay", str(out), "--explain", "greenbough")
    assert res.exit_code == 1 and "greenbough is not one of this game's cards" in res.stderr
    res = run("score", SAMPLE, "--explain", "D")
    assert res.exit_code == 2 and "--overlay" in res.stderr


def test_overlay_of_several_inputs_is_one_file_each(tmp_path):
    forest = str(ROOT / "samples" / "forest-road-a.txt")
    res = run("score", SAMPLE, forest, "--overlay", str(tmp_path / "o.png"))
    assert res.exit_code == 0, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "o-forest-road-a.png",
        "o-wilderness-a.png",
    ]


def test_read_prints_a_map_file_that_scores(photo, stand_in, tmp_path):
    path, truth = photo
    res = run("read", path)
    assert res.exit_code == 0, res.stderr
    text = tmp_path / "read.txt"
    text.write_text(res.stdout)
    mf = load_map_file(text)  # comments, side: and coins: headers all parse back
    assert mf.map.layout.name == truth["side"]
    assert res.stdout.count("; check ") == len(
        json.loads(run("score", path, "--cards", DEAL, "--json").stdout)["review"]
    )
    assert run("score", str(text), "--cards", DEAL).exit_code == 0


def test_cards_from_a_settings_file_next_to_the_inputs(tmp_path, monkeypatch):
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(load_map_file(SAMPLE).map.grid) + "\n")
    (tmp_path / "cartoscore.toml").write_text(
        'cards = ["sentinel-wood", "canal lake", "Great City", "borderlands"]\n'
    )
    monkeypatch.chdir(ROOT)
    [obj] = [json.loads(x) for x in run("score", str(plain), "--json").stdout.splitlines()]
    assert obj["total"] == 96 - 6 * 4  # the hand working's 96 without its 6 coins a season
    assert obj["cards"]["C"] == "great-city"


def test_cards_file_option_and_its_errors(tmp_path):
    plain = tmp_path / "maps" / "plain.txt"
    plain.parent.mkdir()
    plain.write_text("\n".join(load_map_file(SAMPLE).map.grid) + "\n")
    cfg = tmp_path / "tournament.toml"
    cfg.write_text(
        '[cards]\nA = "borderlands"\nB = "great-city"\nC = "canal-lake"\nD = "sentinel-wood"\n'
    )
    [obj] = [
        json.loads(x)
        for x in run("score", str(plain), "--json", "--cards-file", str(cfg)).stdout.splitlines()
    ]
    assert obj["card_points"] == {"A": 12, "B": 7, "C": 12, "D": 15}
    cfg.write_text('cards = ["borderlands", "great-city", "canal-lake", "nope"]\n')
    res = run("score", str(plain), "--cards-file", str(cfg))
    assert res.exit_code == 2 and f"{cfg}: unknown card 'nope'" in res.stderr
    cfg.write_text("cards = [\n")
    res = run("score", str(plain), "--cards-file", str(cfg))
    assert res.exit_code == 2 and "not valid TOML" in res.stderr
    res = run("score", str(plain), "--cards-file", str(tmp_path / "missing.toml"))
    assert res.exit_code == 2 and "missing.toml: no such file" in res.stderr
    assert all(card.id for card in CARDS.values())


def test_read_can_write_the_overlay_too(photo, stand_in, tmp_path):
    path, _ = photo
    out = tmp_path / "read.jpg"
    res = run("read", path, "--overlay", str(out))
    assert res.exit_code == 0, res.stderr
    w, h = g.canonical_size()
    assert cv2.imread(str(out)).shape == (h, w, 3)
    assert "side: A" in res.stdout


def test_an_android_avif_photo_is_read(tmp_path):
    from PIL import Image

    from tests.test_cli_end_to_end import README_PHOTO, check_photo

    with Image.open(ROOT / README_PHOTO) as im:
        im.save(tmp_path / "PXL_20261128.avif", quality=90)  # as stored, with its EXIF turn
    truth = json.loads((ROOT / README_PHOTO).with_suffix(".json").read_text())
    check_photo(tmp_path / "PXL_20261128.avif", truth, tmp_path)


def test_a_jpeg_2000_photo_is_read(tmp_path):
    from PIL import Image, ImageOps

    from tests.test_cli_end_to_end import README_PHOTO, check_photo

    with Image.open(ROOT / README_PHOTO) as im:
        ImageOps.exif_transpose(im).save(tmp_path / "sheet.jp2")  # JPEG 2000 keeps no EXIF
    truth = json.loads((ROOT / README_PHOTO).with_suffix(".json").read_text())
    check_photo(tmp_path / "sheet.jp2", truth, tmp_path)


def test_an_iphone_heic_photo_is_read(photo, stand_in, tmp_path):
    from PIL import Image
    from pillow_heif import register_heif_opener

    register_heif_opener()
    path, truth = photo
    with Image.open(path) as im:
        small = im.resize((im.width * 1100 // max(im.size), im.height * 1100 // max(im.size)))
    heic = tmp_path / "IMG_0001.HEIC"
    small.save(heic, format="HEIF", quality=85)
    res = run("score", str(heic), "--cards", DEAL, "--json")
    assert res.exit_code == 0, res.stderr
    obj = json.loads(res.stdout)
    assert obj["source"] == str(heic) and obj["side"] == truth["side"]
