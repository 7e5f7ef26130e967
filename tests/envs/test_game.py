"""Games and word lists (presets, custom lists, errors), and the pattern-matrix disk cache."""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import guessgym.envs.matrix as matrix_module
from guessgym.envs.candidates import Candidates
from guessgym.envs.game import Game, nerdle, wordle
from guessgym.envs.matrix import PatternMatrix, atomic_save_npy, cached_files
from guessgym.envs.scoring import all_green, pattern_dtype, pattern_matrix, score
from guessgym.infra.atomic import _host
from guessgym.infra.cache import cache_dir
from guessgym.infra.checksum import array_checksum

ENGLISH_SIZES = {3: (665, 1070), 4: (2442, 3459), 5: (4667, 6748), 6: (7352, 11180), 7: (9951, 15845),
                 8: (10500, 17836), 9: (9307, 17155)}

SMALL_ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval", "serve"]
SMALL_GUESSES = SMALL_ANSWERS + ["crane", "slate", "aahed", "zonal", "xylyl"]


# ---- presets ----------------------------------------------------------------------------------------


def test_nyt_preset_is_the_default() -> None:
    game = wordle()
    assert (len(game.answers), len(game.guesses)) == (2309, 12947)
    assert game.kind == "wordle" and game.length == 5 and game.max_attempts == 6 and not game.hard_mode
    assert game.alphabet == "abcdefghijklmnopqrstuvwxyz"
    assert game.name == "wordle-5-nyt" and game.guess_vocabulary == "nyt"
    assert {"agora", "fibre", "lynch", "pupal", "slave", "wench"}.isdisjoint(game.answers)


def test_original_preset() -> None:
    game = wordle(word_list="original")
    assert (len(game.answers), len(game.guesses)) == (2315, 12972)
    assert {"agora", "fibre", "lynch", "pupal", "slave", "wench"} <= set(game.answers)
    assert set(wordle().guesses) < set(game.guesses)


def test_todays_presets() -> None:
    """nyt2022: the NYT-era answers with the 14,855 guesses of Sept 2022; nyt2023: the 3,158 answers."""
    g22, g23 = wordle(word_list="nyt2022"), wordle(word_list="nyt2023")
    assert (len(g22.answers), len(g22.guesses)) == (2309, 14855)
    assert (len(g23.answers), len(g23.guesses)) == (3158, 14855)
    assert g22.answers == wordle().answers and g22.guesses == g23.guesses
    assert set(wordle(word_list="original").guesses) < set(g22.guesses)
    assert set(wordle().answers) - set(g23.answers) == {
        "fanny", "gipsy", "gypsy", "mammy", "pansy", "semen", "welch", "welsh"
    }
    assert (g22.name, g23.name) == ("wordle-5-nyt2022", "wordle-5-nyt2023")
    with pytest.raises(ValueError, match="'nyt2023' only has 5-letter words"):
        wordle(6, word_list="nyt2023")


def test_shipped_lists_match_their_recorded_checksums() -> None:
    import hashlib
    import re
    from importlib import resources

    data = resources.files("guessgym.envs").joinpath("data")
    text = data.joinpath("PROVENANCE.md").read_text(encoding="utf-8")
    recorded = re.findall(r"^([0-9a-f]{64})  (\S+)$", text, flags=re.MULTILINE)
    assert len(recorded) >= 20 and "wordle/answers_3158.txt" in dict((b, a) for a, b in recorded)
    for digest, name in recorded:
        assert hashlib.sha256(data.joinpath(name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("length", sorted(ENGLISH_SIZES))
def test_english_preset_sizes(length: int) -> None:
    game = wordle(length, "english")
    assert (len(game.answers), len(game.guesses)) == ENGLISH_SIZES[length]
    assert game.name == f"wordle-{length}-english"
    assert all(len(w) == length and w.isascii() and w.isalpha() and w.islower() for w in game.guesses)
    assert set(game.answers) <= set(game.guesses)
    if length != 5:  # "english" is the default for every length but 5
        assert wordle(length).answers == game.answers


@pytest.mark.parametrize(
    "factory", [wordle, lambda: wordle(word_list="original"), lambda: wordle(7), lambda: nerdle(7)]
)
def test_derived_fields_are_consistent(factory) -> None:
    game = factory()
    assert len(set(game.guesses)) == len(game.guesses) and len(set(game.answers)) == len(game.answers)
    assert all(game.guesses[game.guess_index[w]] == w for w in game.guesses[:500])
    assert [game.guesses[i] for i in game.answer_to_guess] == list(game.answers)
    assert game.guess_is_answer.sum() == len(game.answers)
    assert game.guess_codes.shape == (len(game.guesses), game.length)
    assert game.answer_codes.shape == (len(game.answers), game.length)
    assert "".join(game.alphabet[c] for c in game.guess_codes[3]) == game.guesses[3]
    assert game.solved_pattern == 3**game.length - 1 and game.n_symbols == len(game.alphabet)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"length": 2}, "Wordle length must be 3 to 9, got 2"),
        ({"length": 10}, "Wordle length must be 3 to 9, got 10"),
        ({"length": 6, "word_list": "nyt"}, "'nyt' only has 5-letter words, got length=6"),
        ({"word_list": "klingon"},
         "word_list must be one of 'nyt', 'original', 'nyt2022', 'nyt2023', 'english'; got 'klingon'"),
        ({"max_attempts": 0}, "max_attempts must be at least 1, got 0"),
    ],
)
def test_bad_wordle_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        wordle(**kwargs)


