"""Result statistics against hand-computed figures, and every rendering."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from guessgym.evaluation.report import (
    compact_distribution,
    gap_text,
    leaderboard,
    leaderboard_report,
    optimum_note,
    plot_histogram,
    plot_leaderboard,
    plot_win_rate_curves,
    rank,
    result_markdown,
)
from guessgym.evaluation.results import EvaluationResult, GameRecord

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def make(agent: str, outcomes: list[int | None], game: str = "toy", max_attempts: int = 6,
         seconds: float = 0.5) -> EvaluationResult:
    """A result whose game ``i`` took ``outcomes[i]`` guesses (``None`` = failed)."""
    records = [
        GameRecord(f"w{i:02d}", n if n is not None else max_attempts, n is not None, seconds=seconds)
        for i, n in enumerate(outcomes)
    ]
    return EvaluationResult(agent, f"{agent} plays", "guessgym/Toy-v1", game, max_attempts, records)


@pytest.fixture
def result() -> EvaluationResult:
    # 8 games: guesses 2, 3, 3, 4, 4, 4, 6 and one failure.
    return make("demo", [3, 4, None, 2, 4, 6, 3, 4])


def test_statistics_hand_computed(result: EvaluationResult) -> None:
    assert result.n_games == 8 and result.n_solved == 7 and result.n_failed == 1
    assert result.win_rate == pytest.approx(7 / 8)
    assert result.mean_guesses == pytest.approx(26 / 7)  # (2+3+3+4+4+4+6) / 7
    assert result.mean_guesses_with_failures == pytest.approx((26 + 7) / 8)
    mean = 26 / 7
    std = math.sqrt(sum((x - mean) ** 2 for x in [2, 3, 3, 4, 4, 4, 6]) / 7)
    assert result.std_guesses == pytest.approx(std)
    assert result.max_guesses == 6
    assert result.distribution == {1: 0, 2: 1, 3: 2, 4: 3, 5: 0, 6: 1, "X": 1}
    assert result.seconds_per_game == pytest.approx(0.5) and result.total_seconds == pytest.approx(4.0)
    assert [result.win_rate_at(m) for m in range(1, 7)] == pytest.approx([0, 1 / 8, 3 / 8, 6 / 8, 6 / 8, 7 / 8])
    assert result.win_rate_curve()[-1] == (6, pytest.approx(7 / 8))
    with pytest.raises(ValueError, match="between 1 and max_attempts=6"):
        result.win_rate_at(7)
    # Failure first, then most guesses; ties keep play order.
    assert [(r.answer, r.guesses, r.solved) for r in result.hardest(4)] == [
        ("w02", 6, False), ("w05", 6, True), ("w01", 4, True), ("w04", 4, True),
    ]
    assert compact_distribution(result) == "2:1 3:2 4:3 5:0 6:1 X:1"


def test_empty_and_all_failed_results() -> None:
    empty = make("none", [])
    assert math.isnan(empty.win_rate) and math.isnan(empty.mean_guesses) and empty.max_guesses is None
    failed = make("fail", [None, None])
    assert failed.win_rate == 0 and math.isnan(failed.mean_guesses) and math.isnan(failed.std_guesses)
    assert failed.mean_guesses_with_failures == 7
    assert "| - |" in result_markdown(failed)
    assert EvaluationResult.from_json(failed.to_json()).records == failed.records  # NaN-free JSON


def test_records_equal_regardless_of_time() -> None:
    assert GameRecord("a", 3, True, seconds=1.0) == GameRecord("a", 3, True, seconds=2.0)
    assert GameRecord("a", 3, True) != GameRecord("a", 4, True)


def test_markdown_contains_the_figures(result: EvaluationResult) -> None:
    md = result_markdown(result)
    assert "### demo on toy" in md and "demo plays" in md
    assert "| demo | toy | 8 | 87.50 | 3.7143 | 4.1250 |" in md
    assert "| games | 0 | 1 | 2 | 3 | 0 | 1 | 1 |" in md
    assert "Hardest answers: w02 (X), w05 (6)" in md
    assert "mean (solved)" in md and "X = 7" in md


def test_json_round_trip(result: EvaluationResult, tmp_path: Path) -> None:
    result.records[0] = GameRecord("w00", 3, True, played=("aa", "bb", "w00"), seconds=0.25, note="")
    result.meta.update(seed=3, label="variant", weird=float("nan"))
    text = result.to_json()
    data = json.loads(text)
    assert data["summary"]["win_rate"] == pytest.approx(7 / 8) and data["meta"]["weird"] is None
    back = EvaluationResult.from_json(text)
    assert back.records == result.records and back.records[0].played == ("aa", "bb", "w00")
    assert back.records[0].seconds == 0.25
    assert (back.agent, back.description, back.env_id, back.game, back.max_attempts) == (
        "demo", "demo plays", "guessgym/Toy-v1", "toy", 6)
    assert back.summary()["mean_solved"] == pytest.approx(result.mean_guesses)
    path = tmp_path / "sub" / "demo.json"
    result.to_json(path)
    assert EvaluationResult.from_json(path).records == result.records
    assert sorted(p.name for p in path.parent.iterdir()) == ["demo.json"]  # no temporary file left
    with pytest.raises(ValueError, match="unsupported result format"):
        EvaluationResult.from_dict({**data, "format": 99})


def test_json_is_columnar_and_compact(result: EvaluationResult) -> None:
    result.records[2] = GameRecord("w02", 3, False, seconds=0.1234567891, note="lost after 5 rejected actions")
    data = json.loads(result.to_json(indent=None))
    records = data["records"]
    assert records["answer"][:3] == ["w00", "w01", "w02"]
    assert records["guesses"][:3] == [3, 4, 3] and records["solved"][:3] == [1, 1, 0]
    assert records["seconds"][2] == 0.123457 and "played" not in records
    assert records["notes"] == [[2, "lost after 5 rejected actions"]]
    back = EvaluationResult.from_dict(data)
    assert back.records == result.records and back.records[2].note.startswith("lost after")
    # A plain list of record dicts is read too.
    listed = {**data, "records": [r.to_dict() for r in result.records]}
    assert EvaluationResult.from_dict(listed).records == result.records
    broken = {**data, "records": {**records, "solved": records["solved"][:-1]}}
    with pytest.raises(ValueError, match="column 'solved' has 7 entries, expected 8"):
        EvaluationResult.from_dict(broken)


def test_label_from_meta(result: EvaluationResult) -> None:
    assert result.label == "demo"
    result.meta["label"] = "guesses=all"
    assert result.label == "demo (guesses=all)"
    assert "| demo (guesses=all) |" in leaderboard([result])


def test_leaderboard_order_and_columns() -> None:
    a = make("a-mid", [3, 3, 4, 4])  # 100 %, mean 3.5
    b = make("b-best", [3, 3, 3, 4])  # 100 %, mean 3.25
    c = make("c-fails", [2, 2, 2, None])  # 75 %: 3.25 with its failure counted as 7, b's score
    d = make("d-best-tie", [3, 3, 3, 4])  # same figures as b: name breaks the tie
    e = make("e-fails-fast", [1, 1, 2, None])  # 75 %, 2.75 with its failure: better than b
    ranked = [r.agent for r in rank([a, b, c, d, e])]
    assert ranked == ["e-fails-fast", "b-best", "d-best-tie", "c-fails", "a-mid"]
    table = leaderboard([a, b, c, d])
    rows = [line for line in table.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [row.split(" | ")[1] for row in rows] == ["b-best", "d-best-tie", "c-fails", "a-mid"]
    assert rows[0].startswith("| 1 | b-best | toy | 4 | 100.00 | 3.2500 |")
    assert "3:3 4:1 5:0 6:0 X:0" in rows[0] and "X:1" in rows[2]
    header = table.splitlines()[0]
    for column in ("agent", "game", "games", "win %", "mean", "std", "max", "distribution", "s/game"):
        assert column in header
    other = make("z", [1], game="other")
    grouped = leaderboard([a, other, b], by_game=True)
    names = [line.split(" | ")[1] for line in grouped.splitlines()[2:]]
    assert names == ["b-best", "a-mid", "z"]


def test_plots_are_written(result: EvaluationResult, tmp_path: Path) -> None:
    other = make("other", [2, 3, 3, 5, 5, None, None, 4], game="toy")
    nerd = make("nerd", [3, 3, 4], game="nerdle-like", max_attempts=6)
    long = make("long", [3, 9, 12], max_attempts=25)
    paths = [
        plot_histogram(result, tmp_path / "hist.png"),
        plot_leaderboard([result, other, nerd], tmp_path / "board.png"),
        plot_win_rate_curves([result, other, nerd, long], tmp_path / "curves.png"),
        plot_histogram(make("failed", [None]), tmp_path / "failed.png"),
    ]
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 5000, path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.png", "curves.png", "failed.png", "hist.png"]
    with pytest.raises(ValueError, match="at least one result"):
        plot_leaderboard([], tmp_path / "none.png")


def test_the_training_time_plot_leaves_out_the_means_of_policies_that_rarely_win(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mean over a few lucky wins would set the guesses panel's scale (the uniform-start ablation:
    3.0 guesses over 5 wins of 2,309, beside gaps of hundredths); its win rates are still drawn."""
    import matplotlib.pyplot as plt

    from guessgym.evaluation.report import plot_training_time

    drawn: list[tuple[object, list[float]]] = []
    original = plt.Axes.plot

    def spy(self: plt.Axes, *args: object, **kwargs: object) -> object:
        drawn.append((kwargs.get("label"), list(args[1]) if len(args) > 1 else []))  # type: ignore[call-overload]
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(plt.Axes, "plot", spy)
    series = {"cloned": [(20.0, 1.0, 0.004), (40.0, 1.0, 0.0)], "uniform": [(5.0, 0.001, 2.0), (50.0, 0.002, 1.9)]}
    path = plot_training_time(tmp_path / "time.png", "toy", series, references={"greedy": 0.011},
                              guesses_label="gap", min_win_rate=0.99)
    assert path.read_bytes().startswith(PNG_MAGIC)
    labels = [label for label, _ in drawn]
    assert labels.count("cloned") == 2 and labels.count("uniform") == 1  # the uniform start's win rate only
    assert [0.004, 0.0] in [ys for label, ys in drawn if label == "cloned"]


