"""`cartoscore` end to end (CLI.md): typer's runner, and a subprocess of `python -m cli`.

Expected numbers are the hand working in samples/wilderness-a.txt:
cards 15, 12, 7, 12; monsters -5; coins 6; seasons 28, 20, 20, 28; total 96;
solo 96 - 89 = 7, Apprentice Surveyor.
"""

import json
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import app.inputs
from scanner.sheet import Review, Sheet
from scoring.board import Map
from scoring.cards import CARDS
from scoring.layouts import SIDE_A, parse_space
from scoring.textmap import format_text
from tests.cli_fixtures import DEAL, ROOT, SAMPLE, run


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_json_object_matches_cli_contract():
    res = run("score", SAMPLE, "--json")
    assert res.exit_code == 0, res.stderr
    [obj] = json_lines(res.stdout)
    assert obj["source"] == SAMPLE and obj["side"] == "A"
    assert len(obj["grid"]) == 11 and obj["grid"][0] == "TTTWW.FFVVV"
    assert obj["coins"] == 6
    assert obj["cards"] == dict(zip("ABCD", DEAL.split(","), strict=True))
    assert obj["card_points"] == {"A": 15, "B": 12, "C": 7, "D": 12}
    assert obj["monsters"] == -5
    assert obj["seasons"][0] == {
        "season": "spring",
        "edicts": ["A", "B"],
        "edict_points": [15, 12],
        "coins": 6,
        "monsters": -5,
        "total": 28,
    }
    assert [s["total"] for s in obj["seasons"]] == [28, 20, 20, 28]
    assert [s["season"] for s in obj["seasons"]] == ["spring", "summer", "fall", "winter"]
    assert obj["total"] == 96
    # "solo.title is the English title whatever --lang says"
    assert obj["solo"] == {"card_sum": 89, "rating": 7, "title": "Apprentice Surveyor"}
    assert "confidence" not in obj  # photo input only
    assert obj["explanations"]["D"]["rows"] == ["K"]


def test_json_title_stays_english_with_lang():
    [obj] = json_lines(run("score", SAMPLE, "--json", "--lang", "zh").stdout)
    assert obj["solo"]["title"] == "Apprentice Surveyor"


def test_human_report_says_all_seasons_on_one_map():
    res = run("score", SAMPLE)
    assert res.exit_code == 0
    out = res.stdout
    for text in ("Sentinel Wood", "15 forests on the edge", "Total: 96", "Apprentice Surveyor"):
        assert text in out
    assert "All four seasons were scored on this one map" in out
    assert re.search(r"spring\s.*15 \+ 12.*28", out)
    assert re.search(r"^ K\s+T\s+T\s+T", out, re.M)  # the map is drawn


def test_human_report_in_chinese_and_italian():
    out = run("score", SAMPLE, "--lang", "zh").stdout
    assert "學徒測量員" in out and "前哨森林" in out and "春" in out
    assert "Perito Apprendista" in run("score", SAMPLE, "--lang", "it").stdout
    assert "Perito Apprendista" in run("score", SAMPLE, "--lang", "IT").stdout  # as --side a


def test_cards_option_overrides_header():
    # Same four cards in reverse order: A borderlands 12, B great city 7, C canal lake
    # 12, D sentinel wood 15 -> spring 12+7+6-5 = 20, summer 20, fall 28, winter 28.
    res = run(
        "score",
        SAMPLE,
        "--json",
        "--cards",
        "borderlands, Great City, canal lake, the sentinel wood",
    )
    [obj] = json_lines(res.stdout)
    assert obj["card_points"] == {"A": 12, "B": 7, "C": 12, "D": 15}
    assert [s["total"] for s in obj["seasons"]] == [20, 20, 28, 28]


def test_coins_option_one_or_per_season():
    [obj] = json_lines(run("score", SAMPLE, "--json", "--coins", "0").stdout)
    assert [s["total"] for s in obj["seasons"]] == [22, 14, 14, 22]
    # 15+12+1-5, 12+7+2-5, 7+12+3-5, 12+15+4-5
    res = run("score", SAMPLE, "--json", "--coins", "1,2,3,4")
    [obj] = json_lines(res.stdout)
    assert [s["total"] for s in obj["seasons"]] == [23, 16, 17, 26]
    assert obj["total"] == 82
    assert res.stderr == ""


