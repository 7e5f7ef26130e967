"""The chat environment: rules text, reply parsing, feedback, invalid-reply policies, exact
accounting of attempts and rewards (against a plain reference), Gymnasium's checker, seeding,
pickling, templates and bad options."""

from __future__ import annotations

import pickle
import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import guessgym  # noqa: F401  (registers the ids)
from guessgym.envs.chat.env import AnyText, ChatGuessEnv
from guessgym.envs.chat.feedback import TileFeedback
from guessgym.envs.chat.prompts import ChatPrompts
from guessgym.envs.chat.replies import ReplyParser
from guessgym.envs.chat.rules import repeated_symbol_example, rules_text
from guessgym.envs.env import GuessEnv
from guessgym.envs.game import nerdle, wordle
from guessgym.envs.registration import CHAT_ENV_SPECS, is_chat_id
from guessgym.envs.scoring import pattern_to_list, pattern_to_tiles, score

SMALL_WORDS = ["crane", "crate", "grate", "slate", "abide", "speed", "abode", "plate"]


def small_wordle(**options: object) -> ChatGuessEnv:
    return ChatGuessEnv(answers=SMALL_WORDS, **options)


# ---- registration and Gymnasium's checker -------------------------------------------------------------
@pytest.mark.parametrize("env_id", sorted(CHAT_ENV_SPECS))
def test_registered_chat_ids_pass_gymnasiums_checker(env_id: str) -> None:
    assert is_chat_id(env_id)
    env = gym.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gym_check_env(env.unwrapped)
    assert isinstance(env.observation_space, AnyText) and isinstance(env.action_space, AnyText)


@pytest.mark.parametrize(("options", "game_name"), [
    ({}, "wordle-5-nyt"), ({"hard_mode": True}, "wordle-5-nyt-hard"), ({"length": 6}, "wordle-6-english"),
    ({"word_list": "nyt2023"}, "wordle-5-nyt2023"),
])
def test_every_wordle_option_is_a_keyword_argument(options: dict[str, object], game_name: str) -> None:
    assert gym.make("guessgym/WordleChat-v0", **options).unwrapped.game.name == game_name


@pytest.mark.parametrize("length", [5, 6, 7, 8])
def test_every_nerdle_size(length: int) -> None:
    env = gym.make("guessgym/NerdleChat-v0", length=length)
    obs, info = env.reset(seed=0)
    assert f"equation of {length} symbols" in obs
    answer = env.unwrapped.game.answers[int(env.unwrapped.env.engine.status[0][0])]
    _, reward, terminated, _, info = env.step(f"It must be [{answer}]")
    assert terminated and reward == 1.0 and info["won"] and info["answer"] == answer and info["attempt"] == 1


# ---- the rules text ------------------------------------------------------------------------------------
def test_rules_state_this_games_numbers_and_hard_mode_only_when_on() -> None:
    easy, hard = rules_text(wordle()), rules_text(wordle(hard_mode=True, max_attempts=8))
    assert "5-letter" in easy and "at most 6 guesses" in easy and "2,309" in easy and "12,947" in easy
    assert "Hard mode" not in easy and "Hard mode is on" in hard and "at most 8 guesses" in hard
    classic = rules_text(nerdle())
    assert "17,723" in classic and "purple" in classic and "yellow" not in classic


@pytest.mark.parametrize("game", [wordle(), nerdle(5), nerdle(6), nerdle(8), nerdle(6, guesses="all")],
                         ids=lambda g: g.name)
def test_the_repeated_symbol_example_is_scored_by_the_game(game) -> None:
    guess, answer = repeated_symbol_example(game)
    tiles = pattern_to_list(score(guess, answer), game.length)
    names = ("grey", "yellow", "green") if game.kind == "wordle" else ("black", "purple", "green")
    shown = ", ".join(f"{s} {names[t]}" for s, t in zip(guess, tiles))
    assert f'guessing "{guess}" when the answer is "{answer}" gives: {shown}.' in rules_text(game)
    # it shows the rule: a repeated symbol marked yellow/purple once, then grey/black
    assert any(1 in [t for s, t in zip(guess, tiles) if s == c] and 0 in [t for s, t in zip(guess, tiles) if s == c]
               for c in set(guess) if guess.count(c) > 1)


