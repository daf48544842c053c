"""The rule texts in shared/rules (French, English, Spanish), sentence by sentence, held against the engine.

Each test quotes the sentence it checks. Where the texts disagree (player counts), the note says what we chose.
"""

from __future__ import annotations

import pytest

from nothanks_tui.engine import (
    ALL_CARDS,
    CARDS_PLAYED,
    CARDS_REMOVED,
    Action,
    GameConfig,
    IllegalMove,
    breakdown,
    card_points,
    legal_actions,
    new_game,
    score,
    spectator_view,
    take_cost,
    view_for,
    winners,
)
from nothanks_tui.engine.config import TOTAL_CHIPS

from .helpers import dealt, play

# --- Matériel / materials -------------------------------------------------------------------------------------


def test_33_cards_numbered_3_to_35():
    """FR: «33 cartes numérotées de 3 à 35 et 55 jetons.» ES: «33 cartas numeradas del 3 al 35 y 55 fichas.»"""
    assert ALL_CARDS == tuple(range(3, 36))
    assert len(ALL_CARDS) == 33
    state = new_game(GameConfig(players=3), seed=1)
    assert sorted(state.deck + state.removed) == list(range(3, 36))


@pytest.mark.parametrize(("players", "chips"), [(2, 11), (3, 11), (4, 11), (5, 11), (6, 9), (7, 7)])
def test_chips_per_player_by_count(players, chips):
    """FR (001): «Avec 3 à 5 joueurs, chaque joueur commence avec 11 jetons. Pour 6 joueurs, chacun commence avec
    9 jetons, et dans les parties avec 7 joueurs, chaque joueur reçoit 7 jetons.»
    EN: «Each player receives 11 chips.» (2 players: the house variant the English text allows, also 11.)"""
    state = new_game(GameConfig(players=players), seed=players)
    assert state.chips == (chips,) * players
    assert sum(state.chips) <= TOTAL_CHIPS == 55


def test_leftover_chips_go_back_in_the_box():
    """FR: «À trois ou quatre joueurs, il reste des jetons inutilisés : on les remet dans la boîte.»"""
    for players in (3, 4):
        state = new_game(GameConfig(players=players), seed=0)
        assert sum(state.chips) == 11 * players < TOTAL_CHIPS


@pytest.mark.parametrize("players", range(2, 8))
def test_24_cards_form_the_deck_and_9_go_back_unseen(players):
    """FR: «On mélange les 33 cartes, puis on en compte 24 [...] Les 9 cartes restantes sont remises dans la boîte
    sans que personne ne les regarde.» ES: «Las 9 cartas sobrantes vuelven a la caja sin que nadie las mire.»"""
    state = new_game(GameConfig(players=players), seed=11)
    assert len(state.deck) == CARDS_PLAYED == 24
    assert len(state.removed) == CARDS_REMOVED == 9
    assert not set(state.deck) & set(state.removed)
    for seat in range(players):
        view = view_for(state, seat)
        assert not hasattr(view, "removed") and not hasattr(view, "deck")
        assert "removed" not in view.to_dict() and "deck" not in view.to_dict()


def test_the_set_aside_cards_are_never_played():
    """EN FAQ: «No, the set-aside cards are not used in the game and should remain in the box.»"""
    state = play(new_game(GameConfig(players=3), seed=5), "t" * 24)
    assert state.finished
    held = {card for hand in state.hands for card in hand}
    assert held == set(state.deck)
    assert not held & set(state.removed)


def test_shuffling_differs_between_seeds_and_is_repeatable():
    """FR: «On mélange les 33 cartes» — a real shuffle, repeatable from the seed alone."""
    deals = {new_game(GameConfig(players=3), seed=seed).deck for seed in range(50)}
    assert len(deals) == 50
    assert new_game(GameConfig(players=3), seed=42) == new_game(GameConfig(players=3), seed=42)


