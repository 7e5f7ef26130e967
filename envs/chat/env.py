"""The chat environment: a game played in conversation, for language-model agents."""

from __future__ import annotations

import string
from collections.abc import Collection, Mapping
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ...infra.deprecation import RenamedAttribute
from ..engine import ANSWER
from ..env import GuessEnv, check_render_mode
from ..families import EnvFamily, GameSetup, family_of
from ..game import GAME_KEYS
from ..options import check_can_step, check_choice, check_int, check_penalty
from ..rewards import REWARD_KEYS
from .feedback import FEEDBACK_STYLES, TileFeedback
from .presets import PRESETS, ChatPreset, ReplyEvent
from .prompts import ChatPrompts
from .replies import DEFAULT_MAX_REPLY_CHARS, INVALID_KINDS, ReplyParser, Verdict
from .rules import rules_text

#: What an invalid reply costs: another try at the same guess (then the turn), the turn, or
#: another try (then the game).
INVALID_POLICIES = ("retry", "forfeit", "abort")

#: Whether a guess already played may be played again.
REPEAT_POLICIES = ("allowed", "invalid")

#: The most retries of one guess (a game ends within ``max_attempts * (max_retries + 1)`` replies).
MAX_RETRIES = 100

#: The options of :class:`ChatGuessEnv` itself; the others go to the game (:class:`GuessEnv`).
CHAT_OPTIONS = ("preset", "invalid", "max_retries", "repeats", "feedback", "reply_format", "reply_instruction",
                "max_reply_chars", "prompts", "invalid_penalty", "withheld")

#: The room given to each message the environment writes, in the observation space's bound.
_MESSAGE_ROOM = 8_192