# ---- reply parsing ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(("reply", "guess"), [
    ("[crane]", "crane"), ("I'd say [CRANE]", "crane"), ("[ c r a n e ]", "crane"), ("[`crane`]", "crane"),
    ("first [slate], no wait: [crane]", "crane"), ('**["Crane."]**', "crane"), ("[crane]\n\nDone.", "crane"),
])
def test_brackets_are_tolerant_of_case_spaces_quotes_and_the_last_one_wins(reply: str, guess: str) -> None:
    verdict = ReplyParser(wordle()).parse(reply)
    assert verdict.valid and verdict.guess == guess and wordle().guesses[verdict.action] == guess


@pytest.mark.parametrize(("reply", "kind", "says"), [
    ("crane", "format", "square brackets"), ("[]", "format", "empty"), ("[cranes]", "length", "6 letters"),
    ("[cra]", "length", "exactly 5"), ("[xyzzy]", "unknown", "not in the word list"),
    ("[cr4ne]", "unknown", "not in the word list"),
])
def test_wordle_invalid_kinds(reply: str, kind: str, says: str) -> None:
    verdict = ReplyParser(wordle()).parse(reply)
    assert verdict.kind == kind and says in verdict.message and verdict.action is None


@pytest.mark.parametrize(("reply", "kind", "says"), [
    ("[1+1=2]", "length", "5 symbols"), ("[12+34=47]", "unknown", "not a valid true equation"),
    ("[12+34=4a]", "unknown", "not a Nerdle symbol"), ("[0+9*8=72]", "unknown", "not one this game accepts"),
    ("[ 12 + 34 = 46 ]", "", ""),
])
def test_nerdle_invalid_kinds(reply: str, kind: str, says: str) -> None:
    verdict = ReplyParser(nerdle()).parse(reply)
    assert verdict.kind == kind and says in verdict.message


def test_other_formats_and_their_errors() -> None:
    game = wordle()
    assert ReplyParser(game, "tags").parse("<guess>a</guess> then <guess> Crane </guess>").guess == "crane"
    assert ReplyParser(game, "plain").parse("  CRANE \n").guess == "crane"
    boxed = ReplyParser(game, "boxed")
    assert boxed.parse(r"So \boxed{slate}? No: the answer is \boxed{CRANE}").guess == "crane"
    assert boxed.parse("[crane]").kind == "format" and r"\boxed{crane}" in boxed.instruction
    for name in ("brackets", "tags", "boxed", "plain"):  # the reply each format reads back
        parser = ReplyParser(nerdle(), name)
        assert parser.parse(parser.reply_for("12+34=46")).guess == "12+34=46"
    assert ReplyParser(game, "plain").parse("my guess is crane").kind == "length"
    custom = ReplyParser(game, r"GUESS:\s*(\w+)", instruction="end with GUESS: {example}")
    assert custom.parse("hmm GUESS: slate ... GUESS: crane").guess == "crane"
    assert custom.instruction == "end with GUESS: crane"
    assert ReplyParser(game, re.compile(r"\{(\w+)\}"), instruction="use {{braces}} like {{{example}}}").parse(
        "{crane}").guess == "crane"
    with pytest.raises(ValueError, match="exactly one group"):
        ReplyParser(game, r"(\w+) (\w+)", instruction="x")
    with pytest.raises(ValueError, match="needs instruction="):
        ReplyParser(game, r"(\w+)")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        ReplyParser(game, r"([)", instruction="x")
    with pytest.raises(ValueError, match="max_reply_chars"):
        ReplyParser(game, max_reply_chars=0)
    long = ReplyParser(game, max_reply_chars=20).parse("x" * 21 + "[crane]")
    assert long.kind == "format" and "longer than the 20 characters allowed" in long.message


