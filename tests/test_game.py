"""onlinerank.game.Game: validation of the game's parameters, M from the family's closed form
(theory §1.1), the number of chosen items per round."""

import dataclasses

import pytest

from onlinerank.game import Game


@pytest.mark.parametrize(
    ("family", "n", "k", "M"),
    [
        ("single", 7, 1, 6.0),  # n - 1
        ("kchoice", 10, 3, 21.0),  # k (n - k)
        ("subset", 7, 1, 12.0),  # floor(n^2 / 4)
        ("subset", 8, 1, 16.0),
        ("spearman", 4, 1, 16 * 15 / 12),  # n^2 (n^2 - 1) / 12
    ],
)
def test_M_defaults_to_the_family_closed_form(family, n, k, M):
    g = Game(n=n, T=5, family=family, k=k)
    assert g.M == M
    assert isinstance(g.M, float)


def test_an_explicit_M_is_kept_and_graded_needs_one():
    assert Game(n=5, T=3, family="graded", M=2.5).M == 2.5
    assert Game(n=5, T=3, M=100.0).M == 100.0  # a looser M for single choice is allowed
    with pytest.raises(ValueError, match="graded feedback needs an explicit M"):
        Game(n=5, T=3, family="graded")


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"n": 1, "T": 3}, "n must be an integer >= 2"),
        ({"n": True, "T": 3}, "n must be an integer >= 2"),
        ({"n": 4.0, "T": 3}, "n must be an integer >= 2"),
        ({"n": 4, "T": 0}, "T must be an integer >= 1"),
        ({"n": 4, "T": False}, "T must be an integer >= 1"),
        ({"n": 4, "T": 3, "family": "pairs"}, "unknown feedback family 'pairs'"),
        ({"n": 4, "T": 3, "family": "kchoice", "k": 0}, "k must be an integer >= 1"),
        ({"n": 4, "T": 3, "family": "kchoice", "k": 5}, "k must be <= n"),
        ({"n": 5, "T": 3, "family": "kchoice", "k": 3}, "k <= n/2"),
        ({"n": 4, "T": 3, "family": "single", "k": 2}, "single choice has k=1"),
        ({"n": 4, "T": 3, "M": 0.0}, "M must be positive"),
        ({"n": 4, "T": 3, "family": "graded", "M": -1.0}, "M must be positive"),
    ],
)
def test_invalid_games_are_refused_naming_the_parameter(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        Game(**kwargs)


def test_boundary_games_are_accepted():
    assert Game(n=2, T=1).M == 1.0
    assert Game(n=6, T=1, family="kchoice", k=3).M == 9.0  # k = n/2 exactly


@pytest.mark.parametrize(
    ("family", "n", "k", "chosen"),
    [("single", 6, 1, 1), ("kchoice", 9, 4, 4), ("subset", 9, 1, 4), ("spearman", 6, 1, None)],
)
def test_chosen_items_per_round(family, n, k, chosen):
    assert Game(n=n, T=2, family=family, k=k).chosen == chosen
    assert Game(n=n, T=2, family="graded", M=1.0).chosen is None


def test_game_is_frozen_and_compares_by_value():
    g = Game(n=4, T=10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.n = 5
    assert g == Game(n=4, T=10, family="single", k=1, M=3.0)
    assert hash(g) == hash(Game(n=4, T=10))
