"""The key bar keeps every key on one line: a narrow terminal, a longer language or a table offering every key at
once (coach, chat, a stand-in bot) squeezes the bar step by step instead of cutting its last keys off."""

from __future__ import annotations

from rich.cells import cell_len

from nothanks_tui.client.widgets.keybar import ShownKey, bar_rows, fit_keys, primary_key

EVERY_TABLE_KEY = tuple(
    ShownKey(key, display, description, True)
    for key, display, description in [
        ("t", "t", "Take"),
        ("n,space", "n/space", "No thanks!"),
        ("i", "i", "Coach"),
        ("b", "b", "Bot plays"),
        ("question_mark,h", "?/h", "Rules"),
        ("q", "q", "Quit"),
        ("c", "c", "Chat"),
        ("m", "m", "Unmute chat"),
        ("l", "l", "Bell"),
    ]
)


def drawn(entries: list[tuple[str, str, ShownKey]]) -> str:
    return "".join(key + description for key, description, _shown in entries)


def test_a_wide_bar_is_drawn_in_full():
    line = drawn(fit_keys(EVERY_TABLE_KEY, 120))
    assert line.startswith(" t Take  n/space No thanks!  i Coach ")
    assert line.endswith(" l Bell ")


def test_every_key_stays_on_an_80_column_bar_with_the_main_ones_whole():
    entries = fit_keys(EVERY_TABLE_KEY, 80)
    line = drawn(entries)
    assert cell_len(line) <= 80
    assert [shown for _key, _description, shown in entries] == list(EVERY_TABLE_KEY)
    for key, description, shown in entries:
        assert key.strip() == primary_key(shown.display)
        assert description.strip()  # every key keeps a word
    assert " Take " in line and " No thanks! " in line and " Quit " in line and line.endswith("l Bell")
    assert "Unmute c…" in line  # the later of the two longest words gave way


def test_the_bar_squeezes_one_step_at_a_time():
    full = drawn(fit_keys(EVERY_TABLE_KEY, 200))
    first_keys = drawn(fit_keys(EVERY_TABLE_KEY, len(full) - 1))
    assert "n/space" not in first_keys and " n No thanks! " in first_keys and " ? Rules " in first_keys
    assert first_keys.startswith(" t Take  n ")  # still padded
    unpadded = drawn(fit_keys(EVERY_TABLE_KEY, len(first_keys) - 1))
    assert unpadded.startswith("t Take n No thanks! ") and "…" not in unpadded


def test_every_width_gets_the_widest_form_that_fits_and_words_are_cut_only_to_a_minimum():
    narrowest = cell_len(drawn(fit_keys(EVERY_TABLE_KEY, 1)))  # every word at its minimum (then drawn cut)
    assert narrowest == 53
    for width in range(1, 130):
        line = drawn(fit_keys(EVERY_TABLE_KEY, width))
        assert cell_len(line) <= max(width, narrowest), width
        if narrowest <= width <= 82:  # (82: the unpadded bar, no word cut)
            assert cell_len(line) >= width - 2, width  # words are cut no more than needed (a cut may free 2)
        for _key, description, _shown in fit_keys(EVERY_TABLE_KEY, width):
            assert cell_len(description.strip()) >= 3


def test_primary_key():
    assert primary_key("n/space") == "n"
    assert primary_key("?/h") == "?"
    assert primary_key("^C/Esc") == "^C"
    assert primary_key("/") == "/"
    assert primary_key("q") == "q"
    assert fit_keys((), 80) == []


LOBBY_KEYS_FR = tuple(
    ShownKey(key, key, description, True)
    for key, description in [("j", "Rejoindre"), ("c", "Nouvelle table"), ("w", "Voir"), ("i", "Code")]
    + [("h", "Historique"), ("l", "Rangs"), ("d", "Jour"), ("t", "Chat"), ("?", "Aide"), ("q", "Quitter")]
)


def test_a_bar_that_may_take_two_rows_keeps_every_word_whole_and_one_row_when_it_fits():
    rows = bar_rows(LOBBY_KEYS_FR, 80)
    assert len(rows) == 2 and rows[0] + rows[1] == LOBBY_KEYS_FR
    for row in rows:
        line = drawn(fit_keys(row, 80))
        assert cell_len(line) <= 80 and "…" not in line
    assert "Rejoindre" in drawn(fit_keys(rows[0], 80)) and "Quitter" in drawn(fit_keys(rows[1], 80))
    assert bar_rows(LOBBY_KEYS_FR, 120) == [LOBBY_KEYS_FR]  # wide enough: one row