# ---- feedback ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("style", "expected"), [
    ("letters", "B B Y B Y"), ("emoji", "\u2b1b\u2b1b\U0001f7e8\u2b1b\U0001f7e8"),
    ("both", "B B Y B Y  \u2b1b\u2b1b\U0001f7e8\u2b1b\U0001f7e8"),
])
def test_feedback_styles(style: str, expected: str) -> None:
    assert TileFeedback(wordle(), style).tiles(score("speed", "abide")) == expected
    env = small_wordle(feedback=style)
    env.reset(seed=0, options={"answer": "abide"})
    obs, *_ = env.step("[speed]")
    assert expected in obs and "(s grey, p grey, e yellow, e grey, d yellow)" in obs


def test_nerdle_tiles_are_purple() -> None:
    pattern = score("12+34=46", "12+35=47")
    assert TileFeedback(nerdle(), "letters").tiles(pattern) == " ".join(pattern_to_tiles(pattern, 8).replace("Y", "P"))
    assert "\U0001f7ea" in TileFeedback(nerdle(), "emoji").tiles(score("12+34=46", "43+12=55"))


# ---- accounting: against a plain reference ----------------------------------------------------------------
def reference_game(answer: str, replies: list[str], game, invalid: dict[str, str], max_retries: int,
                   loss_reward: float, invalid_penalty: float, repeats: str = "allowed",
                   ) -> list[tuple[float, bool, int, int, dict[str, int], bool]]:
    """What each reply should give: (reward, ended, attempt, forfeits, invalid counts, won), from
    GuessEnv and the rules of the chat env's docstring, spelled out with no shared code.
    ``invalid`` is the policy of each invalid kind."""
    env = GuessEnv(game=game, loss_reward=loss_reward)
    env.reset(options={"answer": answer})
    attempt = forfeits = retries = 0
    counts = {"format": 0, "length": 0, "unknown": 0, "repeated": 0, "hard_mode": 0}
    played: set[str] = set()
    out = []
    for reply in replies:
        found = re.findall(r"\[([^\[\]]*)\]", reply)
        text = "".join(found[-1].split()).strip("\"'`*.").lower() if found else None
        if text is None or text == "":
            kind = "format"
        elif text in game.guess_index:
            kind = "repeated" if repeats == "invalid" and text in played else ""
        elif len(text) != game.length:
            kind = "length"
        else:
            kind = "unknown"
        reward, won, aborted = 0.0, False, False
        if not kind:
            _, r, done, _, info = env.step(game.guess_index[text])
            if info["invalid_action"]:
                kind = "hard_mode"
            else:
                attempt += 1
                retries = 0
                played.add(text)
                won = text == answer
                reward = float(r) + (loss_reward if attempt == game.max_attempts and not won and not done else 0.0)
        if kind:
            counts[kind] += 1
            reward = invalid_penalty
            if invalid[kind] in ("retry", "abort") and retries < max_retries:
                retries += 1
            elif invalid[kind] == "abort":
                aborted = True
                reward += loss_reward
            else:
                attempt += 1
                forfeits += 1
                retries = 0
                if attempt == game.max_attempts:
                    reward += loss_reward
        ended = won or aborted or attempt == game.max_attempts
        out.append((reward, ended, attempt, forfeits, dict(counts), won))
        if ended:
            break
    return out


REPLIES = st.one_of(
    st.sampled_from(SMALL_WORDS).map(lambda w: f"so [{w}]"),
    st.sampled_from(["no brackets", "[]", "[cranes]", "[zzzzz]", "[ CRATE ]", "[a] [plate]"]),
)
KINDS = ("format", "length", "unknown", "repeated", "hard_mode")
POLICY = st.sampled_from(["retry", "forfeit", "abort"])


@settings(max_examples=200, deadline=None)
@given(answer=st.sampled_from(SMALL_WORDS), replies=st.lists(REPLIES, min_size=1, max_size=30),
       invalid=st.one_of(POLICY, st.fixed_dictionaries({}, optional=dict.fromkeys(KINDS, POLICY))),
       max_retries=st.integers(0, 3), hard=st.booleans(), attempts=st.integers(1, 6),
       repeats=st.sampled_from(["allowed", "invalid"]))