@pytest.mark.parametrize(
    ("args", "line"),
    [
        ((), "Coins: 6"),  # the sample's own "coins: 6" header
        (("--coins", "6"), "Coins: 6"),
        (("--coins", "9"), "Coins: 6 in the file; scored with 9 (--coins)"),
        # One count a season: every one is said, not winter's alone.
        (
            ("--coins", "1,2,3,4"),
            "Coins: 6 in the file; scored with 1, 2, 3, 4 by season (--coins)",
        ),
        (
            ("--set", "coins=5", "--coins", "1,2,3,4"),
            "Coins: 5, set by hand (read 6 in the file);"
            " scored with 1, 2, 3, 4 by season (--coins)",
        ),
    ],
)
def test_the_coins_line_says_what_each_season_was_scored_with(args, line, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    res = run("score", SAMPLE, *args)
    assert res.exit_code == 0
    assert [x for x in res.stdout.splitlines() if x.startswith("Coins")] == [line]


def test_a_narrow_terminal_keeps_the_whole_heading(monkeypatch):
    """A rule cut the heading to fit ("...side… ─"), losing the side and, per season,
    the season: a heading wider than the terminal is printed whole, then the rule."""
    monkeypatch.setenv("COLUMNS", "40")
    res = run("score", SAMPLE, "--lang", "es")
    heading = res.stdout.split("\n    1")[0]  # all before the map's column numbers
    # Folded where the terminal ends (which depends on the checkout's path): compared
    # without the white space the fold moves.
    assert "".join(f"{SAMPLE}  side A".split()) in "".join(heading.split())
    assert "…" not in heading


def test_per_season_coins_that_go_down_are_scored_with_a_warning():
    """RULES.md §2: "+1 per coin marked on the coin track so far": a marked coin stays
    marked, so a count going down is a slip; it is scored as given, and said once."""
    res = run("score", SAMPLE, "--json", "--coins", "5,3,4,6")
    assert res.exit_code == 0
    [obj] = json_lines(res.stdout)
    assert [s["coins"] for s in obj["seasons"]] == [5, 3, 4, 6]
    assert res.stderr.splitlines() == [
        "warning: --coins 5,3,4,6: summer has fewer coins (3) than spring (5), but marked"
        " coins stay marked; scored as given"
    ]


def test_unknown_card_is_usage_error_listing_ids():
    res = run("score", SAMPLE, "--cards", "sentinel-wood,canal-lake,great-city,bordrlands")
    assert res.exit_code == 2
    assert "unknown card 'bordrlands'" in res.stderr
    assert all(cid in res.stderr for cid in CARDS)
    assert res.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ("--cards", "a,b"),
        ("--side", "C"),
        ("--lang", "de"),
        ("--coins", "15"),
        ("--coins", "lots"),
    ],
)
def test_bad_options_exit_2(args):
    assert run("score", SAMPLE, *args).exit_code == 2


def test_odd_deal_is_a_warning_not_an_error():
    res = run(
        "score", SAMPLE, "--json", "--cards", "sentinel-wood,greenbough,great-city,borderlands"
    )
    assert res.exit_code == 0
    assert "warning: the deal has 2 cards from the forest deck" in res.stderr
    assert json_lines(res.stdout)[0]["cards"]["B"] == "greenbough"


def test_bad_file_fails_alone_with_one_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("side: A\n" + "\n".join(["..........."] * 11))
    res = run("score", str(bad), SAMPLE, "--json", "--cards", DEAL)
    assert res.exit_code == 1
    first, second = json_lines(res.stdout)
    assert first == {"source": str(bad), "error": f"{bad}: B4: side A has a mountain here"}
    assert second["total"] == 96
    human = run("score", str(bad), "--cards", DEAL)
    assert human.exit_code == 1
    assert human.stderr.strip() == f"error: {bad}: B4: side A has a mountain here"
    assert "Traceback" not in human.stderr
    assert "Traceback" in run("score", str(bad), "--cards", DEAL, "--debug").stderr


