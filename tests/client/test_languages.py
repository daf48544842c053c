"""Each player reads their own language: chosen by --lang, the start screen, the locale, or the SSH client's LANG.

Two apps in one process (as in an SSH worker) speak two languages at once, their footers included, although the
footers' words are class attributes made once per process.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from nothanks_tui import i18n
from nothanks_tui.cli import build_parser
from nothanks_tui.client.app import NoThanksApp
from nothanks_tui.client.error_sentences import SENTENCES, error_sentence
from nothanks_tui.client.remembered import Remembered
from nothanks_tui.client.screens.start import StartScreen
from nothanks_tui.client.widgets.keybar import KeyBar
from nothanks_tui.commands.launchers import LocalLaunchers
from nothanks_tui.link import errors

from .ui_helpers import local_app, my_turn, wait_until


def footer(app: NoThanksApp) -> str:
    """The footer as the app drew it (in the app's own tasks: this test's task speaks English)."""
    return app.screen.query_one(KeyBar).render().plain


def screen_text(app: NoThanksApp) -> str:
    """The terminal's lines as the app drew them."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "es_MX"}, "es"),
        ({"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "es_MX", "LC_ALL": "C"}, "en"),  # LC_ALL decides when set
        ({"LC_ALL": "", "LANG": "es"}, "es"),  # an empty variable counts as unset
    ],
)
def test_the_locale_environment_chooses_as_posix_says(environ, expected):
    assert i18n.language_from_environment(environ) == expected


def test_lang_beats_the_remembered_choice_which_beats_the_locale():
    assert i18n.choose_language("es", "fr", {"LANG": "en_US"}) == "es"
    assert i18n.choose_language(None, "fr", {"LANG": "es_ES"}) == "fr"
    assert i18n.choose_language(None, None, {"LANG": "es_ES"}) == "es"
    assert i18n.choose_language(None, None, {}) == "en"


def test_lang_is_an_option_of_every_command_that_opens_the_game():
    parser = build_parser()
    assert parser.parse_args(["--lang", "fr"]).lang == "fr"
    for command in (["play"], ["join", "localhost"], ["host"]):
        assert parser.parse_args([*command, "--lang", "es"]).lang == "es"
        assert parser.parse_args(["--lang", "fr", *command]).lang == "fr"  # before the command too
    with pytest.raises(SystemExit):
        parser.parse_args(["--lang", "de"])


async def test_two_apps_in_one_process_each_speak_their_own_language_footers_included():
    french, _ = local_app(players=3, seed=1, language="fr")
    spanish, _ = local_app(players=3, seed=1, language="es")
    seen: dict[str, str] = {}
    both_up = asyncio.Event()
    arrived: list[str] = []

    async def run(app: NoThanksApp, name: str) -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: my_turn(app), "my turn")
            arrived.append(name)
            if len(arrived) == 2:
                both_up.set()
            await asyncio.wait_for(both_up.wait(), 60)  # both apps are running at once from here
            await pilot.pause()
            seen[name] = footer(app)
            seen[name + " status"] = screen_text(app)

    await asyncio.gather(run(french, "fr"), run(spanish, "es"))
    assert "Prendre" in seen["fr"] and "Non merci !" in seen["fr"] and "Aide" in seen["fr"]
    assert "Tomar" in seen["es"] and "¡No, gracias!" in seen["es"] and "Reglas" in seen["es"]
    assert "Pioche" in seen["fr status"] and "Mazo" in seen["es status"]
    assert i18n.current_language() == "en"  # and the test's own task still speaks English


async def test_ctrl_l_on_the_start_screen_changes_the_language_and_remembers_it(tmp_path):
    remembered = Remembered(tmp_path / "start.json")
    app = NoThanksApp(launchers=LocalLaunchers(bot_pace=0), remembered=remembered, language="en")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, StartScreen), "the start screen")
        assert "Next tab" in footer(app) and "Language" in footer(app)
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: "Onglet" in footer(app), "the footer in French")
        assert app.language == "fr"
        await pilot.press("ctrl+n")  # to the second tab: the next language keeps it
        await wait_until(pilot, lambda: app.screen.query_one("#start-modes").active == "mode-1", "the second tab")
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: "Pestaña" in footer(app), "the footer in Spanish")
        await wait_until(pilot, lambda: app.screen.query_one("#start-modes").active == "mode-1", "still that tab")
    assert json.loads((tmp_path / "start.json").read_text())["language"] == "es"
    assert Remembered(tmp_path / "start.json").language == "es"


def test_every_error_code_has_a_sentence_for_players_in_each_language():
    assert set(SENTENCES) == set(errors.REGISTRY), "give each new code a sentence in client/error_sentences.py"
    i18n.use_language("fr")
    try:
        assert error_sentence(errors.TABLE_FULL, "every seat at this table is taken") == (
            "Toutes les places de cette table sont prises."
        )
        assert error_sentence("a_newer_code", "what the host said") == "what the host said"
        # The client's own codes keep what the client wrote (in the player's language already, with the address).
        assert error_sentence(errors.UNREACHABLE, "impossible de joindre h:1") == "impossible de joindre h:1"
        assert error_sentence(errors.UNREACHABLE, "") == "Impossible de joindre l'hôte."
    finally:
        i18n.use_language("en")
    assert error_sentence(errors.TABLE_FULL, "ignored") == "Every seat at that table is taken."


def test_a_hosts_fixed_reasons_are_translated_where_shown():
    from nothanks_server.host import RESTART_REASON

    i18n.use_language("es")
    try:
        assert i18n._(RESTART_REASON).startswith("el anfitrión se reinicia")
        assert i18n._("not a catalogued reason") == "not a catalogued reason"
    finally:
        i18n.use_language("en")