def test_accounting_matches_the_reference(answer: str, replies: list[str], invalid: str | dict[str, str],
                                          max_retries: int, hard: bool, attempts: int, repeats: str) -> None:
    env = small_wordle(invalid=invalid, max_retries=max_retries, hard_mode=hard, max_attempts=attempts,
                       loss_reward=-1.0, invalid_penalty=-0.25, repeats=repeats)
    policies = (dict.fromkeys(KINDS, invalid) if isinstance(invalid, str)
                else {k: invalid.get(k, "retry") for k in KINDS})
    expected = reference_game(answer, replies, env.game, policies, max_retries, -1.0, -0.25, repeats)
    env.reset(seed=0, options={"answer": answer})
    for turn, (reply, (reward, ended, attempt, forfeits, counts, won)) in enumerate(zip(replies, expected), 1):
        obs, r, terminated, truncated, info = env.step(reply)
        assert (r, terminated, info["attempt"], info["forfeits"], info["invalid_counts"]) == \
            (reward, ended, attempt, forfeits, counts)
        assert not truncated and info["turn"] == turn and r <= 1.0
        assert info["guesses"] + info["forfeits"] == info["attempt"]
        assert info["turn"] == info["guesses"] + sum(info["invalid_counts"].values())
        assert len(info["messages"]) == 2 + 2 * turn and info["messages"][-2] == {"role": "assistant", "content": reply}
        assert obs.endswith(info["messages"][-1]["content"])
        if info["invalid_kind"]:
            assert r < 0 and info["invalid_reason"] in info["messages"][-1]["content"]
        if terminated:
            assert info["won"] == won and info["answer"] == answer
            assert info["aborted"] == (not won and attempt < attempts)
            with pytest.raises(RuntimeError, match="after the game ended"):
                env.step("[crane]")
    retrying = any(p != "forfeit" for p in policies.values())
    assert len(expected) <= attempts * (1 + (max_retries if retrying else 0))


def test_a_win_is_a_win_at_any_attempt_and_a_loss_is_never_a_draw() -> None:
    env = small_wordle(max_attempts=3)
    env.reset(seed=0, options={"answer": "abide"})
    rewards = [env.step(r)[1] for r in ("[crane]", "[slate]")]
    _, reward, terminated, _, info = env.step("[abide]")  # the last attempt
    assert rewards == [0.0, 0.0] and reward == 1.0 and terminated and info["won"]
    assert info["messages"][-1]["content"].endswith("Solved on guess 3: the answer is abide.")
    env.reset(seed=0, options={"answer": "abide"})
    for reply in ("[crane]", "[slate]"):
        env.step(reply)
    _, reward, terminated, _, info = env.step("[plate]")
    assert reward == 0.0 and terminated and not info["won"]
    assert info["messages"][-1]["content"].endswith("Out of guesses: the answer was abide.")


def test_hard_mode_violations_are_their_own_kind_and_named() -> None:
    env = small_wordle(hard_mode=True)
    env.reset(seed=0, options={"answer": "abide"})
    env.step("[speed]")
    _, reward, terminated, _, info = env.step("[crane]")
    assert info["invalid_kind"] == "hard_mode" and not terminated and reward == 0.0 and info["attempt"] == 1
    assert "'d' at least once" in info["invalid_reason"] and "did not use a guess" in info["messages"][-1]["content"]


# ---- seeding, pickling, templates, options --------------------------------------------------------------
def test_seeded_resets_are_reproducible_and_the_answers_are_guessenvs() -> None:
    chat, plain = ChatGuessEnv(), GuessEnv()
    for seed in (0, 1, 2):
        obs, _ = chat.reset(seed=seed)
        plain.reset(seed=seed)
        _, _, _, _, info = chat.step(f"[{plain.game.answers[int(plain.engine.status[0][0])]}]")
        assert info["won"] and chat.reset(seed=seed)[0] == obs


