"""The trace (log replay) adversary: round trips, validation messages, replay through simulate."""

import numpy as np
import pytest

from onlinerank import Game, exact_expected_regret, make_adversary, simulate
from onlinerank.adversaries.trace import TraceAdversary, TraceError, read_trace
from onlinerank.learners.onlinerank import OnlineRank
from onlinerank.seeding import replicate_streams


def write(tmp_path, text, name="log.csv", mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def replay(adv, game, reps=3):
    adv.reset(game, replicate_streams(0, ("trace",), range(reps), "adversary"))
    out = np.stack([adv.feedback(t, None).dense.copy() for t in range(1, game.T + 1)])
    assert np.all(out == out[:, :1])  # every replicate replays the same log
    return out[:, 0]


# --- round trips ---------------------------------------------------------------------------------
def test_items_roundtrip_single_kchoice_subset(tmp_path):
    rng = np.random.default_rng(1)
    n, T = 7, 40
    cases = {
        "single": (1, [[int(rng.integers(n))] for _ in range(T)]),
        "kchoice": (3, [sorted(rng.choice(n, 3, replace=False).tolist()) for _ in range(T)]),
        "subset": (1, [rng.choice(n, int(rng.integers(1, n + 1)), replace=False).tolist() for _ in range(T)]),
    }
    for family, (k, rows) in cases.items():
        text = "# clicks\n" + "".join(" , ".join(map(str, r)) + "\n" for r in rows)
        p = write(tmp_path, text, f"{family}.csv")
        want = np.zeros((T, n))
        for t, r in enumerate(rows):
            want[t, r] = 1.0
        np.testing.assert_array_equal(read_trace(p, n, family, k), want)
        game = Game(n=n, T=T, family=family, k=k)
        np.testing.assert_array_equal(replay(make_adversary("trace", path=str(p)), game), want)


def test_scores_roundtrip_graded_and_spearman(tmp_path):
    rng = np.random.default_rng(2)
    n, T = 5, 30
    vals = rng.normal(size=(T, n)) * 10.0 ** rng.integers(-3, 4, size=(T, 1))
    p = write(tmp_path, "".join(",".join(repr(float(x)) for x in r) + "\n" for r in vals))
    np.testing.assert_array_equal(read_trace(p, n, "graded"), vals)  # repr round-trips exactly
    game = Game(n=n, T=T, family="graded", M=1.0)
    np.testing.assert_array_equal(replay(TraceAdversary(path=p), game), vals)

    sig = np.stack([rng.permutation(n) + 1 for _ in range(T)])
    p = write(tmp_path, "".join(",".join(str(-x) for x in r) + "\n" for r in sig), "sp.csv")
    np.testing.assert_array_equal(read_trace(p, n, "spearman"), -sig)
    # the same rounds as rankings (items best first) in the items format
    orders = np.argsort(sig, axis=1)
    p2 = write(tmp_path, "".join(",".join(map(str, r)) + "\n" for r in orders), "sp_items.csv")
    np.testing.assert_array_equal(read_trace(p2, n, "spearman", format="items"), -sig)
    np.testing.assert_array_equal(replay(TraceAdversary(path=p), Game(n=n, T=T, family="spearman")), -sig)


def test_binary_scores_format_and_file_conventions(tmp_path):
    # 0/1 score vectors for k-choice; CRLF line ends, a UTF-8 byte-order mark, no final newline,
    # indented comments and blanks around fields are all fine
    text = "\ufeff# header comment\r\n1, 0,0,1\r\n  # indented comment\r\n0,1,1,0"
    p = write(tmp_path, text)
    np.testing.assert_array_equal(
        read_trace(p, 4, "kchoice", 2, format="scores"), [[1, 0, 0, 1], [0, 1, 1, 0]]
    )


def test_replay_regret_equals_exact_regret_of_the_sequence(tmp_path):
    rng = np.random.default_rng(3)
    n, T = 6, 50
    rows = [sorted(rng.choice(n, 2, replace=False).tolist()) for _ in range(T + 5)]
    p = write(tmp_path, "".join(",".join(map(str, r)) + "\n" for r in rows))
    game = Game(n=n, T=T, family="kchoice", k=2)
    res = simulate(OnlineRank(), make_adversary("trace", path=str(p)), game, 3, sample=True, K=20)
    seq = read_trace(p, n, "kchoice", 2)[:T]  # a longer log is truncated to T rounds
    want = exact_expected_regret(seq, res.meta["learner_eta_value"])
    np.testing.assert_allclose(res.regret[:, -1], want, rtol=1e-9)
    assert res.meta["adversary_path"] == str(p) and len(res.meta["adversary_sha256"]) == 64


def test_in_memory_rounds_and_example():
    adv = TraceAdversary(rounds=["2", "# c", "0", "1"])
    np.testing.assert_array_equal(replay(adv, Game(n=3, T=3)), np.eye(3)[[2, 0, 1]])
    arr = np.array([[0, 1], [2, 3], [1, 3]])
    np.testing.assert_array_equal(
        replay(TraceAdversary(rounds=arr), Game(n=4, T=3, family="kchoice", k=2)),
        [[1, 1, 0, 0], [0, 0, 1, 1], [0, 1, 0, 1]],
    )
    for game in (
        Game(n=6, T=30),
        Game(n=6, T=30, family="kchoice", k=2),
        Game(n=6, T=30, family="subset"),
        Game(n=5, T=30, family="spearman"),
        Game(n=4, T=9, family="graded", M=10.0),
    ):
        assert game.family in TraceAdversary.families
        replay(TraceAdversary.example(), game)
    with pytest.raises(TraceError, match="'<rounds>', line 2: item id 5 out of range"):
        TraceAdversary(rounds=["1", "5"]).check(Game(n=3, T=2))


# --- validation ----------------------------------------------------------------------------------
BAD = [  # (family, k, format, text, bad line, words in the message)
    ("single", 1, "auto", "0\n1\n7\n", 3, "out of range 0..5"),
    ("single", 1, "auto", "0\n-1\n", 2, "out of range"),
    ("single", 1, "auto", "0\nx\n", 2, "not an integer"),
    ("single", 1, "auto", "0\n1.0\n", 2, "not an integer"),
    ("single", 1, "auto", "0\n\n1\n", 2, "empty line"),
    ("single", 1, "auto", "0\n1\n   \n", 3, "empty line"),
    ("single", 1, "auto", "# c\n0,1\n", 2, "exactly 1 item"),
    ("kchoice", 2, "auto", "0,1\n0,1,2\n", 2, "exactly 2 item ids"),
    ("kchoice", 2, "auto", "0,1\n3\n", 2, "exactly 2 item ids"),
    ("kchoice", 2, "auto", "0,1\n3,3\n", 2, "repeated"),
    ("kchoice", 2, "auto", "0,,1\n", 1, "empty field"),
    ("kchoice", 2, "auto", "0,1,\n", 1, "empty field"),
    ("subset", 1, "auto", "0,1,2\n1,4,1\n", 2, "repeated"),
    ("spearman", 1, "items", "0,1,2,3,4,5\n0,1,2\n", 2, "full ranking"),
    ("spearman", 1, "auto", "-1,-2,-3,-4,-5,-6\n-1,-2,-3,-4,-5,-5\n", 2, "permutation"),
    ("graded", 1, "auto", "1,2,3,4,5,6\n1,2,3\n", 2, "expected n=6 scores, got 3"),
    ("graded", 1, "auto", "1,2,3,4,5,6\n1,2,3,4,5,6,7\n", 2, "expected n=6 scores, got 7"),
    ("graded", 1, "auto", "1,2,3,4,5,6\n1,2,abc,4,5,6\n", 2, "not a number"),
    ("graded", 1, "auto", "1,2,3,4,5,6\n1,2,nan,4,5,6\n", 2, "not finite"),
    ("graded", 1, "auto", "1,2,3,4,5,6\n1,2,3,inf,5,6\n", 2, "not finite"),
    ("graded", 1, "auto", "1,2,3,4,5,6\n1,2,3,-Infinity,5,6\n", 2, "not finite"),
    ("single", 1, "scores", "0,0,1,0,0,0\n0,1,1,0,0,0\n", 2, "exactly 1 ones"),
    ("kchoice", 2, "scores", "0,0,1,0,0,1\n0,0.5,1,0,0,0\n", 2, "0 or 1"),
    ("subset", 1, "scores", "0,0,0,0,0,0\n", 1, "at least one"),
]


@pytest.mark.parametrize(
    "family, k, fmt, text, line, words", BAD, ids=[f"{i}-{b[5].split()[0]}" for i, b in enumerate(BAD)]
)
def test_malformed_lines_name_file_and_line(tmp_path, family, k, fmt, text, line, words):
    p = write(tmp_path, text, "my_clicks.csv")
    with pytest.raises(ValueError) as e:
        read_trace(p, 6, family, k, format=fmt)
    msg = str(e.value)
    assert "my_clicks.csv" in msg and f"line {line}:" in msg and words in msg, msg
    # the adversary fails the same way up front, in check() (config validation) and reset()
    game = Game(n=6, T=1, family=family, k=k, M=1.0 if family == "graded" else None)
    adv = make_adversary("trace", path=str(p), format=fmt)
    with pytest.raises(ValueError, match=f"line {line}:"):
        adv.check(game)
    with pytest.raises(ValueError, match=f"line {line}:"):
        adv.reset(game, replicate_streams(0, ("t",), [0], "adversary"))


@pytest.mark.parametrize(
    "data, line, words",
    [
        (b"0\n1\n\x00\x01\x02\n", 3, "NUL byte"),
        (b"0\n1\n2\n\xff\xfe\x80\n", 4, "not valid UTF-8"),
        (bytes(range(256)) * 4, 1, "binary"),
    ],
)
def test_binary_files_are_refused(tmp_path, data, line, words):
    p = write(tmp_path, data, "blob.bin", mode="wb")
    with pytest.raises(ValueError) as e:
        read_trace(p, 6, "single")
    msg = str(e.value)
    assert "blob.bin" in msg and f"line {line}:" in msg and words in msg, msg


def test_missing_file_and_directory(tmp_path):
    p = tmp_path / "nope" / "clicks.csv"
    with pytest.raises(ValueError, match="not found") as e:
        read_trace(p, 6, "single")
    assert str(p) in str(e.value)
    with pytest.raises(ValueError, match="clicks.csv.*not found"):
        make_adversary("trace", path=str(p)).check(Game(n=6, T=3))
    with pytest.raises(ValueError, match="is a directory"):
        read_trace(tmp_path, 6, "single")


@pytest.mark.parametrize("text", ["", "# a comment\n", "# one\n   # two\n"])
def test_a_log_without_a_round_is_refused_naming_the_file(tmp_path, text):
    p = write(tmp_path, text, "quiet.csv")
    with pytest.raises(
        TraceError, match=r"quiet\.csv' holds no rounds \(it is empty or has comment lines only\)"
    ):
        read_trace(p, 4, "single")
    with pytest.raises(TraceError, match=r"quiet\.csv' holds no rounds"):
        make_adversary("trace", path=str(p)).check(Game(n=4, T=1))


def test_a_spearman_ranking_reads_with_format_items_and_the_default_says_so(tmp_path):
    """auto reads a Spearman line as scores -sigma; a ranking of item ids (best first) is format
    items, and the default's error says so."""
    p = write(tmp_path, "2,0,1,3\n", "ranking.csv")
    with pytest.raises(TraceError, match=r"line 1: Spearman scores .*is format 'items'"):
        read_trace(p, 4, "spearman")
    sigma = np.array([2, 3, 1, 4])  # item 2 first, then 0, 1, 3
    np.testing.assert_array_equal(read_trace(p, 4, "spearman", format="items"), [-sigma])
    np.testing.assert_array_equal(read_trace(write(tmp_path, "-2,-3,-1,-4\n"), 4, "spearman"), [-sigma])


def test_too_few_rounds_fails_up_front(tmp_path):
    p = write(tmp_path, "# two rounds only\n0\n1\n", "short.csv")
    adv = make_adversary("trace", path=str(p))
    adv.check(Game(n=3, T=2))  # fine for T = 2
    with pytest.raises(ValueError, match=r"short\.csv.* has 2 rounds .*T=5"):
        adv.check(Game(n=3, T=5))
    with pytest.raises(ValueError, match="has 2 rounds"):
        simulate(OnlineRank(), adv, Game(n=3, T=5), 1, K=20, sample=True)


def test_game_mismatch_and_bad_arguments(tmp_path):
    p = write(tmp_path, "0,1\n2,3\n")
    with pytest.raises(ValueError, match="line 1: single choice needs exactly 1"):
        make_adversary("trace", path=str(p)).check(Game(n=4, T=2))
    with pytest.raises(ValueError, match="line 2: item id 3 out of range 0..2"):
        read_trace(p, 3, "subset")
    with pytest.raises(ValueError, match="format 'items' cannot express graded"):
        read_trace(p, 4, "graded", format="items")
    with pytest.raises(ValueError, match="exactly one of path"):
        TraceAdversary()
    with pytest.raises(ValueError, match="exactly one of path"):
        TraceAdversary(path=p, rounds=["0"])
    with pytest.raises(ValueError, match="format must be one of"):
        TraceAdversary(path=p, format="csv")
