"""Words the report prints in five languages: solo titles, seasons, decks.

Solo titles are RULES.md §4 verbatim (the Spanish ones are the project's own
translation, as RULES.md says).
"""

from __future__ import annotations

LANGS = ("en", "it", "fr", "es", "zh")

SOLO_TITLES: tuple[tuple[int, dict[str, str]], ...] = (
    (
        30,
        {
            "en": "Legendary Cartographer",
            "it": "Cartografo Leggendario",
            "fr": "Cartographe Légendaire",
            "es": "Cartógrafo Legendario",
            "zh": "傳奇製圖師",
        },
    ),
    (
        20,
        {
            "en": "Master Mapsmith",
            "it": "Artigiano delle Mappe",
            "fr": "Maître des Cartes",
            "es": "Maestro Cartógrafo",
            "zh": "地圖大師",
        },
    ),
    (
        10,
        {
            "en": "Journeyman Topographer",
            "it": "Topografo Viaggiatore",
            "fr": "Topographe Voyageur",
            "es": "Topógrafo Itinerante",
            "zh": "四處奔走的地形測量員",
        },
    ),
    (
        0,
        {
            "en": "Apprentice Surveyor",
            "it": "Perito Apprendista",
            "fr": "Apprenti Géomètre",
            "es": "Agrimensor Aprendiz",
            "zh": "學徒測量員",
        },
    ),
    (
        -5,
        {
            "en": "Amateur Assessor",
            "it": "Assessore Dilettante",
            "fr": "Conseiller Amateur",
            "es": "Tasador Aficionado",
            "zh": "業餘輔佐員",
        },
    ),
    (
        -10,
        {
            "en": "Inept Assistant",
            "it": "Assistente Incapace",
            "fr": "Assistant Inapte",
            "es": "Asistente Inepto",
            "zh": "笨拙的助理",
        },
    ),
    (
        -20,
        {
            "en": "Dimwitted Doodler",
            "it": "Semplice Scribacchino",
            "fr": "Mauvais Gribouilleur",
            "es": "Garabateador Torpe",
            "zh": "愚蠢的插畫家",
        },
    ),
    (
        -30,
        {
            "en": "Oblivious Inkdrinker",
            "it": "Bevitore di Inchiostro",
            "fr": "Buveur d'Encre Inconscient",
            "es": "Bebedor de Tinta Distraído",
            "zh": "健忘的創作者",
        },
    ),
)
"""(rating threshold, titles by language), highest threshold first."""

SEASON_NAMES: dict[str, dict[str, str]] = {
    "spring": {"en": "spring", "it": "primavera", "fr": "printemps", "es": "primavera", "zh": "春"},
    "summer": {"en": "summer", "it": "estate", "fr": "été", "es": "verano", "zh": "夏"},
    "fall": {"en": "fall", "it": "autunno", "fr": "automne", "es": "otoño", "zh": "秋"},
    "winter": {"en": "winter", "it": "inverno", "fr": "hiver", "es": "invierno", "zh": "冬"},
}


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, plural unless ``n`` is 1: "1 cell", "3 cells", "2 cities"."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def check_lang(lang: str) -> str:
    """Return ``lang`` if it is one of :data:`LANGS`, else raise ValueError."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}")
    return lang


def solo_title(rating: int, lang: str = "en") -> str | None:
    """Title of the highest row of RULES.md §4 whose threshold ``rating`` reaches.

    Below -30 there is no title (None).

    >>> solo_title(20), solo_title(19), solo_title(-31)
    ('Master Mapsmith', 'Journeyman Topographer', None)
    """
    check_lang(lang)
    for threshold, titles in SOLO_TITLES:
        if rating >= threshold:
            return titles[lang]
    return None


def season_name(season: str, lang: str = "en") -> str:
    """A season's name (``"spring"`` ...) in ``lang``."""
    return SEASON_NAMES[season][check_lang(lang)]