def test_a_pickled_game_continues_identically() -> None:
    env = small_wordle()
    env.reset(seed=3, options={"answer": "grate"})
    env.step("[crane]")
    copy = pickle.loads(pickle.dumps(env))
    for reply in ("nothing", "[crate]", "[grate]"):
        a, b = env.step(reply), copy.step(reply)
        assert a[0] == b[0] and a[1:4] == b[1:4] and a[4]["messages"] == b[4]["messages"]


def test_templates_replace_the_defaults_and_bad_ones_are_named() -> None:
    env = small_wordle(prompts={"system": "RULES\n{rules}\nFORMAT: {reply_format}", "first_turn": "go"})
    obs, info = env.reset(seed=0, options={"answer": "crane"})
    assert obs.startswith("### system\nRULES\nYou are playing Wordle") and info["messages"][1]["content"] == "go"
    with pytest.raises(ValueError, match=r"the feedback template uses \{colour\}; it may use \{attempt\}"):
        small_wordle(prompts={"feedback": "{colour}"})
    with pytest.raises(ValueError, match="unknown prompt template"):
        small_wordle(prompts={"welcome": "hi"})
    assert ChatPrompts.from_value(None) == ChatPrompts()


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"invalid": "ignore"}, ValueError, "invalid must be one of 'retry', 'forfeit'"),
    ({"max_retries": -1}, ValueError, "max_retries must be 0 to 100"),
    ({"invalid_penalty": 0.5}, ValueError, "never earns credit"),
    ({"feedback": "colours"}, ValueError, "feedback must be one of"),
    ({"colour": "blue"}, TypeError, "chat options preset, invalid, max_retries"),
])
def test_bad_options_are_named(options: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        small_wordle(**options)


def test_bad_calls_are_named() -> None:
    env = small_wordle()
    with pytest.raises(RuntimeError, match="before reset"):
        env.step("[crane]")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="reply as a string"):
        env.step(3)  # type: ignore[arg-type]
    assert np.isfinite(env.observation_space.max_length)


# ---- prompt export ------------------------------------------------------------------------------------------
def read_jsonl(path) -> list[dict]:
    import json

    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_exported_prompts_replay_in_the_environment_and_the_answers_are_apart(tmp_path) -> None:
    from guessgym.envs.chat.export import export_prompts

    summary = export_prompts("guessgym/NerdleChat-v0", tmp_path / "p.jsonl", tmp_path / "a.jsonl",
                             env_kwargs={"length": 5, "hard_mode": True}, seed=3)
    prompts, answers = read_jsonl(tmp_path / "p.jsonl"), read_jsonl(tmp_path / "a.jsonl")
    game = nerdle(5, hard_mode=True)
    assert summary["games"] == len(prompts) == len(answers) == len(game.answers) == 127
    assert sorted(a["answer"] for a in answers) == sorted(game.answers)  # every answer once
    assert [p["id"] for p in prompts] == [a["id"] for a in answers] and len({p["id"] for p in prompts}) == 127
    assert all(set(p) == {"id", "env_id", "env_kwargs", "game", "messages"} for p in prompts)
    env = gym.make(prompts[0]["env_id"], **prompts[0]["env_kwargs"])
    by_id = {a["id"]: a["answer"] for a in answers}
    for prompt in prompts[:10]:
        _, info = env.reset(options={"answer": by_id[prompt["id"]]})
        assert info["messages"] == prompt["messages"]
        _, reward, terminated, _, info = env.step(f"[{by_id[prompt['id']]}]")
        assert reward == 1.0 and terminated and info["won"]