def test_every_curve_of_a_panel_has_its_own_style() -> None:
    """Issue 24: win_rate.png drew 11 agents with 10 colours, two of them the same blue."""
    from guessgym.evaluation.report import curve_styles

    styles = [tuple(sorted(s.items())) for s in curve_styles(24)]
    assert len(set(styles)) == 24
    assert len({s["color"] for s in curve_styles(10)}) == 10  # the first ten differ in colour alone


def test_the_leaderboard_heat_map_fits_every_count_in_its_cell() -> None:
    """Issue 24: with a long row label, 14,765 read ".4,765" and neighbouring counts ran together."""
    pytest.importorskip("matplotlib")
    from guessgym.evaluation.report import leaderboard_figure

    many = [GameRecord(f"a{i}", 3, True) for i in range(14_765)] + [GameRecord(f"b{i}", 2, True) for i in range(1_306)]
    optimum = {"optimum": {"total": 40_000, "proven": False, "lower_bound": 39_000, "opener": "x", "scope": "20"}}
    results = [EvaluationResult("lookahead-3(learned-nerdle) (saved result)", "", "guessgym/Nerdle-v1", "nerdle", 6,
                                many, meta=optimum),  # the longest label of results/main, with its gap text
               EvaluationResult("short", "", "guessgym/Nerdle-v1", "nerdle", 6, many[:20_000])]
    fig = leaderboard_figure(results)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        cell = ax.get_window_extent(renderer).width / len(ax.get_xticks())
        widths = [text.get_window_extent(renderer).width for text in ax.texts]
        assert widths and max(widths) < 0.9 * cell, (max(widths), cell)
        left = min(label.get_window_extent(renderer).x0 for label in ax.get_yticklabels())
        assert left >= 0  # no row label is cut at the figure's left edge