def test_the_same_seed_deals_the_same_game_on_every_machine():
    """Determinism across machines: Python's Random(int) and shuffle are specified; this deal must never change,
    or old records would no longer match their seed."""
    state = new_game(GameConfig(players=3), seed=12345)
    assert state.deck[:6] == (7, 10, 22, 17, 34, 30)
    assert state.removed == (3, 9, 11, 12, 14, 28, 29, 33, 35)
    assert state.first_player == 0


# --- Chips are hidden ---------------------------------------------------------------------------------------


def test_chips_are_kept_hidden_from_the_opponents():
    """FR: «Pendant toute la partie, les jetons se gardent cachés en main, hors de vue des adversaires.»
    ES: «Durante toda la partida las fichas se mantienen ocultas en la mano.»"""
    state = new_game(GameConfig(players=4), seed=2)
    for seat in range(4):
        view = view_for(state, seat)
        assert view.chips[seat] == 11
        assert all(view.chips[other] is None for other in range(4) if other != seat)
    assert all(chips is None for chips in spectator_view(state).chips)


def test_players_may_choose_to_show_their_chips():
    """FR (001): «Les joueurs ont également la possibilité de cacher leurs jetons aux autres s'ils le souhaitent.»
    So hiding is a table choice: with open chips every count is visible."""
    state = play(new_game(GameConfig(players=4, open_chips=True), seed=2), "pp")
    for seat in range(4):
        assert view_for(state, seat).chips == state.chips
    assert spectator_view(state).chips == state.chips


# --- Déroulement / play -------------------------------------------------------------------------------------


def test_the_starting_player_is_chosen_at_random():
    """FR: «On détermine au hasard qui commence.» EN: «Determine the starting player by any agreed-upon method.»"""
    firsts = [new_game(GameConfig(players=5), seed=seed).first_player for seed in range(200)]
    assert set(firsts) == set(range(5))
    state = new_game(GameConfig(players=5), seed=9)
    assert state.to_move == state.first_player


def test_the_starting_player_turns_over_the_top_card():
    """FR: «Ce joueur retourne la carte supérieure de la pioche et la pose face visible à côté.»"""
    state = new_game(GameConfig(players=3), seed=3)
    view = view_for(state, state.first_player)
    assert view.card == state.deck[0]
    assert view.deck_left == 23
    assert view.pot == 0


def test_the_choice_is_take_the_card_or_refuse_it_with_a_chip():
    """FR: «Il doit alors choisir : soit prendre la carte et la placer face visible devant lui, soit la refuser
    en posant un de ses jetons à côté d'elle.»"""
    state = dealt([20, 9], players=3)
    assert legal_actions(state) == (Action.TAKE, Action.PASS)
    refused = play(state, "p")
    assert refused.chips[0] == 10 and refused.pot == 1 and refused.card == 20
    taken = play(state, "t")
    assert taken.hands[0] == (20,) and taken.chips[0] == 11


def test_a_refusal_passes_the_turn_to_the_left_neighbour_clockwise():
    """FR: «S'il refuse, le tour passe à son voisin de gauche [...] Le jeu tourne ainsi dans le sens des aiguilles
    d'une montre.» EN: «Play passes clockwise.» Seats are numbered clockwise, so the turn goes seat -> seat + 1."""
    state = dealt([20], players=4, first=2)
    assert [play(state, "p" * k).to_move for k in range(1, 6)] == [3, 0, 1, 2, 3]


def test_the_next_player_takes_the_card_and_the_chips_or_adds_one():
    """FR: «prendre la carte et le jeton qui l'accompagne, ou refuser à son tour en ajoutant un de ses propres
    jetons.» EN step 3."""
    state = play(dealt([20, 9], players=3), "p")
    assert play(state, "p").pot == 2 and play(state, "p").chips[1] == 10
    took = play(state, "t")
    assert took.hands[1] == (20,) and took.chips[1] == 12 and took.pot == 0