def test_export_is_seeded_and_bad_requests_are_named(tmp_path) -> None:
    from guessgym.envs.chat.export import export_prompts

    def export(seed: int, name: str) -> list[dict]:
        export_prompts("guessgym/WordleChat-v0", tmp_path / f"{name}.jsonl", tmp_path / f"{name}-a.jsonl",
                       games=20, seed=seed)
        return read_jsonl(tmp_path / f"{name}-a.jsonl")

    assert export(5, "x") == export(5, "y") != export(6, "z")
    assert len({a["answer"] for a in export(5, "x")}) == 20
    with pytest.raises(ValueError, match="not a chat environment"):
        export_prompts("guessgym/Wordle-v1", tmp_path / "p", tmp_path / "a")
    with pytest.raises(ValueError, match="games must be from 1 to 2,309"):
        export_prompts("guessgym/WordleChat-v0", tmp_path / "p", tmp_path / "a", games=0)
    with pytest.raises(ValueError, match="two different files"):
        export_prompts("guessgym/WordleChat-v0", tmp_path / "p", tmp_path / "p")


def test_export_prompts_command(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from guessgym.cli import main

    out, answers = tmp_path / "p.jsonl", tmp_path / "a.jsonl"
    assert main(["export-prompts", "--env", "guessgym/NerdleChat-v0", "--env-kwargs", "length=6", "--games", "7",
                 "--out", str(out), "--answers-out", str(answers)]) == 0
    assert "wrote 7 first-turn prompts of mini-nerdle" in capsys.readouterr().out
    assert len(read_jsonl(out)) == len(read_jsonl(answers)) == 7
    plain = ["export-prompts", "--env", "guessgym/Nerdle-v1", "--out", str(out), "--answers-out", str(answers)]
    assert main(plain) == 2
    assert "is not a chat environment" in capsys.readouterr().err


@pytest.mark.parametrize("length", [5, 6, 7])
def test_the_commutative_rule_is_stated_and_its_example_wins(length: int) -> None:
    """Issue 22, item 12: the commutative chat game did not tell the model that rearrangements win."""
    from guessgym.envs.chat.rules import rearrangement_example

    plain = ChatGuessEnv(kind="nerdle", length=length)
    assert "Rearrangements win" not in plain.system_prompt
    env = ChatGuessEnv(kind="nerdle", length=length, commutative=True)
    assert "Rearrangements win" in env.system_prompt and "kept as written" in env.system_prompt
    answer, guess = rearrangement_example(env.game)
    assert answer != guess and f'if the answer is "{answer}", the guess "{guess}" wins' in env.system_prompt
    env.reset(seed=0, options={"answer": answer})
    _, reward, terminated, _, info = env.step(f"[{guess}]")
    assert terminated and info["won"] and reward == 1.0


@pytest.mark.parametrize("template, says", [
    ("{rules:{width}}", "uses {width}"),
    ("{rules.__class__}", "uses {rules.__class__}"),
    ("{rules[0]}", "uses {rules[0]}"),
    ("{rules:d}", "cannot be filled in"),
    ("{rules", "not a valid format string"),
])
def test_prompt_templates_are_checked_to_the_last_nested_field(template: str, says: str) -> None:
    """Issue 22, item 12: ``{rules:{width}}`` raised a raw KeyError at reset, ``{rules.__class__}`` passed."""
    with pytest.raises(ValueError, match=re.escape(says)):
        ChatGuessEnv(kind="nerdle", length=5, prompts={"system": template})
    assert ChatGuessEnv(kind="nerdle", length=5, prompts={"system": "{rules:>10}\n{reply_format}"})


def test_delimited_spans_are_what_the_regular_expression_finds() -> None:
    """The linear reader of ``start(.*?)end`` (tags, verifiers' fields) against re.finditer, on
    random texts of tags, their pieces and other characters."""
    import random

    from guessgym.envs.chat.replies import delimited, delimited_spans

    rng = random.Random(0)
    for _ in range(5_000):
        pieces = ["<guess>", "</guess>", "a", " ", "\n", "<", "guess>"]
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        expected = [m.group(1) for m in re.finditer(r"<guess>(.*?)</guess>", text, re.DOTALL)]
        assert list(delimited_spans(text, "<guess>", "</guess>")) == expected
        assert delimited(text, "<guess>", "</guess>") == (expected[-1] if expected else None)
        assert delimited(text, "<guess>", "</guess>", first=True) == (expected[0] if expected else None)