class AnyText(spaces.Text):
    """A :class:`gymnasium.spaces.Text` of any Unicode characters.

    A model's reply, and so the conversation, may contain any character; ``Text`` checks every
    character against a charset. This space checks only the type and length; :meth:`sample`
    draws printable ASCII (which is how ``check_env`` exercises the environment).
    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed: int | None = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=string.printable, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"


class ChatGuessEnv(gym.Env[str, str]):
    """Wordle or Nerdle in conversation: the observation is the conversation, the action a reply.

    ## Description
    The game of :class:`~guessgym.envs.env.GuessEnv` (same rules, lists, hard mode, seeding),
    played by text. A system message states the rules of this exact game
    (:func:`~guessgym.envs.chat.rules.rules_text`) and the reply format; each reply of the model
    is read by :class:`~guessgym.envs.chat.replies.ReplyParser`, played, and answered with the
    tiles (letters, emoji squares or both) and the same tiles in words.

    ## Action Space
    :class:`AnyText` of up to ``max_reply_chars`` characters: the model's whole reply. By default
    the guess is the last ``[...]`` in it (``reply_format``). A non-string action raises ``TypeError``.

    ## Observation Space
    :class:`AnyText`: the conversation so far, each message as ``"### role\\ncontent"``, separated
    by blank lines. The same messages are in ``info["messages"]`` as ``{"role", "content"}``
    dicts, ready for a chat-completions request (do not modify them: they are shared).

    ## Invalid Replies
    A reply without a guess in the format (``"format"``), with a guess of the wrong length
    (``"length"``), an unknown word or an equation that is not valid and true (``"unknown"``), a
    guess played before where repeats are invalid (``"repeated"``, ``repeats="invalid"``), or a
    guess that breaks hard mode (``"hard_mode"``) is invalid. The model is told which and why.
    With ``invalid="retry"`` (default) it does not use a guess, and the model may try again up to
    ``max_retries`` times for the same guess; one more invalid reply loses the turn. With
    ``invalid="forfeit"`` every invalid reply loses the turn. With ``invalid="abort"`` the retries
    are the same, and one more invalid reply ends the game, lost (TextArena's and clembench's
    rule). ``invalid`` may also name a policy per kind (``{"format": "abort"}``; unnamed kinds
    retry). A lost turn uses a guess without tiles. An invalid reply never earns credit: its
    reward is ``invalid_penalty`` (0, or negative).

    ## Presets
    ``preset="textarena"``, ``"gem"``, ``"verifiers"``, ``"nemo"`` or ``"trl"`` plays this game
    under that suite's reply format, invalid-reply policy and reward
    (:mod:`~guessgym.envs.chat.presets`, which cites the file each follows); options passed
    explicitly override the preset's, and guessgym's reward options cannot be combined with it.
    The Wordle suites' presets (``textarena``, ``gem``, ``verifiers``, ``trl``, which reads five
    letters) refuse a game their reply format cannot carry, at construction.

    ## Rewards
    A valid guess earns what it earns in :class:`~guessgym.envs.env.GuessEnv`: ``win_reward``
    (1.0) for the winning guess, whatever the attempt; ``loss_reward`` (0.0) when the last
    attempt is used without a win, whether by a guess or a lost turn; the shaping of
    ``reward_mode="shaped"`` and ``step_penalty`` if set. An episode is a win or a loss, never a
    draw.

    ## Starting State
    The system message and the first user message; the answer is drawn as in ``GuessEnv``, or
    fixed with ``reset(options={"answer": ...})``.

    ## Episode End
    ``terminated`` when the answer is guessed, every attempt is used (by guesses or lost
    turns), or an invalid reply aborts the game. ``truncated`` is always False: retries are
    bounded, so a game always ends within ``max_attempts * (max_retries + 1)`` replies. ``step``
    after the end raises ``RuntimeError``.

    ## Information
    * ``"messages"``: the conversation as ``{"role", "content"}`` dicts.
    * ``"attempt"``: attempts used (valid guesses and lost turns); ``"guesses"``: valid guesses.
    * ``"turn"``: replies so far, retries included.
    * ``"guess"``, ``"tiles"`` (``G``/``Y``/``B``), ``"pattern"``, ``"candidates"``: as in
      ``GuessEnv`` for this reply's guess (``""``, ``""``, ``-1`` for an invalid reply).
    * ``"invalid_kind"`` (``""`` or one of ``"format"``, ``"length"``, ``"unknown"``,
      ``"hard_mode"``), ``"invalid_reason"`` (the message the model saw).
    * ``"invalid_counts"``: invalid replies of this game by kind; ``"retries"``: retries used
      for the current guess; ``"forfeits"``: turns lost.
    * ``"won"``, ``"answer"`` and ``"aborted"``: once the game has ended; ``"reward_terms"``: the
      named parts of a preset's reward, on the reply that ends the game.

    ## Arguments
    ``gymnasium.make("guessgym/WordleChat-v0", **kwargs)`` or ``ChatGuessEnv(render_mode, **kwargs)``:

    * every argument of ``GuessEnv`` (``kind``, ``length``, ``word_list``, ``answers``,
      ``guesses``, ``max_attempts``, ``hard_mode``, rewards, ``matrix_cache``);
    * ``preset`` (``None``); ``invalid`` (``"retry"``/``"forfeit"``/``"abort"``, or one per kind),
      ``max_retries`` (2), ``repeats`` (``"allowed"``/``"invalid"``), ``invalid_penalty`` (0.0);
    * ``feedback``: ``"letters"``, ``"emoji"`` or ``"both"`` (default);
    * ``reply_format``: ``"brackets"`` (default, ``[crane]``), ``"tags"``, ``"boxed"`` (``\\boxed{crane}``),
      ``"plain"`` or a regular expression
      with one group, with ``reply_instruction`` (how the prompt asks for it, ``{example}``
      marking an example guess); ``max_reply_chars`` (100,000, at most 10,000,000; a longer reply is
      a format error, and the conversation keeps only its first ``max_reply_chars`` characters);
    * ``prompts``: a :class:`~guessgym.envs.chat.prompts.ChatPrompts` or a dict of templates
      replacing the defaults;
    * ``withheld``: words no text of the environment names (the rules' examples and the reply
      format's example guess are chosen among the others): the test answers of a train/test
      split, so that no training conversation shows one (``guessgym export-demos`` sets it).

    ## Version History
    * v0: initial release; the ``rgb_array`` render mode (the board of the guesses played so far),
      ``preset``, ``invalid="abort"`` and ``repeats`` came later and change nothing by default.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}
    #: The description of this kind of game (:mod:`guessgym.envs.families`).
    family: ClassVar[EnvFamily]
    #: Deprecated name of :attr:`family` (until 0.3).
    kind = RenamedAttribute("family")

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        preset: str | None = None,
        invalid: str | Mapping[str, str] | None = None,
        max_retries: int | None = None,
        repeats: str | None = None,
        feedback: str = "both",
        reply_format: Any = None,
        reply_instruction: str | None = None,
        max_reply_chars: int = DEFAULT_MAX_REPLY_CHARS,
        prompts: ChatPrompts | dict[str, str] | None = None,
        invalid_penalty: float | None = None,
        withheld: Collection[str] | None = None,
        **game_options: Any,
    ) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        self.preset: ChatPreset | None = None
        defaults: dict[str, Any] = {"invalid": "retry", "max_retries": 2, "repeats": "allowed",
                                    "reply_format": "brackets"}
        if preset is not None:
            self.preset = PRESETS[check_choice("preset", preset, tuple(PRESETS))]
            mixed = [k for k in (*REWARD_KEYS, "invalid_penalty")
                     if (game_options.get(k) if k != "invalid_penalty" else invalid_penalty) is not None]
            if mixed:
                raise ValueError(f"preset={preset!r} defines the reward; drop {', '.join(mixed)} (or drop the preset)")
            defaults.update(self.preset.options)
        invalid = defaults["invalid"] if invalid is None else invalid
        self.invalid = invalid
        self.invalid_policy = _invalid_policy(invalid)
        self.max_retries = check_int("max_retries", defaults["max_retries"] if max_retries is None else max_retries,
                                     minimum=0, maximum=MAX_RETRIES)
        self.repeats = check_choice("repeats", defaults["repeats"] if repeats is None else repeats, REPEAT_POLICIES)
        reply_format = defaults["reply_format"] if reply_format is None else reply_format
        self.invalid_penalty = check_penalty("invalid_penalty", invalid_penalty or 0.0)  # never credit
        check_choice("feedback", feedback, FEEDBACK_STYLES)
        try:
            self.env = GuessEnv(build_matrix=False, **game_options)  # each guess's tiles, not every pair's
        except TypeError as exc:
            raise TypeError(f"{exc}; and the chat options {', '.join(CHAT_OPTIONS)}") from None
        self.game = self.env.game
        if self.preset is not None and (refusal := self.preset.refusal(self.game)) is not None:
            raise ValueError(refusal)
        if withheld is not None and (isinstance(withheld, str) or not all(isinstance(w, str) for w in withheld)):
            raise ValueError(f"withheld must be a list of words (answers no text may name), got {withheld!r}")
        #: The words no text of the environment names (``withheld``).
        self.withheld: frozenset[str] = frozenset(withheld or ())
        self.parser = ReplyParser(self.game, reply_format, max_reply_chars, reply_instruction, self.withheld)
        #: The rules as the system prompt states them (:func:`~guessgym.envs.chat.rules.rules_text`).
        self.rules = rules_text(self.game, self.withheld)
        self.prompts = ChatPrompts.from_value(prompts)
        self.tiles = TileFeedback(self.game, feedback)
        self._attempts = self.game.max_attempts
        self._loss_reward = float(self.env.rewards.loss_reward)
        self._solved = self.game.solved_pattern
        self._tile_strings = self.env.engine.tile_strings
        self.system_prompt = self.prompts.render(
            "system", rules=self.rules, reply_format=self.parser.instruction,
            attempts=self._attempts, length=self.game.length,
        )
        self.first_turn = self.prompts.render("first_turn", attempts=self._attempts, length=self.game.length)
        reply_chars = self.parser.max_reply_chars
        retrying = any(policy != "forfeit" for policy in self.invalid_policy.values())
        #: The most replies a game can take (every attempt, each after its retries).
        self.max_replies = self._attempts * (1 + (self.max_retries if retrying else 0))
        bound = len(self.system_prompt) + _MESSAGE_ROOM + self.max_replies * (2 * reply_chars + 2 * _MESSAGE_ROOM)
        self.action_space = AnyText(reply_chars)
        self.observation_space = AnyText(bound)
        self._messages: list[dict[str, str]] = []
        self._text = ""
        self._done = True
        self._started = False

    # ---- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        _, inner = self.env.reset(seed=seed, options=options)
        self._messages = []
        self._text = ""
        self._add("system", self.system_prompt)
        self._add("user", self.first_turn)
        self._attempt = self._guesses = self._turn = self._retries = self._forfeits = 0
        self._invalid_counts = dict.fromkeys(INVALID_KINDS, 0)
        self._played: list[str] = []
        self._played_tiles: list[str] = []
        self._replies: list[str] = []
        self._kinds: list[str] = []
        self._texts: list[str] = []
        self._aborted = False
        self._done = False
        self._started = True
        info = self._info("", "", -1, int(inner["candidates"]), Verdict(None, None))
        if self.render_mode == "human":
            self.render()
        return self._text, info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        check_can_step(self._done, self._started)
        if not isinstance(action, str):
            raise TypeError(f"the action is the model's reply as a string, got {type(action).__name__} {action!r}")
        verdict = self.parser.parse(action)
        action = self.parser.kept(action)  # an over-long reply is a format error, and kept cut
        self._add("assistant", action)
        self._turn += 1
        if verdict.valid and self.repeats == "invalid" and verdict.guess in self._played:
            verdict = Verdict(None, verdict.guess, "repeated", f"'{verdict.guess}' was guessed already; guess "
                                                               "something new.")
        reward = 0.0
        guess, tiles, pattern, candidates = "", "", -1, -1
        ended = ""
        if verdict.valid:
            _, inner_reward, inner_done, _, inner = self.env.step(verdict.action)  # type: ignore[arg-type]
            if inner["invalid_action"]:
                reason = ReplyParser.hard_mode_message(inner["invalid_reason"])
                verdict = Verdict(None, verdict.guess, "hard_mode", reason)
            else:
                self._attempt += 1
                self._guesses += 1
                self._retries = 0
                reward = float(inner_reward)
                guess, pattern, candidates = inner["guess"], int(inner["pattern"]), int(inner["candidates"])
                tiles = self._tile_strings[pattern]
                self._played.append(guess)
                self._played_tiles.append(tiles)
                won = pattern == self._solved
                if won or self._attempt >= self._attempts:
                    status = self._end(won)
                    ended = "won" if won else "lost"
                    if not won and not inner_done:
                        reward += self._loss_reward  # GuessEnv ends and pays it only at its own limit
                else:
                    status = self._left()
                self._add("user", self.prompts.render(
                    "feedback", attempt=self._attempt, attempts=self._attempts, guess=guess,
                    tiles=self.tiles.tiles(pattern), words=self.tiles.words(guess, pattern), status=status,
                ))
        if not verdict.valid:
            reward = self.invalid_penalty
            self._invalid_counts[verdict.kind] += 1
            policy = self.invalid_policy[verdict.kind]
            if policy != "forfeit" and self._retries < self.max_retries:
                self._retries += 1
                left = self.max_retries - self._retries
                then = "loses the turn" if policy == "retry" else "ends the game"
                consequence = ("This did not use a guess; reply again "
                               + (f"({left} more {'retry' if left == 1 else 'retries'} for this guess)." if left
                                  else f"(another invalid reply {then})."))
            elif policy == "abort":
                self._aborted = True
                reward += self._loss_reward
                ended = "aborted"
                consequence = f"This ends the game: too many invalid replies in a row.\n{self._end(False)}"
            else:
                self._attempt += 1
                self._forfeits += 1
                self._retries = 0
                if self._attempt >= self._attempts:
                    reward += self._loss_reward
                    ended = "lost"
                    consequence = f"This turn is lost, and it was the last.\n{self._end(False)}"
                else:
                    consequence = f"This turn is lost: {self._left()}"
            self._add("user", self.prompts.render("invalid", message=verdict.message, consequence=consequence))
        self._replies.append(action)
        self._kinds.append(verdict.kind)
        self._texts.append(verdict.guess or "")
        info = self._info(guess, tiles, pattern, candidates, verdict)
        if self.preset is not None:
            reward, terms = self.preset.reward(ReplyEvent(
                ended, tuple(self._replies), tuple(self._kinds), tuple(self._texts), tuple(self._played),
                tuple(self._played_tiles), self._current_answer(), self.game.length))
            if ended:
                info["reward_terms"] = terms
        if self._done:
            info["won"] = self._won
            info["answer"] = self._answer
            info["aborted"] = self._aborted
        if self.render_mode == "human":
            self.render()
        return self._text, reward, self._done, False, info

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; pass render_mode='ansi', 'human' or "
                            "'rgb_array'")
            return None
        if self.render_mode == "rgb_array":
            from ..render import render_board

            return render_board(self.env.board_rows(), self.game, "rgb_array")
        if self.render_mode == "human":
            shown = self._messages[-2:] if self._turn else self._messages
            print("\n\n".join(_format(m) for m in shown), flush=True)
            return None
        return self._text

    # ---- helpers ------------------------------------------------------------------------------
    @property
    def messages(self) -> list[dict[str, str]]:
        """The conversation so far (a new list of the shared message dicts)."""
        return list(self._messages)

    def _add(self, role: str, content: str) -> None:
        message = {"role": role, "content": content}
        self._messages.append(message)
        self._text = _format(message) if not self._text else f"{self._text}\n\n{_format(message)}"

    def _current_answer(self) -> str:
        return self.game.answers[int(self.env.engine.status[0][ANSWER])]

    def _left(self) -> str:
        left = self._attempts - self._attempt
        return f"{left} {'guess' if left == 1 else 'guesses'} left."

    def _end(self, won: bool) -> str:
        """End the game; the closing line (won or lost template)."""
        self._done = True
        self._won = won
        self._answer = self._current_answer()
        if won:
            return self.prompts.render("won", attempt=self._attempt, attempts=self._attempts, answer=self._answer)
        return self.prompts.render("lost", attempts=self._attempts, answer=self._answer)

    def _info(self, guess: str, tiles: str, pattern: int, candidates: int, verdict: Verdict) -> dict[str, Any]:
        return {
            "messages": list(self._messages),
            "attempt": self._attempt,
            "guesses": self._guesses,
            "turn": self._turn,
            "guess": guess,
            "tiles": tiles,
            "pattern": pattern,
            "candidates": candidates,
            "invalid_kind": verdict.kind,
            "invalid_reason": verdict.message,
            "invalid_counts": dict(self._invalid_counts),
            "retries": self._retries,
            "forfeits": self._forfeits,
        }