def test_the_chip_pile_can_grow_large():
    """FR: «la pile de jetons posés à côté de la carte peut grossir considérablement — [...] une carte à 30 points
    devient tentante quand douze jetons l'accompagnent.» EN step 5: «Players can decline cards multiple times.»"""
    state = play(dealt([30], players=3), "p" * 12)
    assert state.card == 30 and state.pot == 12
    assert state.chips == (7, 7, 7)
    took = play(state, "t")
    assert took.hands[0] == (30,) and took.chips[0] == 7 + 12


def test_the_taker_turns_over_the_next_card_and_decides_again():
    """FR: «C'est ensuite à lui de retourner la carte suivante de la pioche, et de décider à nouveau s'il la prend
    ou la refuse.» ES: «es ese mismo jugador quien levanta la siguiente carta del mazo y vuelve a decidir.»"""
    state = play(dealt([20, 9, 4], players=3), "pp t")
    assert state.to_move == 2
    assert state.card == 9 and state.pot == 0
    assert view_for(state, 2).my_turn


def test_taken_cards_are_laid_face_up_for_all_to_see():
    """FR: «la placer face visible devant lui»; «Chacun peut ainsi estimer à vue le score des autres.»"""
    state = play(dealt([20, 9, 4], players=3), "p t")
    for seat in range(3):
        assert view_for(state, seat).hands[1] == (20,)
    assert spectator_view(state).hands[1] == (20,)


def test_a_player_without_chips_must_take():
    """FR FAQ: «Un joueur qui n'en a plus n'a donc plus le choix : il doit prendre la carte face visible — et il
    récupère du même coup tous les jetons posés dessus.» ES: «Ya no puedes rechazar.»
    EN: «To avoid taking a card, a player must pay a chip.»"""
    state = play(dealt([30], players=2, chips=2), "pppp")
    assert state.chips == (0, 0) and state.pot == 4
    assert legal_actions(state) == (Action.TAKE,)
    with pytest.raises(IllegalMove) as refused:
        play(state, "p")
    assert refused.value.code == "no_chips"
    took = play(state, "t")
    assert took.chips[0] == 4, "the taker gets every chip on the card back"
    assert legal_actions(took) == (Action.TAKE, Action.PASS)


def test_the_game_ends_when_the_last_of_the_24_cards_is_taken():
    """FR: «La partie se termine dès que la dernière des 24 cartes a trouvé preneur.»
    ES: «En el momento en que alguien acepta la última carta del mazo de 24.»"""
    state = new_game(GameConfig(players=3), seed=8)
    state = play(state, "t" * 23)
    assert not state.finished and state.deck_left == 0 and state.card is not None
    state = play(state, "p t")
    assert state.finished and state.card is None
    assert legal_actions(state) == ()
    for action in ("take", "pass"):
        with pytest.raises(IllegalMove) as refused:
            play(state, action[0])
        assert refused.value.code == "game_over"


# --- Décompte / scoring -------------------------------------------------------------------------------------


def test_each_card_is_worth_its_number():
    """FR: «Chaque carte vaut exactement le nombre qu'elle affiche : un 7 vaut sept points, un 15 en vaut quinze,
    un 29 en vaut vingt-neuf.»"""
    assert card_points([7]) == 7 and card_points([15]) == 15 and card_points([29]) == 29
    assert card_points([7, 15, 29]) == 51


def test_an_unbroken_run_counts_only_its_lowest_card():
    """FR: «Un joueur qui a le 8 et le 9 devant lui ne marque que 8 points pour les deux. Avec 17, 18, 19 et 20, il
    ne marque que 17 points au total.» FR (001): «30, 29, 28 et 27 serait considérée comme un ensemble de 27
    points.» ES: «17-18-19-20 son diecisiete puntos, no setenta y cuatro.»"""
    assert card_points([8, 9]) == 8
    assert card_points([17, 18, 19, 20]) == 17
    assert card_points([30, 29, 28, 27]) == 27
    assert sum([17, 18, 19, 20]) == 74