# ---- custom lists --------------------------------------------------------------------------------


def test_custom_lists_from_iterables() -> None:
    game = wordle(answers=SMALL_ANSWERS, guesses=(w.upper() for w in SMALL_GUESSES))
    assert game.answers == tuple(SMALL_ANSWERS) and game.guesses == tuple(SMALL_GUESSES)  # order kept, lower case
    assert game.guess_vocabulary == "custom" and game.name == "wordle-5-custom"
    only_answers = wordle(answers=SMALL_ANSWERS)
    assert only_answers.guesses == only_answers.answers
    four = wordle(4, answers=["able", "bake"], guesses=["able", "bake", "cake"], max_attempts=3, hard_mode=True)
    assert four.length == 4 and four.max_attempts == 3 and four.hard_mode and four.name.endswith("-hard")


def test_custom_lists_from_files(tmp_path: Path) -> None:
    answers = tmp_path / "answers.txt"
    answers.write_text("# my answers\nCigar\n\n  rebut  \nsissy\n", encoding="utf-8")
    guesses = tmp_path / "guesses.txt"
    guesses.write_text("\n".join(["cigar", "rebut", "sissy", "crane"]) + "\n", encoding="utf-8")
    game = wordle(answers=answers, guesses=str(guesses))
    assert game.answers == ("cigar", "rebut", "sissy")
    assert game.guesses == ("cigar", "rebut", "sissy", "crane")


def test_custom_guesses_with_preset_answers() -> None:
    game = wordle(guesses=list(wordle().guesses) + ["zzzzz"])
    assert len(game.answers) == 2309 and len(game.guesses) == 12948
    with pytest.raises(ValueError, match="answer entry 0 'aback' is not in the guess list"):
        wordle(guesses=SMALL_GUESSES)


@pytest.mark.parametrize(
    ("answers", "guesses", "error", "message"),
    [
        (["cigar", "rebuts"], None, ValueError, r"answer entry 1 'rebuts' has length 6, expected 5"),
        (["cigar", "reb t"], None, ValueError, r"answer entry 1 'reb t' contains ' '"),
        (["cigar", "r3but"], None, ValueError, r"answer entry 1 'r3but' contains '3'"),
        (["cigar", "rébut"], None, ValueError, r"answer entry 1 'rébut' contains 'é'"),
        (["cigar", "rebut", "Cigar"], None, ValueError, r"answer entry 2 'cigar' is a duplicate"),
        (["cigar", "crane"], ["cigar", "rebut"], ValueError, r"answer entry 1 'crane' is not in the guess list"),
        (["cigar"], ["cigar", "cigar"], ValueError, r"guess entry 1 'cigar' is a duplicate"),
        (["cigar"], ["cigar", "toolong"], ValueError, r"guess entry 1 'toolong' has length 7"),
        ([], None, ValueError, r"answer list is empty"),
        (["cigar", 5], None, TypeError, r"answer entry 1 is 5 \(int\), expected a string"),
        ("no/such/file.txt", None, FileNotFoundError, r"answer file 'no/such/file.txt' does not exist"),
    ],
)
def test_malformed_custom_lists_name_the_offending_entry(answers, guesses, error, message) -> None:
    with pytest.raises(error, match=message):
        wordle(answers=answers, guesses=guesses)


