"""The transfer protocol's results table (docs: "Transfer protocol"): every list, every player.

For each list of the protocol (the unseen-word lists and the published lists, normal and hard
mode, and the list of every one of the 14,855 words as an answer) it plays every answer with: every
greedy rule of the baselines, the shipped models of that mode, the general policy (``--model``, the
shipped ``pretrained:wordle-general`` by default) pure and with one step of lookahead (its
``top_k`` best guesses compared by rolling it out on every remaining answer), and judges the general
policy's moves against optimal play (move analysis). Beside them the optimum: proven for the
unseen-word lists (``results/transfer/lists.json``) and the published lists (shipped); on the
14,855-answer list, where no optimum is known, the solver's lower bound and how long it took.

Each figure is kept in ``results/transfer/results.json`` as it is measured (keyed by list, player
and, for the general policy, the model's SHA-256), so an interrupted run continues where it
stopped and ``--only`` reruns a part. ``--page`` writes the table into ``docs/transfer.md``
between its markers (the docs test checks that the page shows the committed results).

Usage (from the repository root)::

    python scripts/transfer_results.py [--model PATH] [--lists unseen,nyt2023,...] [--page]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from guessgym.agents.base import UnsupportedGameError
from guessgym.agents.optima import known_optimum
from guessgym.agents.registry import make_agent
from guessgym.envs.game import Game, wordle
from guessgym.evaluation.analysis import analyze
from guessgym.evaluation.evaluate import evaluate
from guessgym.infra.atomic import atomic_write_text, file_lock
from guessgym.infra.inputs import script_main
from guessgym.training.transfer import (
    BEGIN,
    END,
    GREEDY,
    LOOKAHEAD_TOP_K,
    SHIPPED,
    results_table,
    transfer_split,
    unseen_games,
)

OUT = Path("results/transfer/results.json")
LISTS_FILE = Path("results/transfer/lists.json")
PAGE = Path("docs/transfer.md")
PUBLISHED = ("nyt2023", "original", "nyt")
EVERY_WORD = "every-word"
ENV_ID = "guessgym/Wordle-v1"


def protocol_lists() -> dict[str, Game]:
    """Every list of the protocol, by name, in the table's order."""
    games = dict(unseen_games(transfer_split()))
    for hard in (False, True):
        for name in PUBLISHED:
            games[f"{name}{'-hard' if hard else ''}"] = wordle(word_list=name, hard_mode=hard)
    words = sorted(wordle(word_list="nyt2023").guesses)
    games[EVERY_WORD] = wordle(answers=words, guesses=words)
    return games


def optimum_of(name: str, game: Game) -> dict[str, Any]:
    """The list's optimum (or, where none is known, the solver's lower bound)."""
    lists = json.loads(LISTS_FILE.read_text())["lists"]
    if name in lists:
        entry = lists[name]
        return {"total": entry["total"], "proven": entry["proven"], "source": str(LISTS_FILE)}
    optimum = known_optimum(game)
    if optimum is not None:
        return {"total": optimum.total, "proven": optimum.proven, "source": "guessgym.agents.optima (shipped)"}
    bound = Path("results/transfer/every_word_bound.json")
    record = json.loads(bound.read_text()) if name == EVERY_WORD and bound.is_file() else {}
    if record.get("complete"):
        return {"total": None, "lower_bound": record["lower_bound"], "proven": False,
                "bound_seconds": record["seconds"], "source": f"{bound} (python scripts/every_word_bound.py)"}
    from guessgym.baselines.move_values import StateValues

    start = time.perf_counter()
    values = StateValues(game)
    bounds = values.bounds()
    lower = bounds.low.scan_bound(values.everyone, len(game.answers), values.all_guesses,
                                  2 * len(game.answers) - bounds.low.class_max(values.everyone))
    return {"total": None, "lower_bound": int(lower), "proven": False,
            "bound_seconds": round(time.perf_counter() - start, 1),
            "source": "the solver's lower bound (one scan of every guess at the start)"}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def env_kwargs_of(name: str, game: Game) -> dict[str, Any]:
    """The arguments of ``guessgym/Wordle-v1`` that build the list (what the move analysis rebuilds it from)."""
    base = name.removesuffix("-hard")
    if base in PUBLISHED:
        return {"word_list": base, "hard_mode": game.hard_mode}
    return {"answers": list(game.answers), "guesses": list(game.guesses), "hard_mode": game.hard_mode}


def play_policy(spec: str, name: str, game: Game) -> Any:
    """A learned policy's result on every answer, by the batched rollout (the rules of every loop)."""
    from guessgym.evaluation.evaluate import evaluate_policy

    agent: Any = make_agent(spec)
    agent.begin(game)
    return evaluate_policy(agent.policy, game, name=spec, record_guesses=True, env_id=ENV_ID,
                           env_kwargs=env_kwargs_of(name, game))


def _figures(result: Any, seconds: float) -> dict[str, Any]:
    return {"total": result.total_guesses, "win_rate": round(result.win_rate, 6), "games": result.n_games,
            "max": result.max_guesses, "seconds": round(seconds, 1)}


