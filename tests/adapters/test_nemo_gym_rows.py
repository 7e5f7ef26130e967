"""NeMo Gym's dataset rows, which need no NeMo Gym: what the model sees, what only the server reads,
the agent each row names, and one-line refusals of what cannot be written."""

from __future__ import annotations

import json

import pytest

from guessgym.adapters.nemo_gym import nemo_gym_rows


def test_rows_name_their_agent_and_keep_the_answer_from_the_model() -> None:
    rows = nemo_gym_rows("guessgym/NerdleChat-v0", games=4, seed=3, env_kwargs={"length": 6}, agent="my_agent")
    assert len({row["answer"] for row in rows}) == 4
    for row in rows:
        assert row["agent_ref"] == {"type": "responses_api_agents", "name": "my_agent"}
        assert row["seed"] == 3 and row["answer"] not in json.dumps(row["responses_create_params"])
    assert "agent_ref" not in nemo_gym_rows("guessgym/WordleChat-v0", games=1)[0]
    assert rows == nemo_gym_rows("guessgym/NerdleChat-v0", games=4, seed=3, env_kwargs={"length": 6},
                                 agent="my_agent")  # the seed draws the same games


@pytest.mark.parametrize("agent", ["", "  ", 7])
def test_an_agent_that_is_not_a_name_is_refused(agent: object) -> None:
    with pytest.raises(ValueError, match="agent must name a NeMo Gym agent") as refused:
        nemo_gym_rows(games=1, agent=agent)  # type: ignore[arg-type]
    assert "\n" not in str(refused.value)


# ---- issue 63 item 2: the games a resources server holds are bounded ------------------------------
def test_a_game_sharing_the_servers_game_takes_less_than_what_it_is_counted_as() -> None:
    """A game was 2.6 MiB when each built its own Game (600 cookie-less resets held 1.8 GB); sharing the
    server's, it takes what an OpenEnv session does, below SESSION_BYTES, by which the budget counts."""
    import tracemalloc

    from guessgym.adapters.nemo_gym import SESSION_BYTES
    from guessgym.adapters.options import chat_games

    games = chat_games("guessgym/WordleChat-v0", {}, "test")
    games.make_env().reset(seed=0)  # what is built once per server
    tracemalloc.start()
    try:
        held = []
        for i in range(20):
            env = games.make_env()
            env.reset(seed=i)
            held.append(env)
        taken = tracemalloc.get_traced_memory()[0] / len(held)
    finally:
        tracemalloc.stop()
    assert all(env.game is games.game for env in held)
    assert taken < SESSION_BYTES, taken


def test_idle_games_are_dropped_and_new_ones_refused_past_the_bounds() -> None:
    from guessgym.adapters.nemo_gym import SESSION_BYTES, GameSessions
    from guessgym.adapters.options import chat_games

    games = chat_games("guessgym/NerdleChat-v0", {"length": 5}, "test")
    now = [0.0]
    table = GameSessions(max_sessions=3, idle_timeout=10.0, memory_budget_mib=16, clock=lambda: now[0])

    def start(session: str) -> None:
        env = games.make_env()
        _, info = env.reset(seed=0)
        table.admit(session, env, info["messages"])

    for name in "abc":
        start(name)
        now[0] += 1.0
    with pytest.raises(OverflowError, match="this server holds 3 games .* the most it holds is 3 games or 16 MiB"):
        start("d")
    env = table.get("a")
    assert env is not None
    _, _, _, _, info = env.step("[1+2=3]")
    table.touch("a", info["messages"])  # a is active again: b is now the oldest
    now[0] = 12.5  # b (started at 1) and c (at 2) are idle past 10 s; a was played at 3
    start("d")
    assert set(table.games) == {"a", "d"} and table.get("b") is None
    now[0] = 100.0
    assert table.get("a") is None and len(table) == 0 and table.held == 0
    # memory: 16 MiB holds fewer games than 20 once each counts its conversation
    big = GameSessions(max_sessions=100, memory_budget_mib=16, clock=lambda: now[0])
    env = games.make_env()
    _, info = env.reset(seed=0)
    per_game = GameSessions.size(info["messages"])
    assert per_game > SESSION_BYTES
    admitted = 0
    with pytest.raises(OverflowError, match="16 MiB"):
        while True:
            big.admit(str(admitted), games.make_env(), info["messages"])
            admitted += 1
    assert admitted == (16 << 20) // per_game
    for bad, message in [({"max_sessions": 0}, "max_sessions must be"), ({"idle_timeout": 0}, "idle_timeout must"),
                         ({"memory_budget_mib": 1}, "memory_budget_mib must")]:
        with pytest.raises(ValueError, match=message):
            GameSessions(**bad)  # type: ignore[arg-type]


# ---- issue 72 item 10: the budget holds while games grow; a client's share of the games ------------------
def test_a_game_that_would_grow_past_the_budget_is_ended() -> None:
    """Games grew past the memory budget after admission (112.5 MiB against 16 MiB after 17 replies of 100,000
    characters: the budget was checked only at admission). Now a step that would pass it ends its game."""
    from guessgym.adapters.nemo_gym import GameSessions
    from guessgym.adapters.options import chat_games

    games = chat_games("guessgym/WordleChat-v0", {"max_attempts": 20}, "test")
    table = GameSessions(max_sessions=10, memory_budget_mib=16)
    env = games.make_env()
    _, info = env.reset(seed=0)
    table.admit("a", env, info["messages"])
    steps = 0
    with pytest.raises(OverflowError, match="would take this server's games past its 16 MiB; the game is ended"):
        while True:
            _, _, terminated, truncated, info = env.step("x" * 100_000)
            assert not (terminated or truncated)
            table.touch("a", info["messages"])
            steps += 1
            assert table.held <= table.budget
    assert 30 < steps < 41  # 16 MiB, counted as 4 bytes a character of 100,000-character replies
    assert table.get("a") is None and table.held == 0 and len(table) == 0


def test_one_client_holds_at_most_its_share_of_the_games() -> None:
    from guessgym.adapters.nemo_gym import GameSessions
    from guessgym.adapters.options import chat_games

    games = chat_games("guessgym/NerdleChat-v0", {"length": 5}, "test")
    table = GameSessions(max_sessions=6, max_sessions_per_client=2)
    env = games.make_env()
    _, info = env.reset(seed=0)
    table.admit("a1", games.make_env(), info["messages"], "10.0.0.1")
    table.admit("a2", games.make_env(), info["messages"], "10.0.0.1")
    with pytest.raises(OverflowError, match="this client holds 2 games, the most one client address holds on this "
                                            "server is 2"):
        table.admit("a3", games.make_env(), info["messages"], "10.0.0.1")
    table.admit("a1", games.make_env(), info["messages"], "10.0.0.1")  # a session's new game replaces its old
    table.admit("b1", games.make_env(), info["messages"], "10.0.0.2")  # another client is served
    table.drop("a2")
    table.admit("a3", games.make_env(), info["messages"], "10.0.0.1")  # a finished game gives its place back
    assert sorted(table.games) == ["a1", "a3", "b1"]
    assert GameSessions(max_sessions=6).max_sessions_per_client == 6  # every game unless told (one trainer)
    for bad in (0, 7, 2.0):
        with pytest.raises(ValueError, match="max_sessions_per_client must be a whole number from 1 to max_sessions"):
            GameSessions(max_sessions=6, max_sessions_per_client=bad)  # type: ignore[arg-type]