def test_malformed_file_names_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "answers.txt"
    path.write_text("cigar\nrebut\ncigar\n", encoding="utf-8")
    with pytest.raises(ValueError, match="answer entry 2 'cigar' is a duplicate"):
        wordle(answers=path)


# ---- Game behaviour --------------------------------------------------------------------------------


def test_explain_invalid_guess_for_wordle() -> None:
    game = wordle()
    assert game.explain_invalid_guess("crane") is None
    assert game.explain_invalid_guess(" CRANE ") is None
    assert game.normalize_guess(" CRANE ") == "crane"
    assert "'cran' has length 4, this game needs 5" in game.explain_invalid_guess("cran")
    assert "'xyzzy' is not in the word list (12947 allowed guesses)" in game.explain_invalid_guess("xyzzy")
    assert "not in the word list" in game.explain_invalid_guess("cr4ne")


def test_fingerprint_depends_on_the_lists_only() -> None:
    base = wordle()
    assert wordle().fingerprint == base.fingerprint
    assert wordle(hard_mode=True, max_attempts=8).fingerprint == base.fingerprint  # same matrix
    assert wordle(word_list="original").fingerprint != base.fingerprint
    assert wordle(answers=SMALL_ANSWERS).fingerprint != wordle(answers=SMALL_ANSWERS[:-1]).fingerprint
    assert wordle(answers=SMALL_ANSWERS[::-1]).fingerprint != wordle(answers=SMALL_ANSWERS).fingerprint  # order matters
    assert nerdle(6).fingerprint != nerdle(6, guesses="all").fingerprint


def test_replace_and_pickle() -> None:
    game = wordle(answers=SMALL_ANSWERS, guesses=SMALL_GUESSES)
    hard = game.replace(hard_mode=True)
    assert hard.hard_mode and hard.guesses == game.guesses and hard.fingerprint == game.fingerprint
    _ = game.guess_codes  # fill a derived cache before pickling
    clone = pickle.loads(pickle.dumps(game))
    assert isinstance(clone, Game)
    for field in ("kind", "name", "length", "alphabet", "answers", "guesses", "max_attempts", "hard_mode",
                  "guess_vocabulary"):
        assert getattr(clone, field) == getattr(game, field)
    np.testing.assert_array_equal(clone.guess_codes, game.guess_codes)
    assert "answers=10" in repr(game)


# ---- the pattern-matrix cache ----------------------------------------------------------------------


def small_game(n_answers: int = 10) -> Game:
    return wordle(answers=SMALL_ANSWERS[:n_answers], guesses=SMALL_GUESSES)


def expected_matrix(game: Game) -> np.ndarray:
    return np.array([[score(g, a) for a in game.answers] for g in game.guesses], dtype=pattern_dtype(game.length))