def test_map_without_cards_needs_cards_option(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text(format_text(Map.empty(SIDE_A)))
    res = run("score", str(plain))
    assert res.exit_code == 1 and "no cards" in res.stderr
    assert run("score", str(plain), "--cards", DEAL).exit_code == 0


def fake_photo_sheet(path, *, side=None, decoded=None):
    m = Map.empty(SIDE_A).with_terrain(parse_space("A1"), "T")
    conf = tuple(tuple(0.99 for _ in range(11)) for _ in range(11))
    review = (Review("C4", "low confidence", {"T": 0.55, "V": 0.41}),)
    return Sheet(source=str(path), map=m, coins=3, confidence=conf, review=review)


def test_photo_json_has_confidence_and_review(monkeypatch):
    monkeypatch.setattr(app.inputs, "read_photo", fake_photo_sheet)
    res = run("score", "table.jpg", "--cards", DEAL, "--json")
    assert res.exit_code == 0, res.stderr
    [obj] = json_lines(res.stdout)
    assert obj["coins"] == 3  # read from the photo's coin track
    assert len(obj["confidence"]) == 11 and obj["confidence"][0][0] == 0.99
    assert obj["review"] == [
        {"space": "C4", "reason": "low confidence", "candidates": {"T": 0.55, "V": 0.41}}
    ]
    # Sentinel Wood: A1 = 1 (a corner counts once); spring 1 + 0 + 3 = 4.
    assert obj["card_points"]["A"] == 1 and obj["seasons"][0]["total"] == 4
    human = run("score", "table.jpg", "--cards", DEAL)
    assert "C4" in human.stdout and "Check by hand: 1 cell (red" in human.stdout


def test_a_cell_under_the_review_threshold_never_shows_the_threshold(monkeypatch):
    # Cells are reviewed under 0.99 (scanner.review.REVIEW_MIN_PROB); 0.988 printed
    # to two places would read "T 0.99" beside "low confidence".
    def sheet(path, *, side=None, decoded=None):
        review = (Review("J6", "low confidence", {"T": 0.988, "F": 0.012}),)
        return replace(fake_photo_sheet(path), review=review, coin_confidence=0.497)

    monkeypatch.setattr(app.inputs, "read_photo", sheet)
    res = run("score", "table.jpg", "--cards", DEAL)
    assert res.exit_code == 0, res.stderr
    assert "T 0.98  F 0.01" in res.stdout and "0.99" not in res.stdout
    assert "(confidence 0.49)" in res.stdout  # unsure under 0.5: never "0.50"
    [obj] = json_lines(run("score", "table.jpg", "--cards", DEAL, "--json").stdout)
    assert obj["review"][0]["candidates"] == {"T": 0.988, "F": 0.012}  # JSON keeps them


def test_read_prints_the_map_format(monkeypatch):
    def sheet(path, *, side=None, decoded=None):
        read = fake_photo_sheet(path)
        drawn = read.map.with_terrain(parse_space("C4"), "T").with_terrain(parse_space("K9"), "F")
        shape = Review("K9", "decided by its shape", {"V": 0.98, "T": 0.01, "F": 0.004})
        return replace(read, map=drawn, review=(*read.review, shape))

    monkeypatch.setattr(app.inputs, "read_photo", sheet)
    res = run("read", "table.jpg")
    assert res.exit_code == 0
    # Each cell to check says what it may be, as the report's review table does, and
    # what the map holds there when that is not the first candidate (K9: its shape's F).
    assert res.stdout.startswith(
        "; check C4: low confidence (T 0.55  V 0.41)\n"
        "; check K9: decided by its shape, read F (V 0.98  T 0.01  F 0.00)\n"
        "side: A\ncoins: 3\nT . ."
    )


def test_read_of_a_blank_sheet_says_so_as_score_does(monkeypatch):
    def blank(path, *, side=None, decoded=None):
        return replace(fake_photo_sheet(path), map=Map.empty(SIDE_A), review=())

    monkeypatch.setattr(app.inputs, "read_photo", blank)
    res = run("read", "table.jpg")
    assert res.exit_code == 0
    assert res.stdout.startswith("; note: blank sheet: nothing is drawn on the map")


def test_read_of_a_map_file_points_to_score(tmp_path):
    res = run("read", str(SAMPLE))
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.strip() == (
        f"error: {SAMPLE}: a text file, not a photo (cartoscore score reads map files as they are)"
    )


def season_files(tmp_path) -> list[str]:
    """The progression of tests/test_game.py: totals 2, 4, 6, 3 (worked there by hand)."""
    m = Map.empty(SIDE_A)
    steps = [{"T": "A1"}, {"T": "A2", "W": "E1", "F": "D1"}, {"V": "E2 E3 E4"}, {"M": "H8"}]
    paths = []
    for i, (step, coins) in enumerate(zip(steps, [1, 2, 3, 5], strict=True)):
        for sym, names in step.items():
            for n in names.split():
                m = m.with_terrain(parse_space(n), sym)
        p = tmp_path / f"season{i}.txt"
        p.write_text(format_text(m, coins=coins))
        paths.append(str(p))
    return paths


def test_per_season_scores_each_season_on_its_own_map(tmp_path):
    paths = season_files(tmp_path)
    res = run("score", *paths, "--per-season", "--cards", DEAL, "--json")
    assert res.exit_code == 0, res.stderr
    objs = json_lines(res.stdout)
    assert [o["season"] for o in objs] == ["spring", "summer", "fall", "winter"]
    assert [s["total"] for s in objs[0]["seasons"]] == [2, 4, 6, 3]
    assert all(o["total"] == 15 for o in objs)
    assert objs[0]["card_points"] == {"A": 1, "B": 0, "C": 0, "D": 0}  # spring's own map
    assert objs[3]["card_points"] == {"A": 2, "B": 2, "C": 3, "D": 0}
    assert objs[3]["solo"]["rating"] == 15 - 89
    human = run("score", *paths, "--per-season", "--cards", DEAL)
    assert "Total: 15" in human.stdout and "one map" not in human.stdout


def test_per_season_leaves_out_a_failed_season(tmp_path):
    paths = season_files(tmp_path)
    paths[1] = str(tmp_path / "missing.txt")
    res = run("score", *paths, "--per-season", "--cards", DEAL, "--json")
    assert res.exit_code == 1
    objs = json_lines(res.stdout)
    assert "error" in objs[1]
    assert [s["season"] for s in objs[0]["seasons"]] == ["spring", "fall", "winter"]
    assert objs[0]["total"] == 2 + 6 + 3 and objs[0]["solo"] is None


def test_per_season_takes_at_most_four_inputs():
    assert run("score", *[SAMPLE] * 5, "--per-season").exit_code == 2


def test_cards_command_lists_sixteen_cards():
    res = run("cards")
    assert res.exit_code == 0
    for card in CARDS.values():
        assert card.id in res.stdout
    assert "Shoreside Expanse" in res.stdout and "27" in res.stdout
    assert "神盾門" in run("cards", "--lang", "zh").stdout


def test_console_script_points_at_cli_main():
    meta = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^cartoscore = "cli:main"$', meta, re.M)
    assert re.search(r'^include = \[.*"app\*".*\]$', meta, re.M)


def test_python_m_cli_subprocess():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "score",
            SAMPLE,
            str(ROOT / "samples" / "nope.txt"),
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    good, bad = json_lines(proc.stdout)
    assert good["total"] == 96 and good["solo"]["title"] == "Apprentice Surveyor"
    assert bad["error"].endswith("no such file")
    assert "Traceback" not in proc.stderr


def test_entry_point_subprocess_unknown_card():
    proc = subprocess.run(
        [sys.executable, "-c", "import cli; cli.main()", "score", SAMPLE, "--cards", "x,y,z,w"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "valid ids: sentinel-wood" in proc.stderr


def modules_after(args: list[str]) -> tuple[str, set[str]]:
    """What the CLI prints given ``args`` in a fresh Python (exit status 0), and the
    top-level packages it has loaded by then."""
    code = (
        "import sys\n"
        "from cli import app\n"
        f"try:\n    app({args!r})\n"
        "except SystemExit as e:\n    assert e.code == 0, e.code\n"
        "print(' '.join(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    *printed, loaded = proc.stdout.splitlines()
    return "\n".join(printed), set(loaded.split())


def test_scoring_a_map_file_never_imports_the_image_stack():
    # "scoring/ never imports cv2, onnxruntime or PIL"; map scoring goes through the CLI
    # without loading them either (photos import the scanner lazily).
    printed, loaded = modules_after(["score", SAMPLE, "--json"])
    assert json.loads(printed)["source"] == SAMPLE
    assert not {"cv2", "onnxruntime", "PIL", "skimage"} & loaded


def test_listing_the_cards_does_not_import_scipy_or_numpy():
    # scipy.ndimage labels the clusters; importing it (or even numpy) takes longer than
    # the listing itself.
    printed, loaded = modules_after(["cards"])
    assert "great-city" in printed and "scoring" in loaded  # top-level packages
    assert "scipy" not in loaded and "numpy" not in loaded


@pytest.mark.parametrize(
    "name, photo",
    [
        ("a.jpg", True),
        ("a.JPEG", True),
        ("a.png", True),
        ("a.webp", True),
        ("a.tif", True),
        ("a.tiff", True),
        ("IMG_1.HEIC", True),
        ("a.heif", True),
        ("PXL_2026.avif", True),
        ("scan.pdf", True),
        ("a.txt", False),
        ("a.map", False),
        ("a.json", False),
    ],
)
def test_photos_are_told_by_extension(name, photo):
    assert app.inputs.is_photo(name) is photo


def test_installed_command_scores_every_sample():
    # The console script next to this interpreter when the project is installed (as in
    # CI's fresh venv); from a bare checkout the same entry point via `python -m cli`.
    script = shutil.which("cartoscore", path=str(Path(sys.executable).parent))
    command = [script] if script else [sys.executable, "-m", "cli"]
    samples = sorted(str(p) for p in (ROOT / "samples").glob("*.txt"))
    proc = subprocess.run(
        [*command, "score", *samples, "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    totals = {Path(o["source"]).name: o["total"] for o in json_lines(proc.stdout)}
    assert totals == {
        "forest-road-a.txt": 126,
        "sparse-b.txt": 56,
        "wastelands-b.txt": 136,
        "wilderness-a.txt": 96,
    }


def test_too_few_coins_for_surrounded_mountains_is_noted():
    wastelands = str(ROOT / "samples" / "wastelands-b.txt")
    [obj] = json_lines(run("score", wastelands, "--json", "--coins", "3").stdout)
    assert obj["notes"] == [
        "5 mountains are surrounded (B9, C4, H6, I10, J3), a coin each, "
        "but only 3 coins are counted"
    ]
    [obj] = json_lines(run("score", wastelands, "--json").stdout)
    assert obj["notes"] == []


@pytest.mark.parametrize("command", [[], ["score"], ["batch"], ["read"], ["cards"], ["synth"]])
def test_help_names_what_each_option_takes(command):
    """Each option's value has a name (a flag shows none), and help text keeps its
    brackets: rich markup once ate read's "[set]"."""
    res = run(*command, "--help")
    assert res.exit_code == 0
    assert "<bool>" not in res.stdout and "<str>" not in res.stdout
    assert "<path>" not in res.stdout.split("Options")[-1]
    if command == ["read"]:
        assert "its side and [set] apply" in " ".join(
            part.strip(" │") for part in res.stdout.splitlines()
        )


@pytest.mark.parametrize(
    ("command", "takes"),
    [("score", "PHOTO_OR_MAP..."), ("batch", "DIR_OR_FILES..."), ("read", "PHOTO")],
)
def test_help_names_what_each_argument_takes(command, takes):
    """The usage line and the list of arguments name each positional argument plainly,
    without typer's ``{inputs}...`` and ``<list[Path]>``."""
    res = run(command, "--help")
    assert res.exit_code == 0
    [usage] = [line.strip() for line in res.stdout.splitlines() if "Usage:" in line]
    assert usage.endswith(f"{command} [OPTIONS] {takes}")
    arguments = res.stdout.split("Arguments")[1].split("Options")[0]
    assert re.search(rf"\*\s+{re.escape(takes)}\s+[A-Z]", arguments)  # its help, no type
    assert "{" not in res.stdout and "<list[" not in res.stdout and "<path>" not in res.stdout
    missing = run(command)  # the error names the argument as the help does
    assert missing.exit_code == 2 and f"Missing argument '{takes}'" in missing.stderr


def test_version_is_the_projects():
    """``cartoscore --version`` prints the version pyproject.toml declares, and exits 0
    without a command."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    res = run("--version")
    assert res.exit_code == 0 and res.stdout == f"cartoscore {declared}\n"