def test_the_report_says_why_a_row_has_no_move_analysis() -> None:
    judged, unjudged = make("judged", [3, 4]), make("unjudged", [3, 3])
    judged.meta["analysis"] = {"mean_loss_per_game": 0.25, "best_move_share": 0.5}
    unjudged.meta["analysis_note"] = "moves not analysed: its pattern matrix is too large."
    text = leaderboard_report([judged, unjudged], title="t")
    row = next(line for line in text.splitlines() if line.startswith("| ") and " unjudged " in line)
    assert " - | " in row and "| 0.2500 (50.0%) |" in text
    assert "* unjudged: moves not analysed: its pattern matrix is too large." in text


def test_the_report_says_how_they_play() -> None:
    plays, silent = make("plays", [3, 4]), make("silent", [3, 3])
    plays.meta["conduct"] = {"games": 2, "guesses": 7, "aborted": 0, "repeated": 1, "repeated_share": 1 / 7,
                             "ignores_hints": 0, "ignores_hints_share": 0.0, "impossible": 2,
                             "impossible_share": 2 / 7, "excluded": 1, "excluded_share": 1 / 7,
                             "clembench": {"speed": 75.0, "closeness_per_guess": 12.5, "strategy_per_guess": None}}
    text = leaderboard_report([plays, silent], title="t")
    # no invalid replies in make()'s records; clembench's strategy unknown here: "-"
    assert "| plays | toy | 7 | 14.29% | 0.00% | 14.29% | 28.57% | 0 | 0.00 | 75.00 | 12.50 | - |" in text
    del plays.meta["conduct"]["excluded_share"]  # a result saved before the count existed: not a zero
    assert "| plays | toy | 7 | 14.29% | 0.00% | - | 28.57% |" in leaderboard_report([plays], title="t")
    assert "| silent | toy |" not in text.split("How they play")[1]
    assert "How they play" not in leaderboard_report([silent], title="t")