def test_cache_dir_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GUESSGYM_CACHE_DIR", str(tmp_path / "here"))
    assert cache_dir() == tmp_path / "here"
    monkeypatch.delenv("GUESSGYM_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "guessgym"


def test_matrix_is_built_saved_and_reloaded(isolated_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = small_game()
    pm = PatternMatrix.for_game(game)
    np.testing.assert_array_equal(pm.dense, expected_matrix(game))
    assert PatternMatrix.for_game(game) is pm  # memoised in the process
    files = list(isolated_cache.iterdir())
    assert [f.name for f in files] == [f"patterns-{game.fingerprint}.sm64-{array_checksum(pm.dense)}.npy"]
    assert cached_files(game.fingerprint) == files
    np.testing.assert_array_equal(np.load(files[0]), pm.dense)

    PatternMatrix.clear_memory()

    def no_building(*args: object, **kwargs: object) -> np.ndarray:
        raise AssertionError("the matrix should have been loaded from the disk cache")

    monkeypatch.setattr(matrix_module, "pattern_matrix", no_building)
    reloaded = PatternMatrix.for_game(small_game())  # an equal game, another object
    np.testing.assert_array_equal(reloaded.dense, pm.dense)


def test_clear_memory_can_keep_one_games_matrix(isolated_cache: Path) -> None:
    a, b = small_game(10), small_game(9)
    kept, dropped = PatternMatrix.for_game(a), PatternMatrix.for_game(b)
    PatternMatrix.clear_memory(keep=a)
    assert PatternMatrix.for_game(a) is kept
    again = PatternMatrix.for_game(b)  # from the disk cache
    assert again is not dropped
    np.testing.assert_array_equal(again.dense, dropped.dense)


def test_cache_is_keyed_by_the_lists(isolated_cache: Path) -> None:
    a, b = small_game(10), small_game(9)
    PatternMatrix.for_game(a)
    PatternMatrix.for_game(b)
    PatternMatrix.for_game(a.replace(hard_mode=True, max_attempts=4))  # same lists: same file
    names = sorted(f.name.split(".")[0] for f in isolated_cache.iterdir())
    assert names == sorted([f"patterns-{a.fingerprint}", f"patterns-{b.fingerprint}"])
    assert PatternMatrix.for_game(b).shape == (15, 9)


def test_cache_write_can_be_disabled(isolated_cache: Path) -> None:
    pm = PatternMatrix.for_game(small_game(), cache=False)
    np.testing.assert_array_equal(pm.dense, expected_matrix(small_game()))
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())


def _failing_save(file: object, array: np.ndarray, *args: object, **kwargs: object) -> None:
    file.write(b"\x93NUMPY partial header")  # type: ignore[attr-defined]
    raise OSError("No space left on device")


def test_atomic_save_leaves_no_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "patterns.npy"
    monkeypatch.setattr(matrix_module.np, "save", _failing_save)
    with pytest.raises(OSError, match="No space"):
        atomic_save_npy(target, np.zeros((3, 3), dtype=np.uint8))
    assert list(tmp_path.iterdir()) == []


def test_atomic_save_keeps_the_old_file_when_interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "patterns.npy"
    atomic_save_npy(target, np.arange(4, dtype=np.uint8))

    def interrupted(file: object, array: np.ndarray, *args: object, **kwargs: object) -> None:
        file.write(b"half")  # type: ignore[attr-defined]
        raise KeyboardInterrupt

    monkeypatch.setattr(matrix_module.np, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_save_npy(target, np.zeros(9, dtype=np.uint8))
    assert list(tmp_path.iterdir()) == [target]
    np.testing.assert_array_equal(np.load(target), np.arange(4, dtype=np.uint8))


def test_failed_cache_write_does_not_break_the_game(
    isolated_cache: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(matrix_module.np, "save", _failing_save)
    game = small_game()
    with caplog.at_level(logging.WARNING, logger="guessgym.envs.matrix"):
        pm = PatternMatrix.for_game(game)
    np.testing.assert_array_equal(pm.dense, expected_matrix(game))
    assert not any(isolated_cache.iterdir())
    assert "could not write cache" in caplog.text


@pytest.mark.parametrize(
    "corruption",
    ["empty", "truncated", "garbage", "wrong_shape", "wrong_dtype", "one_cell", "swapped_cells"],
)
def test_corrupted_cache_is_detected_deleted_and_rebuilt(isolated_cache: Path, corruption: str) -> None:
    """One changed cell behind an intact header once made 'raise' score GGGGG against 'crane'."""
    game = small_game()
    PatternMatrix.for_game(game)
    (path,) = cached_files(game.fingerprint)
    good = path.read_bytes()
    PatternMatrix.clear_memory()
    matrix = expected_matrix(game)
    if corruption == "empty":
        path.write_bytes(b"")
    elif corruption == "truncated":
        path.write_bytes(good[: len(good) - 40])
    elif corruption == "garbage":
        path.write_bytes(b"this is not a numpy file" * 10)
    elif corruption == "wrong_shape":
        np.save(path, np.zeros((3, 4), dtype=np.uint8))
    elif corruption == "wrong_dtype":
        np.save(path, matrix.astype(np.int64))
    elif corruption == "one_cell":
        bad = matrix.copy()
        bad[2, 1] = all_green(game.length)
        np.save(path, bad)
    else:
        bad = matrix.copy()
        bad[0, [0, 1]] = bad[0, [1, 0]] if bad[0, 0] != bad[0, 1] else (bad[0, 0], bad[0, 0] + 1)
        np.save(path, bad)
    with pytest.warns(RuntimeWarning, match="deleting it and rebuilding"):
        pm = PatternMatrix.for_game(game)
    np.testing.assert_array_equal(pm.dense, matrix)
    (rebuilt,) = cached_files(game.fingerprint)
    assert rebuilt.name == path.name and rebuilt.read_bytes() == good


def test_a_killed_build_leaves_nothing_behind_for_long(isolated_cache: Path) -> None:
    """A killed build's temporary is removed by the next build; a live writer's never is."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    host = _host()
    isolated_cache.mkdir(parents=True, exist_ok=True)
    killed = isolated_cache / f"patterns-abc.npy.{host}~{dead_pid}.x1y2.tmp"
    live = isolated_cache / f"patterns-def.npy.{host}~{os.getppid()}.x1y2.tmp"
    legacy_recent = isolated_cache / "patterns-ghi.npy.k3j4.tmp"
    for p in (killed, live, legacy_recent):
        p.write_bytes(b"partial")
    PatternMatrix.for_game(small_game())
    assert not killed.exists() and live.exists() and legacy_recent.exists()


def test_on_demand_rows_equal_the_dense_matrix() -> None:
    game = wordle()
    dense = PatternMatrix.for_game(game)
    lazy = PatternMatrix.for_game(game, max_bytes=1)
    assert dense.dense is not None and lazy.dense is None
    assert lazy.shape == dense.shape == (12947, 2309)
    rng = np.random.default_rng(3)
    gi = rng.choice(12947, size=25, replace=False)
    ai = rng.choice(2309, size=30, replace=False)
    for g in gi[:10]:
        np.testing.assert_array_equal(lazy.row(int(g)), dense.row(int(g)))
    for g, a in zip(gi, ai):
        assert lazy.pattern(int(g), int(a)) == dense.pattern(int(g), int(a))
    np.testing.assert_array_equal(lazy.submatrix(gi, ai), dense.submatrix(gi, ai))
    np.testing.assert_array_equal(lazy.submatrix(slice(100, 140), ai), dense.submatrix(slice(100, 140), ai))
    np.testing.assert_array_equal(lazy.submatrix(gi, None), dense.submatrix(gi, None))
    np.testing.assert_array_equal(lazy.submatrix(gi, slice(0, 50)), dense.submatrix(gi, slice(0, 50)))
    crane = game.guess_index["crane"]
    pattern = score("crane", "shire")
    lazy_c = Candidates.initial(game, lazy).update(crane, pattern)
    dense_c = Candidates.initial(game, dense).update(crane, pattern)
    np.testing.assert_array_equal(lazy_c.indices, dense_c.indices)


@pytest.mark.parametrize("commutative", [False, True])
def test_the_transposed_matrix_built_in_place_equals_the_dense_one(commutative: bool) -> None:
    """Issue 28: the exact solver scans answers x guesses; a game too large for the dense cache
    (every classic Nerdle equation) gets that layout computed in place (issue 51: no block of
    guesses transposed after), with the commutative wins applied as in the dense matrix, and never
    the dense matrix itself."""
    game = nerdle(6, guesses="all", commutative=commutative)  # Mini Nerdle: 476 guesses
    dense = PatternMatrix.for_game(game)
    lazy = PatternMatrix.for_game(game, max_bytes=1)
    assert dense.dense is not None and lazy.dense is None
    built = lazy.transposed()
    assert built is not None and built.flags.c_contiguous and built.shape == (len(game.answers), len(game.guesses))
    np.testing.assert_array_equal(built, dense.transposed())
    np.testing.assert_array_equal(built, dense.dense.T)
    assert lazy.transposed(max_bytes=built.nbytes - 1) is None  # over the limit: refused, not built


def test_on_demand_mode_writes_nothing(isolated_cache: Path) -> None:
    game = small_game()
    lazy = PatternMatrix.for_game(game, max_bytes=10)
    assert lazy.dense is None
    np.testing.assert_array_equal(lazy.submatrix(None, None), expected_matrix(game))
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())


def test_every_classic_equation_as_guess_is_computed_on_demand(isolated_cache: Path) -> None:
    game = nerdle(8, guesses="all")  # 67,346 x 17,723 patterns: 2.4 GB, above the default limit
    pm = PatternMatrix.for_game(game)
    assert pm.dense is None
    opener = game.guess_index["0+12/3=4"]
    row = pm.row(opener)
    assert row.shape == (17723,) and row.dtype == pattern_dtype(8)
    expected = [score("0+12/3=4", a) for a in game.answers]
    np.testing.assert_array_equal(row, expected)
    assert pm.pattern(opener, game.answer_index["6-1+9=14"]) == score("0+12/3=4", "6-1+9=14")
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())


def test_dense_matrix_of_a_real_game_matches_the_kernel() -> None:
    game = nerdle(6)
    pm = PatternMatrix.for_game(game)
    np.testing.assert_array_equal(pm.dense, pattern_matrix(game.guess_codes, game.answer_codes, game.n_symbols))
    np.testing.assert_array_equal(pm.dense, expected_matrix(game))