class ChatFamily(EnvFamily):
    """A game in conversation, for text agents (language models): an evaluation plays each chosen
    answer once; a plain id's game can be played in conversation too (:meth:`chat_kwargs`)."""

    name = "chat"
    summary = "text in, text out"
    description = "chat ids (guessgym/WordleChat-v0, guessgym/NerdleChat-v0)"
    text_actions = True
    fixed_answer = True

    @staticmethod
    def chat_kwargs(env_id: str, env_kwargs: dict[str, Any] | None = None,
                    max_attempts: int | None = None) -> dict[str, Any]:
        """The keyword arguments of the :class:`ChatGuessEnv` that plays ``env_id``: a chat id, or a
        plain guessgym id whose game is then played in conversation.

        Raises:
            ValueError: ``env_id`` is neither (the message lists the ids that are).
        """
        family = family_of(env_id) if isinstance(env_id, str) else None
        if family is None or not family.fixed_answer:
            known = sorted(k for k in gym.registry if (c := family_of(k)) is not None and c.fixed_answer)
            raise ValueError(f"a text agent plays a registered guessgym id, got {env_id!r}; ids: {', '.join(known)}")
        spec = gym.registry[env_id]
        base = {k: v for k, v in spec.kwargs.items() if family.text_actions or k in GAME_KEYS}
        kwargs = {**base, **(env_kwargs or {})}
        if max_attempts is not None:
            kwargs["max_attempts"] = max_attempts
        return kwargs

    def resolve(self, env_id: str, env_kwargs: dict[str, Any] | None = None,
                max_attempts: int | None = None) -> GameSetup:
        kwargs = self.chat_kwargs(env_id, env_kwargs, max_attempts)
        game = ChatGuessEnv(**kwargs).game
        options = {k: v for k, v in kwargs.items() if k not in GAME_KEYS}
        return GameSetup(self, game, env_id, options, label=game.name, max_attempts=game.max_attempts)

    def make_env(self, setup: GameSetup) -> ChatGuessEnv:
        return ChatGuessEnv(game=setup.game, **setup.env_options)

    def outcome(self, env: gym.Env[Any, Any], index: int, info: dict[str, Any],
                played: list[str]) -> tuple[str, int, bool]:
        base: ChatGuessEnv = env.unwrapped  # type: ignore[assignment]
        return base.game.answers[index], int(info["attempt"]), bool(info["won"])