def test_each_chip_left_takes_one_point_off():
    """FR: «chaque jeton encore en main retire un point du total.» ES: «Restan: cada ficha que conservas descuenta
    un punto de tu total.»"""
    assert score([20], 0) == 20
    assert score([20], 5) == 15
    assert score([], 11) == -11


def test_the_rule_books_example_59_points_with_8_chips_is_51():
    """FR: «un joueur termine avec trois cartes isolées et deux suites, totalisant 59 points (3 + 7 + 10 + 14 + 25).
    Il lui reste 8 jetons, son score final est donc de 51 points.» ES: the same example."""
    parts = breakdown([3, 7, 10, 14, 15, 16, 25, 26], chips=8)
    assert parts.runs == ((3,), (7,), (10,), (14, 15, 16), (25, 26))  # three isolated cards and two runs
    assert parts.card_total == 59 == 3 + 7 + 10 + 14 + 25
    assert parts.chips == 8
    assert parts.score == 51


def test_extending_a_run_downwards_lowers_the_total():
    """FR: «un joueur qui a déjà le 23 devant lui et qui ramasse le 22 ne voit pas son total grimper de 22 points :
    ses deux cartes ne comptent plus que 22 points au lieu des 23 qu'il avait déjà.»"""
    assert card_points([23]) == 23 and card_points([22, 23]) == 22
    assert take_cost([23], 22) == -1


def test_a_card_next_to_your_run_is_almost_free():
    """ES: «Un 24 son veinticuatro puntos para casi toda la mesa, pero es casi gratis para quien ya tiene el 25
    delante, y las fichas apiladas encima son beneficio puro.»"""
    assert take_cost([], 24) == 24
    assert take_cost([25], 24) == -1
    assert take_cost([23], 24) == 0
    assert take_cost([23, 25], 24) == -25, "bridging two runs removes the upper run's lowest card"
    state = play(dealt([25, 24], players=2), "t pp")  # seat 0 holds 25; 24 comes round with 2 chips on it
    before = score(state.hands[0], state.chips[0])
    state = play(state, "t")
    assert before == 25 - 10
    assert score(state.hands[0], state.chips[0]) == 24 - 12 == before - 1 - 2


def test_the_lowest_score_wins():
    """FR: «Le joueur ayant le score le plus faible remporte la partie.» EN: «The player with the lowest final
    score wins the game.»"""
    assert winners([40, 12, 33]) == (1,)


def test_ties_share_the_win():
    """FR (001): «Le joueur ou les joueurs avec le total de points le plus bas gagnent la partie.»"""
    assert winners([12, 30, 12]) == (0, 2)


def test_final_scores_add_isolated_cards_and_run_lows_minus_chips():
    """FR: «Chaque joueur additionne alors la valeur de toutes ses cartes isolées, plus la valeur de la carte la plus
    basse de chacune de ses suites ininterrompues. Il retranche ensuite de ce total le nombre de jetons qui lui
    restent.» Checked over a whole game against the arithmetic written out here."""
    state = new_game(GameConfig(players=3), seed=21)
    state = play(state, "pt" * 24)
    for hand, chips, final in zip(state.hands, state.chips, state.scores()):
        lows = [card for card in hand if card - 1 not in hand]
        assert final == sum(lows) - chips


# --- Player counts ------------------------------------------------------------------------------------------


def test_player_counts_two_to_seven():
    """FR (001): «idéal pour des groupes de trois à sept joueurs.» EN: «It can be played by 2 to 5 players.»
    We allow 2 (house variant) to 7; fewer or more is refused with a clear error."""
    for players in range(2, 8):
        assert new_game(GameConfig(players=players), seed=1).players == players
    for players in (0, 1, 8):
        with pytest.raises(IllegalMove) as refused:
            GameConfig(players=players)
        assert refused.value.code == "bad_config"


def test_the_box_holds_55_chips():
    """«55 jetons»: a chip override that the box cannot supply is refused."""
    assert GameConfig(players=5, chips_per_player=11).chips == 11
    with pytest.raises(IllegalMove):
        GameConfig(players=6, chips_per_player=10)
