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