ChatGuessEnv.family = ChatFamily()


def _invalid_policy(invalid: Any) -> dict[str, str]:
    """``invalid`` (one policy, or a policy per invalid kind, unnamed kinds ``"retry"``) as a policy per kind."""
    if isinstance(invalid, str):
        return dict.fromkeys(INVALID_KINDS, check_choice("invalid", invalid, INVALID_POLICIES))
    if not isinstance(invalid, Mapping):
        raise ValueError(f"invalid must be one of {', '.join(map(repr, INVALID_POLICIES))} or a dict of them by "
                         f"invalid kind ({', '.join(INVALID_KINDS)}); got {invalid!r}")
    unknown = sorted(set(invalid) - set(INVALID_KINDS), key=str)
    if unknown:
        raise ValueError(f"invalid names unknown kinds {unknown}; the kinds are {', '.join(INVALID_KINDS)}")
    return {kind: check_choice(f"invalid[{kind!r}]", invalid.get(kind, "retry"), INVALID_POLICIES)
            for kind in INVALID_KINDS}


def _format(message: dict[str, str]) -> str:
    return f"### {message['role']}\n{message['content']}"


__all__ = ["CHAT_OPTIONS", "DEFAULT_MAX_REPLY_CHARS", "INVALID_POLICIES", "REPEAT_POLICIES", "AnyText", "ChatGuessEnv",
           "ChatFamily"]