def measure(name: str, game: Game, entry: dict[str, Any], model: str, model_sha: str, only: set[str] | None,
            save: Callable[[], None]) -> None:
    """Fill ``entry`` (one list's record) with whatever it lacks, calling ``save`` after each figure."""
    def wanted(key: str) -> bool:
        return key not in entry["players"] and (only is None or key.split(":")[0] in only)

    spec = model if model.startswith("pretrained:") else f"model:{model}"
    kwargs = env_kwargs_of(name, game)
    players: list[tuple[str, Callable[[], Any]]] = [
        (rule, lambda rule=rule: evaluate(make_agent(rule), ENV_ID, env_kwargs=kwargs)) for rule in GREEDY]
    players += [(shipped, lambda shipped=shipped: play_policy(shipped, name, game))
                for shipped in SHIPPED[game.hard_mode]]
    general = f"general:{model_sha[:16]}"
    lookahead = f"general-lookahead-{LOOKAHEAD_TOP_K}:{model_sha[:16]}"
    players += [(general, lambda: play_policy(spec, name, game)),
                (lookahead, lambda: evaluate(make_agent("lookahead", model=spec, top_k=LOOKAHEAD_TOP_K), ENV_ID,
                                             env_kwargs=kwargs))]
    for key, play in players:
        if not wanted(key):
            continue
        start = time.perf_counter()
        try:
            result = play()
        except UnsupportedGameError as exc:  # a rule that does not play this mode (clique: easy mode only)
            entry["players"][key] = {"unsupported": str(exc)}
            save()
            continue
        figures = _figures(result, time.perf_counter() - start)
        if key == general and name != EVERY_WORD:
            start = time.perf_counter()
            summary = analyze(result).summary(mistakes=3)
            figures["analysis"] = {k: summary[k] for k in ("moves", "mean_loss_per_move", "mean_loss_per_game",
                                                           "best_move_share", "loss_by_move", "best_proven")}
            figures["analysis"]["seconds"] = round(time.perf_counter() - start, 1)
        entry["players"][key] = figures
        print(f"{name}: {key}: {figures['total']:,} guesses, {100 * figures['win_rate']:.2f}% won "
              f"({figures['seconds']} s)", flush=True)
        save()


def write_page(text: str) -> None:
    page = PAGE.read_text()
    if BEGIN not in page or END not in page:
        raise SystemExit(f"{PAGE} has no results markers ({BEGIN} ... {END})")
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    atomic_write_text(PAGE, f"{head}{BEGIN}\n\n{text}\n\n{END}{tail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="pretrained:wordle-general", help="the general policy (a model zip, or "
                        "pretrained:NAME)")
    parser.add_argument("--lists", default=None, help="comma-separated list names (default: every list)")
    parser.add_argument("--only", default=None, help="comma-separated players to measure (e.g. general,"
                        "general-lookahead-5,most-buckets)")
    parser.add_argument("--page", action="store_true", help="write the table into docs/transfer.md")
    args = parser.parse_args()
    if args.model.startswith("pretrained:"):
        from guessgym.agents.pretrained import model_path

        model_file = model_path(args.model.split(":", 1)[1])
    else:
        model_file = Path(args.model)
    model_sha = _sha(model_file)
    data: dict[str, Any] = json.loads(OUT.read_text()) if OUT.is_file() else {}
    data.update(command="python scripts/transfer_results.py", python=platform.python_version(),
                model=args.model, model_sha256=model_sha)
    data.setdefault("lists", {})

    games = protocol_lists()

    def save() -> None:
        """Merge this run's figures into the file under a lock (runs of other lists or players may
        write it at the same time) and see theirs."""
        with file_lock(Path(tempfile.gettempdir()) / "guessgym-transfer-results.lock"):
            current = json.loads(OUT.read_text()) if OUT.is_file() else {}
            lists = current.get("lists", {})
            for name, entry in data["lists"].items():
                theirs = lists.get(name, {})
                players = dict(theirs.get("players", {})) if theirs.get("fingerprint") == entry["fingerprint"] else {}
                players.update(entry["players"])
                entry["players"] = players
                if "optimum" not in entry and "optimum" in theirs:
                    entry["optimum"] = theirs["optimum"]
            merged = {**{n: e for n, e in lists.items() if n not in data["lists"]}, **data["lists"]}
            order = list(games)
            data["lists"] = {n: merged[n] for n in sorted(merged, key=lambda n: order.index(n) if n in order else 99)}
            atomic_write_text(OUT, json.dumps(data, indent=1) + "\n")

    names = list(games) if args.lists is None else args.lists.split(",")
    unknown = sorted(set(names) - set(games))
    if unknown:
        raise SystemExit(f"unknown list(s) {unknown}; lists: {list(games)}")
    only = None if args.only is None else set(args.only.split(","))
    for name in names:
        game = games[name]
        entry = data["lists"].setdefault(name, {})
        if entry.get("fingerprint") != game.fingerprint:
            entry.clear()
        entry.update(answers=len(game.answers), guesses=len(game.guesses), hard_mode=game.hard_mode,
                     fingerprint=game.fingerprint)
        entry.setdefault("players", {})
        if "optimum" not in entry:
            entry["optimum"] = optimum_of(name, game)
            save()
        measure(name, game, entry, args.model, model_sha, only, save)
    save()
    text = results_table(data, model_sha)
    print(text)
    if args.page:
        write_page(text)
        print(f"wrote the table into {PAGE}")


if __name__ == "__main__":
    script_main(main)
