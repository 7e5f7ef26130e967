"""The peers' rules as presets of the chat environment (guessgym.envs.chat.presets).

TextArena and GEM are installed from the package index (the ``peers`` extra): each is driven side
by side with its preset on the same replies, and every reply's reward and the game's end must be
the same. Their Wordle modules download NLTK corpora when imported or built; here ``nltk.download``
is replaced by a function that refuses (no network at test time), and the games are built without
their word-list loading, with the answer set directly and guessgym's list as TextArena's dictionary
(the presets reproduce the reward and the invalid-reply rules, not the peers' lists).
The presets whose suites cannot be installed here are checked on games worked out by hand from the
cited files.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.chat.presets import PRESETS
from guessgym.envs.chat.tools import GuessToolEnv
from guessgym.envs.game import wordle
from guessgym.envs.scoring import pattern_to_tiles, score

GAME = wordle()
ANSWERS = ("cigar", "abbey", "eerie", "sassy")
WORDS = ("crane", "cigar", "abbey", "eerie", "sassy", "speed", "geese", "tares", "cigar", "sissy", "essay", "bases")


@pytest.fixture(scope="module")
def offline_nltk():
    """``nltk.download`` replaced by a refusal while the peers' modules are imported and played."""
    nltk = pytest.importorskip("nltk")
    calls: list[tuple] = []
    original = nltk.download
    nltk.download = lambda *args, **kwargs: calls.append(args) or False
    yield calls
    nltk.download = original


def textarena_game(answer: str):
    """TextArena 0.7.4's WordleEnv with ``answer`` as its only answer and guessgym's list as its dictionary."""
    from textarena.envs.Wordle.env import WordleEnv

    env = WordleEnv.__new__(WordleEnv)
    env.word_length, env.num_guesses, env.word_list = 5, 6, [answer]
    env.dictionary = type("Dictionary", (), {"is_english_word": staticmethod(lambda w: w in GAME.guess_index)})()
    env.reset(num_players=1, seed=0)
    return env


def textarena_rewards(answer: str, replies: list[str]) -> list[tuple[float, bool]]:
    """(reward, done) of each reply until the game ends: TextArena pays ``close()``'s reward at the end."""
    env, out = textarena_game(answer), []
    for reply in replies:
        done, _ = env.step(reply)
        out.append((float(env.close()[0][0]) if done else 0.0, bool(done)))
        if done:
            break
    return out


def gem_rewards(answer: str, replies: list[str]) -> list[tuple[float, bool]]:
    """(reward, done) of each reply in GEM 0.1.0's WordleEnv with 6 turns and ``answer`` as its only word."""
    from gem.envs.game_env.wordle import WordleEnv

    env = WordleEnv.__new__(WordleEnv)
    env.word_length, env.max_turns, env.only_real_words, env._is_random = 5, 6, True, False
    env.all_words = [answer]
    env.reset(seed=0)
    out = []
    for reply in replies:
        _, reward, terminated, truncated, _ = env.step(reply)
        out.append((float(reward), bool(terminated or truncated)))
        if terminated or truncated:
            break
    return out


def preset_rewards(preset: str, answer: str, replies: list[str]) -> list[tuple[float, bool]]:
    env = ChatGuessEnv(preset=preset)
    env.reset(seed=0, options={"answer": answer})
    out = []
    for reply in replies:
        _, reward, terminated, _, _ = env.step(reply)
        out.append((float(reward), bool(terminated)))
        if terminated:
            break
    return out


def _close(ours: list[tuple[float, bool]], theirs: list[tuple[float, bool]]) -> None:
    assert [done for _, done in ours] == [done for _, done in theirs]
    assert [r for r, _ in ours] == pytest.approx([r for r, _ in theirs], abs=1e-12)


TEXTARENA_REPLIES = st.one_of(
    st.sampled_from(WORDS).map(lambda w: f"I guess [{w}]"),
    st.sampled_from(WORDS).map(lambda w: f"[{w}] or maybe [crane]"),  # the first bracket is the guess
    st.sampled_from(["no guess", "[cranes]", "[xyzzy]", "[]", "[ab_cd]", "[CIGAR]"]),
)


@settings(max_examples=120, deadline=None)
@given(answer=st.sampled_from(ANSWERS), replies=st.lists(TEXTARENA_REPLIES, min_size=1, max_size=16))
def test_textarena_preset_pays_what_textarena_pays(offline_nltk, answer: str, replies: list[str]) -> None:
    _close(preset_rewards("textarena", answer, replies), textarena_rewards(answer, replies))


GEM_REPLIES = st.one_of(
    st.sampled_from(WORDS).map(lambda w: f"so \\boxed{{{w.upper()}}}"),
    st.sampled_from(WORDS).map(lambda w: f"\\boxed{{crane}} no, \\boxed{{{w}}}"),  # the last box is the guess
    st.sampled_from(["no guess", "\\boxed{cranes}", "\\boxed{CR ANE}", "\\boxed{}", "[crane]"]),
)


