"""Expert demonstrations: games played by an agent (the optimal tree by default) as training data.

:func:`export_demos` plays the chosen answers with the agent through the shared evaluation loop,
then writes each game as the conversation a language model would have had, rendered by the chat
environment itself (its prompts, its tiles, its closing line), in the formats supervised
fine-tuning reads:

* ``messages``: chat ``messages`` as JSON lines (``{"messages", "answer", "id", "guesses"}``), the
  model's turns replies the environment accepts (``[crane]`` in the default reply format);
* ``tools``: the same games through the ``guess`` tool that TRL's ``environment_factory`` rollouts
  call (:class:`~guessgym.envs.chat.tools.GuessToolEnv`): assistant ``tool_calls``, ``tool``
  results, and the ``tools`` schema beside them;
* ``policy``: for behaviour cloning of the stable-baselines3 policies, the same games' observations,
  action masks and actions as arrays (``.npz``), from the plain environment.

The answers are split by answer into a train and a test file (a seeded permutation; no answer of
the test set is in training). With ``rationale``, each of the model's turns first says, from the
exact state, how many answers remain, how the guess splits them and how many guesses optimal play
still expects (:class:`~guessgym.baselines.move_values.StateValues`): as plain text before the
guess, or inside ``<think>...</think>`` where reasoning models expect it (``"thinking"``). A
``manifest.json`` records the command, the game, the agent, the options, the counts and each file's
SHA-256, so a rerun can be checked byte for byte. Every game is checked as it is written: replayed
through the chat environment, it must be won in exactly the agent's number of guesses.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..envs.chat.env import ChatFamily, ChatGuessEnv
from ..envs.chat.splits import ChatGames, split_answers, split_games
from ..envs.chat.tools import GuessToolEnv, tool_prompt
from ..envs.game import Game, split_env_options
from ..infra.atomic import atomic_directory, atomic_open, atomic_write_text, check_not_a_link
from ..infra.export_record import check_earlier_export, mark_export

#: The conversation formats (``policy`` arrays are written beside either with ``policy=True``).
FORMATS = ("messages", "tools")
#: The largest game (guesses x answers) a rationale is computed for: classic Nerdle with its answers as
#: guesses (314 million cells) is; with every valid equation (1.2 billion) it would take hours.
RATIONALE_MAX_CELLS = 400_000_000
#: Where a turn's rationale goes: nowhere, as text before the guess, or in ``<think>`` tags.
RATIONALES = ("none", "plain", "thinking")
#: Version of the files' layout (in the manifest).
DEMO_FORMAT = 1

#: The ``guess`` tool as a chat template's ``tools`` entry: what ``transformers.utils.get_json_schema``
#: makes of :meth:`GuessToolEnv.guess` (a test checks they agree), so SFT and GRPO see one tool.
GUESS_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "guess",
        "description": "Play one guess and get its tiles.",
        "parameters": {
            "type": "object",
            "properties": {"guess": {"type": "string", "description": "the guess to play: a word of the list "
                                     "(Wordle) or a true equation (Nerdle)."}},
            "required": ["guess"],
        },
        "return": {"type": "string", "description": "The tiles of the guess (G green, Y/P in the answer elsewhere, "
                   "B not in it), in words too,\n    and how many guesses are left; or why the guess is invalid."},
    },
}


@dataclass(frozen=True)
class Demo:
    """One game of the agent: its answer (index and text), its guesses, and a rationale per guess
    (``""`` each when none was asked for)."""

    index: int
    answer: str
    guesses: tuple[str, ...]
    notes: tuple[str, ...]


def rationale(game: Game, values: Any, answer: str, guesses: Sequence[str]) -> tuple[str, ...]:
    """What each guess does in its state, exactly: answers left, how the guess splits them, and the
    expected guesses to finish with optimal play after it (this one counted)."""
    answers, allowed, left = values.everyone, values.all_guesses, game.max_attempts
    notes = []
    for guess in guesses:
        index = game.guess_index[guess]
        total, buckets = values.after(answers, index, left, allowed)
        n = int(answers.size)
        if n == 1:
            notes.append(f"Only {guess} remains, so it is the answer.")
        else:
            largest = max(int(b.answers.size) for b in buckets)
            groups = (f"{len(buckets):,} groups of one answer each" if largest == 1 else
                      f"{len(buckets):,} groups, the largest of {largest:,}")
            notes.append(f"{n:,} answers remain. {guess} splits them by its tiles into {groups}; with the best play "
                         f"after it, {total / n:.2f} guesses are expected from here, this one included.")
        pattern = int(game.score(guess, answer))
        bucket = next(b for b in buckets if b.pattern == pattern)
        answers, allowed, left = bucket.answers, bucket.allowed, left - 1
    return tuple(notes)


def _content(note: str, reply: str, style: str) -> str:
    if style == "none" or not note:
        return reply
    if style == "thinking":
        return f"<think>\n{note}\n</think>\n\n{reply}"
    return f"{note}\n\n{reply}"


def message_demo(env: ChatGuessEnv, demo: Demo, style: str) -> list[dict[str, str]]:
    """The game as chat messages: the environment's prompts and feedback, the agent's replies."""
    _, info = env.reset(options={"answer": demo.index})
    for guess, note in zip(demo.guesses, demo.notes, strict=True):
        _, _, terminated, _, info = env.step(_content(note, env.parser.reply_for(guess), style))
    _check_won(info, demo)
    return [dict(m) for m in info["messages"][:-1]]  # up to the model's winning reply


def tool_demo(env: ChatGuessEnv, demo: Demo, style: str) -> list[dict[str, Any]]:
    """The game through the ``guess`` tool: the tool prompt, assistant ``tool_calls`` and ``tool`` results,
    up to the winning call."""
    tool = GuessToolEnv.around(env)
    tool.reset(answer=demo.answer)
    messages: list[dict[str, Any]] = [dict(m) for m in tool_prompt(env, tool.info["messages"])]
    for guess, note in zip(demo.guesses, demo.notes, strict=True):
        messages.append({"role": "assistant", "content": _content(note, "", style).strip(), "tool_calls": [
            {"type": "function", "function": {"name": "guess", "arguments": {"guess": guess}}}]})
        messages.append({"role": "tool", "name": "guess", "content": tool.guess(guess)})
    _check_won(tool.info, demo)
    return messages[:-1]  # up to the model's winning call


def _check_won(info: dict[str, Any], demo: Demo) -> None:
    if not info.get("won") or info.get("attempt") != len(demo.guesses):
        raise RuntimeError(f"the demonstration of {demo.answer!r} does not replay to a win in {len(demo.guesses)} "
                           f"guesses in the chat environment (won={info.get('won')}, attempt={info.get('attempt')})")


#: One guess of a replayed game: the observation before it, its action, reward, terminated,
#: truncated, and the observation after it.
Transition = tuple[dict[str, np.ndarray], int, float, bool, bool, dict[str, np.ndarray]]


def replay_steps(env: Any, answer: int, guesses: Sequence[str]) -> Iterator[Transition]:
    """The transitions of ``guesses`` played against the answer of index ``answer`` in ``env`` (an
    array environment of one board), one per guess, as they are played (so a caller keeps only
    what it needs: an action mask per turn is 850 MB over classic Nerdle's demonstrations).

    Raises:
        RuntimeError: the game does not end at its last guess.
    """
    game = env.unwrapped.game
    obs, _ = env.reset(options={"answer": int(answer)})
    ended = False
    for guess in guesses:
        action = game.guess_index[guess]
        after, reward, terminated, truncated, _ = env.step(action)
        ended = bool(terminated or truncated)
        yield obs, action, float(reward), bool(terminated), bool(truncated), after
        obs = after
    if not ended:
        raise RuntimeError(f"the game of {game.answers[int(answer)]!r} does not end at its last guess "
                           f"({len(guesses)}) in the array environment")


def policy_arrays(game: Game, demos: Sequence[Demo], *, masks: bool = True,
                  env_kwargs: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Observations (each key of the plain environment's ``Dict``), actions, rewards and game
    numbers of every turn of ``demos``, for behaviour cloning.

    ``masks=False`` leaves out ``obs_action_mask`` (a game's size in guesses per turn: 850 MB over
    classic Nerdle's 48,000 turns, and all ones out of hard mode); ``env_kwargs`` are the reward
    options of the environment whose ``rewards`` are recorded (the defaults otherwise).
    """
    from ..envs.env import GuessEnv

    env = GuessEnv(game=game, **dict(env_kwargs or {}))
    columns: dict[str, list[np.ndarray]] = {}
    actions, games, rewards = [], [], []
    for number, demo in enumerate(demos):
        for obs, action, reward, _, _, _ in replay_steps(env, demo.index, demo.guesses):
            for key, value in obs.items():
                if masks or key != "action_mask":
                    columns.setdefault(f"obs_{key}", []).append(np.asarray(value))
            actions.append(action)
            games.append(number)
            rewards.append(reward)
    arrays = {key: np.stack(values) for key, values in columns.items()}
    arrays["actions"] = np.asarray(actions, dtype=np.int64)
    arrays["games"] = np.asarray(games, dtype=np.int64)
    arrays["rewards"] = np.asarray(rewards, dtype=np.float32)
    return arrays


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export_demos(env_id: str, out: str | os.PathLike[str], *, env_kwargs: dict[str, Any] | None = None,
                 agent: str = "optimal", agent_kwargs: dict[str, Any] | None = None, games: int | None = None,
                 split: float = 0.9, seed: int = 0, fmt: str = "messages", rationale_style: str = "none",
                 policy: bool = False, cache_dir: str | os.PathLike[str] | None = None,
                 command: str = "", progress: Any = False, datasets: bool = False) -> dict[str, Any]:
    """Write the demonstrations of ``agent`` on ``env_id`` into ``out`` (see the module docstring);
    return the manifest (also written as ``out/manifest.json``).

    Args:
        env_id: a plain or chat id (a plain id is played in conversation with the default chat options).
        env_kwargs: game and chat options (``hard_mode``, ``reply_format``, ``feedback``...).
        agent, agent_kwargs: the agent that plays (a registry name: ``optimal``, ``least-worst``...).
        games: that many answers (a seeded sample), or every answer (``None``).
        split: the share of the answers in the train file; the rest are the test file.
        seed: of the sample and the split.
        fmt: ``"messages"`` or ``"tools"``.
        rationale_style: ``"none"``, ``"plain"`` or ``"thinking"``.
        policy: also write the policy arrays (``policy-train.npz``, ``policy-test.npz``).
        cache_dir: where the rationale's solved states are kept between runs.
        command: the command line, for the manifest.
        progress: as in :func:`guessgym.evaluation.evaluate.evaluate`.
        datasets: also save the splits as a Hugging Face ``DatasetDict`` in ``out/datasets``.

    Everything is written into a new folder beside ``out`` that then takes its place, so an
    export is whole or absent, and a rerun into an earlier export's folder leaves nothing of it
    (:func:`check_demo_folder`). The example words of the rules and the reply format are never
    test answers (``withheld``), so no text a training game is given names one.

    Raises:
        ValueError: a bad option (named, with what is allowed), or an agent that does not win every game.
    """
    from ..agents.registry import make_agent
    from ..evaluation.evaluate import evaluate
    from ..evaluation.games import select_answers

    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    if rationale_style not in RATIONALES:
        raise ValueError(f"rationale must be one of {', '.join(RATIONALES)}; got {rationale_style!r}")
    kwargs = ChatFamily.chat_kwargs(env_id, env_kwargs)
    if "withheld" in kwargs:
        raise ValueError("withheld is set by the export itself (the test answers); leave it out")
    if datasets:
        from ..infra.optional import require_extra

        require_extra("datasets", "--datasets")
    target = Path(os.path.normpath(out))
    check_demo_folder(target)
    env = ChatGuessEnv(**kwargs)
    game = env.game
    env.parser.reply_for(env.parser.example)  # a custom reply format is refused before any game is played
    chosen = [int(i) for i in select_answers(game, None, games, seed)]
    # no text of a training game (rules, examples, prompts) names a test answer: the adapters' one split
    games_of_split, train, test = split_games(ChatGames(game, split_env_options(kwargs)[1]), split, seed, "split",
                                              chosen)
    env = games_of_split.make_env()
    player = make_agent(agent, **dict(agent_kwargs or {}))
    result = evaluate(player, game, answers=chosen, seed=seed, record_guesses=True, progress=progress)
    lost = [r.answer for r in result.records if not r.solved]
    if lost:
        raise ValueError(f"{agent} lost {len(lost):,} of the {len(chosen):,} games (e.g. {lost[0]}); demonstrations "
                         "are games won")
    values = None
    if rationale_style != "none":
        from ..baselines.move_values import StateValues
        from ..evaluation.analysis import check_analysable

        check_analysable(game)
        if len(game.guesses) * len(game.answers) > RATIONALE_MAX_CELLS:
            raise ValueError(f"a rationale solves every bucket of every move, which on {game.name} with "
                             f"{len(game.guesses):,} guesses (a pattern matrix of {len(game.guesses):,} x "
                             f"{len(game.answers):,}) would take hours; export without --rationale, or with the "
                             "answers as the guesses")
        values = StateValues(game, cache_dir=cache_dir)
    played = {game.answer_index[r.answer]: r for r in result.records}
    with atomic_directory(target, check=check_demo_folder) as folder:
        manifest = _write_demos(folder, env, played, train, test, values, fmt, rationale_style, policy, datasets)
        manifest.update({
            "format": DEMO_FORMAT, "command": command, "env_id": env_id,
            "env_kwargs": {k: v for k, v in kwargs.items() if k != "kind"}, "agent": agent,
            "agent_kwargs": dict(agent_kwargs or {}), "agent_description": player.describe(), "seed": seed,
            "split": split, "withheld": "the test answers: no text of a training game names one",
        })
        manifest = {key: manifest[key] for key in MANIFEST_KEYS}
        atomic_write_text(folder / "manifest.json", json.dumps(manifest, indent=1) + "\n")
        mark_export(folder, "guessgym export-demos")  # last: every file it wrote, what a rerun may replace
    if values is not None:
        values.save()
    return manifest


#: The manifest's keys, in the order written.
MANIFEST_KEYS = ("format", "command", "guessgym", "env_id", "env_kwargs", "game", "agent", "agent_kwargs",
                 "agent_description", "conversation_format", "rationale", "reply_format", "withheld", "seed", "split",
                 "answers_available", "counts", "mean_guesses", "files")

def check_demo_folder(folder: Path) -> None:
    """Refuse ``folder`` unless it is missing, empty or an earlier export unchanged since (its
    :data:`~guessgym.infra.export_record.EXPORT_MARKER` lists every file in it), which the new
    export then replaces whole, so no stale file of an earlier run is left beside the new ones and
    no file of the user's is ever deleted.

    Raises:
        ValueError: naming the folder and what makes it someone else's.
    """
    try:
        check_not_a_link(folder)
    except ValueError as exc:
        raise ValueError(f"--out {exc}") from None
    if not folder.exists() or not any(folder.iterdir()):
        return
    try:
        check_earlier_export(folder, "give a new or empty folder, or an earlier export's folder (replaced whole)")
    except ValueError as exc:
        raise ValueError(f"--out {exc}") from None


def save_datasets(folder: Path) -> None:
    """The JSON-lines files of ``folder`` as a Hugging Face ``DatasetDict`` in ``folder/datasets``
    (``datasets.load_from_disk``)."""
    from ..infra.optional import require_extra

    require_extra("datasets", "--datasets")
    import datasets

    datasets.disable_progress_bars()
    splits = {}
    for name in ("train", "test"):
        rows = [json.loads(line) for line in (folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
        if rows:
            splits[name] = datasets.Dataset.from_list(rows)
    datasets.DatasetDict(splits).save_to_disk(str(folder / "datasets"))


def _write_demos(target: Path, env: ChatGuessEnv, played: dict[int, Any], train: list[int], test: list[int],
                 values: Any, fmt: str, rationale_style: str, policy: bool, datasets: bool) -> dict[str, Any]:
    """Write the splits' files into ``target``; the manifest's entries about them."""
    game = env.game
    files: dict[str, dict[str, Any]] = {}
    counts: dict[str, dict[str, int]] = {}
    for name, indices in (("train", train), ("test", test)):
        demos = []
        for index in indices:
            record = played[index]
            assert record.played is not None
            notes = (rationale(game, values, record.answer, record.played) if values is not None
                     else ("",) * len(record.played))
            demos.append(Demo(index, record.answer, tuple(record.played), notes))
        path = target / f"{name}.jsonl"
        with atomic_open(path, "w") as handle:
            for demo in demos:
                if fmt == "messages":
                    row: dict[str, Any] = {"messages": message_demo(env, demo, rationale_style)}
                else:
                    row = {"messages": tool_demo(env, demo, rationale_style), "tools": [GUESS_TOOL]}
                row.update(answer=demo.answer, guesses=len(demo.guesses))
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        files[path.name] = {"games": len(demos), "sha256": _sha256(path)}
        counts[name] = {"games": len(demos), "turns": sum(len(d.guesses) for d in demos)}
        if policy:
            npz = target / f"policy-{name}.npz"
            arrays = policy_arrays(game, demos)
            with atomic_open(npz, "wb") as handle:
                np.savez_compressed(handle, allow_pickle=False, **arrays)
            files[npz.name] = {"turns": int(arrays["actions"].size), "sha256": _sha256(npz)}
    if datasets:
        save_datasets(target)
    from importlib import metadata

    return {
        "guessgym": metadata.version("guessgym"), "game": game.name, "conversation_format": fmt,
        "rationale": rationale_style, "reply_format": env.parser.format_name, "answers_available": len(game.answers),
        "counts": counts, "files": files,
        "mean_guesses": {name: round(c["turns"] / c["games"], 6) if c["games"] else None for name, c in counts.items()},
    }


__all__ = ["DEMO_FORMAT", "MANIFEST_KEYS", "Demo", "FORMATS", "GUESS_TOOL", "RATIONALES",
           "check_demo_folder", "export_demos", "message_demo", "policy_arrays", "rationale", "replay_steps",
           "save_datasets", "split_answers", "tool_demo"]
