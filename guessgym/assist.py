"""``guessgym assist``: a solver at your side while you play the real game.

The assistant proposes a guess; you play it in the real game and type the tiles the game showed
under it. It improves on the console of Pawson 2023 where that report says its own
interface fell short:

* what you type is validated (a bad character or a wrong number of tiles is named), and tiles can
  be typed as letters ``G``/``Y``/``B`` (``P`` for Nerdle's purple), marks ``*``/``+``/``_`` or
  digits ``2``/``1``/``0``, mixed freely;
* impossible feedback (no answer left) is caught at once, says whether the pattern is impossible
  for that guess at all or only together with earlier feedback, and loses nothing: the state is
  unchanged, retype the tiles or ``undo`` an earlier mistake;
* it says when the puzzle is solved, and how many answers remain after each feedback;
* ``guess WORD`` when you played something else, ``list`` to see the remaining answers,
  ``solver NAME`` to switch solver mid-game, ``undo``, ``help``, ``quit``.

The state machine is :class:`AssistSession` (no I/O, tested on its own); :func:`run_assist` is
the terminal loop over injectable streams.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from .agents.base import Agent, CandidateAgent
from .envs.candidates import Candidates
from .envs.game import Game
from .envs.scoring import pattern_to_tiles, tiles_to_pattern

TILE_HELP = "G * 2 = green, Y + 1 P = yellow/purple, B _ 0 = grey/black"

HELP = f"""Commands:
  <tiles>          the tiles the game showed for the current guess ({TILE_HELP})
  <guess> <tiles>  you played <guess> (not the proposal) and got <tiles>
  guess <guess>    you will play <guess> instead of the proposal
  undo             take back the last feedback
  list [N]         show the remaining possible answers (first N, default 20)
  solver <name>    switch to another solver
  help             this text
  quit             leave"""


class AssistError(ValueError):
    """Input the assistant cannot accept; the message says why and the state is unchanged."""


@dataclass(frozen=True)
class Step:
    """One played guess and its feedback."""

    guess: int
    pattern: int


class AssistSession:
    """The assistant's state: a game, a solver, the feedback so far, and the current guess.

    Every method either succeeds or raises :class:`AssistError` without changing the state.

    Examples:
        >>> from guessgym.envs import nerdle
        >>> from guessgym.agents.base import CandidateAgent
        >>> class First(CandidateAgent):
        ...     def choose(self, state):
        ...         return int(state.game.answer_to_guess[state.candidates.indices[0]])
        >>> s = AssistSession(nerdle(5), First(), "first")
        >>> s.current_word(), s.remaining()
        ('1*1=1', 127)
        >>> s.feedback("BBBBB")
        Traceback (most recent call last):
        ...
        guessgym.assist.AssistError: no answer gives 'BBBBB' to '1*1=1' (the pattern is impossible ...
        >>> s.feedback("BBBGB"), s.remaining(), s.current_word()
        (False, 56, '2+2=4')
        >>> s.undo(), s.remaining()
        (Step(guess=0, pattern=54), 127)
    """

    def __init__(self, game: Game, solver: CandidateAgent, solver_name: str) -> None:
        self.game = game
        self.history: list[Step] = []
        self._current: int | None = None
        self._use(solver, solver_name)
        self.solved = False

    # ---- state -------------------------------------------------------------------------------
    def _use(self, solver: CandidateAgent, name: str) -> None:
        if not isinstance(solver, CandidateAgent):
            raise AssistError(
                f"solver {name!r} cannot assist: it is not a candidate-based solver "
                "(it must keep candidates and propose guesses from feedback)"
            )
        solver.begin(self.game)  # may raise UnsupportedGameError (a ValueError): nothing changed yet
        for step in self.history:
            solver.observe(step.guess, step.pattern)
        self.solver = solver
        self.solver_name = name

    @property
    def candidates(self) -> Candidates:
        return self.solver.state.candidates

    def remaining(self) -> int:
        """How many answers are still possible."""
        return len(self.candidates)

    def attempt(self) -> int:
        """The number of the next guess (1-based)."""
        return len(self.history) + 1

    def current(self) -> int:
        """The guess to play next: the one declared with :meth:`declare`, else the solver's."""
        if self._current is None:
            self._current = self.solver.propose()
        return self._current

    def current_word(self) -> str:
        return self.game.guesses[self.current()]

    # ---- actions -----------------------------------------------------------------------------
    def declare(self, text: str) -> int:
        """Say the next guess is ``text`` (the user played something else); return its index."""
        reason = self.game.explain_invalid_guess(text)
        if reason is not None:
            raise AssistError(reason)
        index = self.game.guess_index[self.game.normalize_guess(text)]
        hard = self.solver.state.hard
        if hard is not None:
            why = hard.violation(index)
            if why is not None:
                raise AssistError(f"hard mode would refuse {self.game.guesses[index]!r}: {why}")
        self._current = index
        return index

    def parse_tiles(self, text: str) -> int:
        """The pattern typed by the user (validated; raises :class:`AssistError`)."""
        try:
            return tiles_to_pattern(text, self.game.length)
        except ValueError as exc:
            raise AssistError(str(exc)) from None

    def feedback(self, text: str) -> bool:
        """Record the tiles the game showed for the current guess; return whether it is solved."""
        if self.solved:
            raise AssistError("the puzzle is already solved; 'undo' to change the last feedback or 'quit'")
        pattern = self.parse_tiles(text)
        guess = self.current()
        after = self.candidates.update(guess, pattern)
        if len(after) == 0:
            word = self.game.guesses[guess]
            tiles = pattern_to_tiles(pattern, self.game.length)
            alone = Candidates.initial(self.game, self.candidates.matrix).update(guess, pattern)
            if len(alone) == 0:
                why = "the pattern is impossible for this guess"
            else:
                why = (f"{len(alone)} answers give it, but none of them fits the earlier feedback; "
                       "'undo' if an earlier line was wrong")
            typed = text.replace(" ", "")
            shown = repr(tiles) if typed == tiles else f"{typed!r} (= {tiles})"
            raise AssistError(f"no answer gives {shown} to {word!r} ({why}); check the tiles and type them again")
        self.solver.observe(guess, pattern)
        self.history.append(Step(guess, pattern))
        self._current = None
        self.solved = pattern == self.game.solved_pattern
        return self.solved

    def undo(self) -> Step:
        """Take back the last feedback (the solver replays the rest); return the removed step."""
        if not self.history:
            raise AssistError("nothing to undo")
        last = self.history.pop()
        try:
            self._use(self.solver, self.solver_name)
        except Exception:
            self.history.append(last)
            raise
        self._current = None
        self.solved = False
        return last

    def switch(self, solver: CandidateAgent, name: str) -> None:
        """Continue the game with another solver (it replays the feedback so far)."""
        self._use(solver, name)
        self._current = None

    def words(self, n: int | None = None) -> list[str]:
        """The remaining possible answers (the first ``n``)."""
        idx = self.candidates.indices if n is None else self.candidates.indices[:n]
        return [self.game.answers[i] for i in idx]


def _read(stdin: TextIO, stdout: TextIO, prompt: str) -> str | None:
    stdout.write(prompt)
    stdout.flush()
    line = stdin.readline()
    if not line:
        return None
    if not stdin.isatty():  # echo scripted input so a transcript reads like a session
        stdout.write(line if line.endswith("\n") else line + "\n")
    return line.strip()


def run_assist(
    game: Game,
    make_solver: Callable[[str], Agent],
    solver_name: str,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    judge: bool = False,
    judge_budget: float = 120.0,
) -> int:
    """The interactive loop; returns an exit code (0 solved or quit, 1 input ended unsolved).

    ``make_solver(name)`` builds a solver by name (may raise ``ValueError`` with a message).
    ``judge``: after each move, say how it compares with optimal play
    (:mod:`guessgym.evaluation.analysis`: its loss in expected guesses, the best guess, the luck).
    """
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout

    def say(text: str = "") -> None:
        out.write(text + "\n")

    try:
        session = AssistSession(game, _as_candidate(make_solver(solver_name), solver_name), solver_name)
    except ValueError as exc:  # UnsupportedGameError: this solver cannot play this game
        raise AssistError(f"solver {solver_name!r} cannot play {game.name}: {exc}") from None
    judgement = MoveJudge(game, say, judge_budget) if judge else None
    noun = "word" if game.kind == "wordle" else "equation"
    say(f"{game.name}: {_possible(len(game.answers))}, {game.max_attempts} attempts"
        + (", hard mode" if game.hard_mode else "") + f"; solver {solver_name}.")
    say(f"Play the proposed {noun} in the game, then type its tiles under it ({TILE_HELP}). 'help' for more.")
    while True:
        if session._current is None and len(game.guesses) * session.remaining() > SLOW_PROPOSAL:
            say(f"thinking: {solver_name} weighs {len(game.guesses):,} guesses against "
                f"{_possible(session.remaining())} ...")
            out.flush()
            started = time.perf_counter()
            _propose_with_progress(session)
            say(f"(took {time.perf_counter() - started:.1f} s)")
        word = _display(session.current_word(), game)
        label = f"guess {session.attempt()}: "
        say(f"{label}{word}")
        line = _read(stdin, out, " " * (len(label) - 7) + "tiles> ")
        if line is None:
            say("input ended; the puzzle is not solved yet")
            return 1
        if not line:
            continue
        command, _, rest = line.partition(" ")
        rest = rest.strip()
        try:
            lowered = command.lower()
            if lowered in ("quit", "exit", "q"):
                say("bye")
                return 0
            if lowered in ("help", "?", "h"):
                say(HELP)
            elif lowered == "undo":
                _undo(session, say)
            elif lowered in ("list", "ls"):
                n = _list_size(rest)
                words = session.words(n)
                more = session.remaining() - len(words)
                say(" ".join(words) + (f" ... and {more:,} more" if more > 0 else ""))
            elif lowered == "solver":
                if not rest:
                    raise AssistError("usage: solver NAME")
                session.switch(_as_candidate(make_solver(rest), rest), rest)
                say(f"now using solver {rest}")
            elif lowered == "guess":
                if not rest:
                    raise AssistError("usage: guess WORD")
                session.declare(rest)
            elif rest and " " not in rest and _looks_like_guess(command, game):
                # "<guess> <tiles>": the user played a word of their own and reports its tiles.
                previous = session._current
                session.declare(command)
                try:
                    _report(session, rest, say)
                except AssistError:
                    session._current = previous
                    raise
                if judgement is not None:
                    judgement.last_move(session.history)
                if session.solved and _finished(session, stdin, out, say):
                    return 0
            else:
                _report(session, line, say)
                if judgement is not None:
                    judgement.last_move(session.history)
                if session.solved and _finished(session, stdin, out, say):
                    return 0
        except (AssistError, ValueError) as exc:  # ValueError: unsupported game for a new solver
            say(f"error: {exc}")


#: guesses x candidates above which the next proposal may take seconds: say so first.
SLOW_PROPOSAL = 50_000_000


def _propose_with_progress(session: AssistSession) -> None:
    """The next proposal, with a progress bar on stderr (when it is a terminal) over the guesses weighed."""
    from tqdm.auto import tqdm

    from .envs.buckets import chunk_progress

    bar = tqdm(total=len(session.game.guesses), unit="guess", leave=False, disable=None, file=sys.stderr)
    try:
        with chunk_progress(lambda done, total: bar.update(done - bar.n)):
            session.current()
    finally:
        bar.close()


def _possible(n: int) -> str:
    return f"{n:,} possible answer{'' if n == 1 else 's'}"


def _list_size(text: str) -> int:
    if not text:
        return 20
    if not text.isdigit() or int(text) < 1:
        raise AssistError(f"usage: list [N], N a positive whole number of answers to show; got {text!r}")
    return int(text)


def _undo(session: AssistSession, say: Callable[[str], None]) -> None:
    step = session.undo()
    game = session.game
    say(f"took back {game.guesses[step.guess]} {pattern_to_tiles(step.pattern, game.length)}; "
        f"{_possible(session.remaining())}")


def _finished(session: AssistSession, stdin: TextIO, out: TextIO, say: Callable[[str], None]) -> bool:
    """After an all-green row: finish, unless the user takes the row back (it was mistyped)."""
    line = _read(stdin, out, "press Enter to finish, or type 'undo' if those tiles were mistyped> ")
    if line is not None and line.lower() == "undo":
        _undo(session, say)
        return False
    return True


class MoveJudge:
    """Says how the move just played compares with optimal play (``guessgym assist --judge``); the
    solving for one move is bounded by ``budget`` seconds, past which the move is left unjudged, saying so."""

    def __init__(self, game: Game, say: Callable[[str], None], budget: float = 120.0) -> None:
        self.game = game
        self.say = say
        self.budget = budget
        self.values: Any = None
        self.unavailable = ""

    def last_move(self, history: list[Step]) -> None:
        from .agents.base import UnsupportedGameError
        from .baselines.move_values import StateValues, ValuesTimedOut
        from .evaluation.analysis import analyze_moves, check_analysable
        from .infra.cache import cache_dir

        if self.unavailable or not history:
            return
        if self.values is None:
            try:
                check_analysable(self.game)
                self.values = StateValues(self.game, cache_dir=cache_dir())
            except UnsupportedGameError as exc:
                self.unavailable = str(exc)
                self.say(f"(no judgement of moves: {exc})")
                return
        if len(history) == 1 and not self.values.knows_after(
                self.values.everyone, history[0].guess, self.game.max_attempts, self.values.all_guesses):
            self.say(f"(judging: solving the tree of {self.game.guesses[history[0].guess]}, once; at most "
                     f"{self.budget:g} s)")
        self.values.set_budget(self.budget)
        try:
            move = analyze_moves(self.values, [(step.guess, step.pattern) for step in history]).moves[-1]
        except ValuesTimedOut:  # a start no shipped optimum covers (analyze_moves bounds the moves)
            move = None
        if move is None or move.bounded:
            self.values = None  # a search cut short: the next move starts a new one
            high = "?" if move is None or move.loss_high < 0 else f"{move.loss_high:.4f}"
            low = "0" if move is None else f"{move.loss:.4f}"
            self.say(f"(judge: optimal play from here was not solved within {self.budget:g} s; by proven bounds, "
                     f"{self.game.guesses[history[-1].guess]} lost from {low} to {high} guesses in expectation"
                     f"{'' if move is None or not move.best_guess else f' (best tree found: {move.best_guess})'}; "
                     "--judge-budget SECONDS gives more)")
            return
        verdict = ("was a best move" if move.loss <= 1e-9 else
                   f"lost {move.loss:.4f} guesses in expectation (best: {move.best_guess})")
        self.say(f"judge: {move.guess} {verdict}; {move.expected:.4f} guesses expected with it, "
                 f"luck of the tiles {move.luck:+.4f}")


def _report(session: AssistSession, tiles: str, say: Callable[[str], None]) -> None:
    solved = session.feedback(tiles)
    if solved:
        n = len(session.history)
        say(f"solved in {n} guess{'es' if n > 1 else ''}: {session.game.guesses[session.history[-1].guess]}")
        return
    left = session.remaining()
    if left == 1:
        say(f"1 possible answer: {session.words(1)[0]}")
    elif left <= 8:
        say(f"{_possible(left)}: {' '.join(session.words())}")
    else:
        say(_possible(left))
    if session.attempt() > session.game.max_attempts:
        say(f"(the game allows {session.game.max_attempts} attempts; carrying on anyway)")


def _looks_like_guess(token: str, game: Game) -> bool:
    return len(game.normalize_guess(token)) == game.length and any(c not in "GYBPgybp*+_210" for c in token)


def _display(word: str, game: Game) -> str:
    return word.upper() if game.kind == "wordle" else word


def _as_candidate(agent: Agent, name: str) -> CandidateAgent:
    if not isinstance(agent, CandidateAgent):
        raise AssistError(
            f"solver {name!r} cannot assist: it is not a candidate-based solver "
            "(it must keep candidates and propose guesses from feedback)"
        )
    return agent


__all__ = ["AssistError", "AssistSession", "HELP", "Step", "run_assist"]