@settings(max_examples=120, deadline=None)
@given(answer=st.sampled_from(ANSWERS), replies=st.lists(GEM_REPLIES, min_size=1, max_size=10))
def test_gem_preset_pays_what_gem_pays(offline_nltk, answer: str, replies: list[str]) -> None:
    _close(preset_rewards("gem", answer, replies), gem_rewards(answer, replies))


def test_the_peers_were_played_offline(offline_nltk) -> None:
    """The comparisons above imported and played both peers with every download refused."""
    textarena_rewards("cigar", ["[crane]"])
    gem_rewards("cigar", ["\\boxed{crane}"])
    assert all(args and args[0] in ("words", "averaged_perceptron_tagger_eng") for args in offline_nltk)


# ---- the presets followed from their source, on games worked out by hand ---------------------------------
def play(preset: str, answer: str, replies: list[str]) -> tuple[list[float], dict]:
    env = ChatGuessEnv(preset=preset)
    env.reset(seed=0, options={"answer": answer})
    rewards, info = [], {}
    for reply in replies:
        _, reward, terminated, _, info = env.step(reply)
        rewards.append(reward)
        if terminated:
            break
    return rewards, info


def test_verifiers_rubric_by_hand() -> None:
    # won on the 3rd reply; every reply starts and ends with the tags but the 2nd, which has none
    rewards, info = play("verifiers", "cigar", ["<guess>[crane]</guess>", "thinking... [tares]",
                                                "<guess>[cigar]</guess>"])
    # reply 2 is a format error (retried, TextArena's allowance); reply 3 wins
    terms = {"correct_answer": 1.0, "partial_answer": 0.0, "length_bonus": 1 / 2,
             "format_reward": (1.0 + 0.2 + 1.0) / 3}
    assert info["won"] and info["reward_terms"] == pytest.approx(terms)
    assert rewards == pytest.approx([0.0, 0.0, 1.0 + 0.5 + 0.2 * terms["format_reward"]])
    # lost: six valid guesses; the feedback last shown is the 5th guess's (TextArena's end message replaces the 6th's)
    guesses = ["crane", "tares", "speed", "geese", "essay", "bases"]
    rewards, info = play("verifiers", "cigar", [f"<guess>[{g}]</guess>" for g in guesses])
    fifth = pattern_to_tiles(score("essay", "cigar"), 5)
    partial = 0.2 * fifth.count("G") + 0.1 * fifth.count("Y")
    assert not info["won"] and info["reward_terms"] == pytest.approx(
        {"correct_answer": 0.0, "partial_answer": partial, "length_bonus": 0.0, "format_reward": 1.0})
    assert rewards[-1] == pytest.approx(partial + 0.2) and rewards[:-1] == [0.0] * 5


def test_nemo_rewards_by_hand() -> None:
    # answer cigar; crane: c green, r and a yellow, n and e grey (eliminated)
    rewards, info = play("nemo", "cigar", ["[crane]", "[cranes]", "[tares]", "[cigar]"])
    # reply 2: wrong length, -0.02 and a turn; reply 3, tares: changes the known green c (-0.05), uses a
    # known yellow (no penalty), uses the eliminated e (-0.02); reply 4 wins on turn 4: 2.0 - 0.2 x 3
    assert rewards[:-1] == [0.0, 0.0, 0.0] and info["won"]
    assert rewards[-1] == pytest.approx(-0.02 - 0.05 - 0.02 + 1.4)
    # a repeated guess is played (and costs 0.2, plus its own penalties); a loss pays 0 whatever came before
    rewards, info = play("nemo", "cigar", ["[crane]"] * 6)
    assert not info["won"] and rewards == [0.0] * 6 and info["reward_terms"] == {"nemo": 0.0}
    # a first-guess win is paid as a third-guess win (2.0 - 0.4)
    assert play("nemo", "cigar", ["[cigar]"])[0] == [pytest.approx(1.6)]


def test_trl_example_rewards_by_hand() -> None:
    # replies are read as OpenEnv's extract_guess reads them: the first [abcde], else the first five letters
    rewards, info = play("trl", "cigar", ["I'd say crane", "[crane]", "[cigar]"])
    # "I'd say crane" -> "idsay", not a word: invalid (retried); "[crane]" played; "[cigar]" wins; the
    # feedback last shown is crane's (TextArena shows none for a winning guess); cigar was not used before
    assert info["won"] and info["reward_terms"] == pytest.approx(
        {"reward_correct": 1.0, "reward_greens": 1 / 5, "reward_yellows": 2 / 5, "reward_repetition": 1.0})
    assert rewards == pytest.approx([0.0, 0.0, 2.6])
    # a repeat is invalid under TextArena; twice in a row ends the game with crane's share, and the
    # feedback last shown is still crane's
    rewards, info = play("trl", "cigar", ["[crane]", "[crane]", "[crane]"])
    assert info["aborted"] and info["reward_terms"] == pytest.approx(
        {"reward_correct": (1 + 0.5 * 2) / 5, "reward_greens": 1 / 5, "reward_yellows": 2 / 5,
         "reward_repetition": (1 - 2) / 1})