def test_a_result_saved_before_a_proof_reads_as_proven_once_the_shipped_optimum_is() -> None:
    """Issue 28: results saved while Wordle's 7,897 was the best known tree keep their gap but say
    what is proven now; a result against another tree (or another game) keeps what it recorded."""
    from guessgym.agents.optima import known_optima

    known = next(k for k in known_optima() if k.env_id == "guessgym/Nerdle-v1")
    assert known.proven
    records = [GameRecord(f"a{i}", 3, True) for i in range(known.answers)]
    stale = {"total": known.total, "proven": False, "lower_bound": known.total - 900, "opener": known.opener,
             "scope": "the 20 most promising openers"}
    saved = EvaluationResult("old", "", "guessgym/Nerdle-v1", "nerdle", 6, records, meta={"optimum": stale})
    assert saved.optimum["proven"] and saved.optimum["lower_bound"] == known.total
    assert saved.gap_to_optimum == (3 * known.answers - known.total, pytest.approx(
        100 * (3 * known.answers - known.total) / known.total))
    assert "*" not in gap_text(saved) and "proven optimal over every tree" in optimum_note(saved)
    assert saved.meta["optimum"] == stale  # the saved record itself is left as it was
    other = {**stale, "opener": "1+2=3"}  # not the shipped tree: nothing is known about it
    unknown = EvaluationResult("old", "", "guessgym/Nerdle-v1", "nerdle", 6, records, meta={"optimum": other})
    assert gap_text(unknown).endswith("*") and "at least" in optimum_note(unknown)
    chat = EvaluationResult("old", "", "guessgym/NerdleChat-v0", "nerdle", 6, records,
                            meta={"optimum": stale, "hard_mode": False})  # another env of the same game
    assert chat.optimum["proven"]
    hard = EvaluationResult("old", "", "guessgym/Nerdle-v1", "nerdle", 6, records,
                            meta={"optimum": stale, "hard_mode": True})  # not the mode the tree was proven for
    assert not hard.optimum["proven"]


# ---- issue 40, item 6: a result read is held to what an evaluation gives -------------------------------------------
def _saved(tmp_path, change) -> str:  # type: ignore[no-untyped-def]
    from guessgym.agents.registry import make_agent
    from guessgym.evaluation import evaluate

    result = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1", sample=3, seed=0, record_guesses=True)
    data = json.loads(result.to_json())
    change(data)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(data))
    return str(path)


FORGERIES = {
    "an attempt limit of 10**9 (20 GB of distribution)": (lambda d: d.update(max_attempts=10**9),
                                                           "max_attempts 1,000,000,000 is not from 0 to 10,000"),
    "a game won in 9 of 6": (lambda d: d["records"]["guesses"].__setitem__(0, 9), "counts 9 guesses, won"),
    "a game won in no guess": (lambda d: d["records"]["guesses"].__setitem__(0, 0), "counts 0 guesses, won"),
    "a game twice": (lambda d: d["records"]["answer"].__setitem__(1, d["records"]["answer"][0]), "is there twice"),
    "another game's words": (lambda d: d["records"]["played"].__setitem__(0, ["crane", "slate"]),
                             "plays 'crane', which micro-nerdle"),
    "an answer not in the game": (lambda d: d["records"]["answer"].__setitem__(0, "1+1=2x"), "not an answer of"),
    "a win whose last guess is not the answer": (lambda d: d["records"]["played"][0].__setitem__(-1, "2*3=6"),
                                                 "is marked won, but its last guess"),
    "a game the options cannot make": (lambda d: d["meta"].update(env_kwargs={"answers": "/etc/passwd"}),
                                       "answers='/etc/passwd' is not a value a saved result may set"),
    "another game's name": (lambda d: d.update(game="wordle-5-nyt"), "says its game is 'wordle-5-nyt'"),
}


@pytest.mark.parametrize("what", sorted(FORGERIES))
def test_a_forged_or_inconsistent_result_is_refused_in_one_line(what: str, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from guessgym.cli import main

    change, message = FORGERIES[what]
    path = _saved(tmp_path, change)
    for argv in (["report", path, "--html", str(tmp_path / "r.html")], ["analyze", path, "--no-progress"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "r.html").exists()