def test_textarena_end_pays_the_last_valid_guess() -> None:
    rewards, info = play("textarena", "cigar", ["[crane]", "[speed]", "oops", "[zzzzz]"])
    assert info["aborted"] and not info["won"] and rewards[:-1] == [0.0] * 3
    assert rewards[-1] == 0.0  # speed shares nothing with cigar
    rewards, _ = play("textarena", "cigar", ["[speed]", "[crane]", "oops", "oops"])
    assert rewards[-1] == pytest.approx((1 + 0.5 * 2) / 5)  # crane: c green, r and a yellow


# ---- options ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("options", "message"), [
    ({"preset": "openai"}, "preset must be one of 'textarena', 'gem', 'verifiers', 'nemo', 'trl'"),
    ({"preset": "gem", "win_reward": 2.0}, "preset='gem' defines the reward; drop win_reward"),
    ({"preset": "textarena", "invalid_penalty": -0.5}, "defines the reward; drop invalid_penalty"),
    ({"invalid": {"typo": "abort"}}, "invalid names unknown kinds ['typo']"),
    ({"invalid": {"format": "ignore"}}, "invalid['format'] must be one of 'retry', 'forfeit', 'abort'"),
    ({"repeats": "never"}, "repeats must be one of 'allowed', 'invalid'"),
])
def test_bad_preset_options_are_named(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ChatGuessEnv(**options)


def test_explicit_options_override_the_preset_and_the_id_takes_it() -> None:
    env = gym.make("guessgym/WordleChat-v0", preset="textarena", max_retries=3).unwrapped
    assert env.max_retries == 3 and env.repeats == "invalid" and env.invalid_policy["format"] == "abort"
    assert "[crane]" in env.system_prompt and env.preset is PRESETS["textarena"]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_tool_plays_in_each_presets_reply_format(preset: str) -> None:
    tool = GuessToolEnv("guessgym/WordleChat-v0", preset=preset)
    tool.reset(answer="cigar")
    tool.guess("crane")
    assert "tiles" in tool.info and tool.info["guess"] == "crane"
    tool.guess("cigar")
    assert tool.done and tool.info["won"] and tool.get_reward() > 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_preset_passes_the_gymnasium_checker(preset: str) -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(ChatGuessEnv(preset=preset, kind="wordle", length=5), skip_render_check=True)


# ---- issue 40, item 11: a preset plays every chat id, or refuses it at make ------------------------------
GAMES = [("guessgym/WordleChat-v0", {}, "optimal"), ("guessgym/WordleChat-v0", {"length": 6}, "least-worst"),
         ("guessgym/NerdleChat-v0", {}, "optimal"), ("guessgym/NerdleChat-v0", {"length": 6}, "optimal"),
         ("guessgym/Nerdle-v1", {}, "optimal")]


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize(("env_id", "kwargs", "agent"), GAMES)
def test_a_preset_plays_every_chat_id_or_refuses_it_at_make(preset: str, env_id: str, kwargs: dict, agent: str,
                                                            tmp_path) -> None:  # type: ignore[no-untyped-def]
    from guessgym.cli import main
    from guessgym.envs.chat.env import ChatFamily
    from guessgym.training.demos import export_demos

    options = {**ChatFamily.chat_kwargs(env_id, kwargs), "preset": preset}
    game = wordle() if "Wordle" in env_id else None
    refusal = PRESETS[preset].refusal(ChatGuessEnv(**{k: v for k, v in options.items() if k != "preset"}).game)
    if refusal is not None:
        with pytest.raises(ValueError, match=f"^preset={preset!r} ") as caught:
            gym.make("guessgym/WordleChat-v0" if env_id == "guessgym/Nerdle-v1" else env_id, preset=preset,
                     **({"kind": "nerdle", "length": 8} if env_id == "guessgym/Nerdle-v1" else kwargs))
        assert "\n" not in str(caught.value)
        code = main(["export-demos", "--env", env_id, "--env-kwargs", f"preset={preset}",
                     *[f"{k}={v}" for k, v in kwargs.items()], "--games", "4", "--out", str(tmp_path / "cli")])
        assert code == 2 and not (tmp_path / "cli").exists()
        return
    assert preset == "nemo" or game is not None  # only NeMo Gym's rules read equations
    manifest = export_demos(env_id, tmp_path, env_kwargs={**kwargs, "preset": preset}, agent=agent, games=12, seed=3)
    assert manifest["counts"]["train"]["games"] + manifest["counts"]["test"]["games"] == 12
    with open(tmp_path / "train.jsonl") as f:  # every demonstration's last reply won under the preset
        assert sum(1 for _ in f) == manifest["counts"]["train"]["games"]
