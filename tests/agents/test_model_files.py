"""Model files are opened without running code from them (issue 22, item 1).

A stable-baselines3 zip pickles its policy class, keyword arguments and spaces; SB3's ``load``
unpickles them. These tests craft zips whose pickles write a marker file when unpickled, show that
SB3's own loader runs them, and check that guessgym's never does: it either rebuilds everything
from JSON and reads the same policy, or refuses the file with one message.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import random
import shutil
import zipfile
from pathlib import Path
from typing import Any

import cloudpickle
import numpy as np
import pytest
import torch as th
from fuzzing import mutate_bytes, mutate_json

from guessgym.agents.learned import load_agent, load_model
from guessgym.agents.model_files import MANIFEST, ModelFileError, read_model, save_model
from guessgym.agents.pretrained import PRETRAINED_DIR, available, load_pretrained
from guessgym.envs.game import game_from_dict, game_to_dict, make_game, nerdle
from guessgym.training.config import TrainConfig
from guessgym.training.train import build_env, build_model, resolve_game


class _Payload:
    """Unpickling this writes ``marker``: the stand-in for an attacker's code."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.write_text, (Path(self.marker), "ran"))


def _tiny_model(algorithm: str = "maskable_ppo") -> Any:
    config = TrainConfig(run_name="m", env_id="guessgym/MicroNerdle-v1", algorithm=algorithm, num_envs=2,
                         n_steps=8, batch_size=16, net_arch={"pi": [8], "vf": [8]}, seed=3)
    game, env_kwargs = resolve_game(config)
    return build_model(config, build_env(config, game, env_kwargs), game)


def _rewrite(source: Path, target: Path, change: Any) -> None:
    """Copy a zip, passing its ``data`` JSON through ``change`` (which edits it in place)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            blob = zin.read(info.filename)
            if info.filename == "data":
                data = json.loads(blob)
                change(data)
                blob = json.dumps(data).encode()
            zout.writestr(info, blob)


def _pickled(obj: Any) -> dict[str, str]:
    return {":type:": "<class 'object'>", ":serialized:": base64.b64encode(cloudpickle.dumps(obj)).decode()}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "model.zip"
    save_model(_tiny_model(), path)
    return path


def _same_policy(a: Any, b: Any) -> bool:
    sa, sb = a.policy.state_dict(), b.policy.state_dict()
    return set(sa) == set(sb) and all(th.equal(sa[k], sb[k]) for k in sa)


@pytest.mark.parametrize("key", ["policy_kwargs", "policy_class", "observation_space", "lr_schedule", "clip_range"])
def test_a_crafted_pickle_never_runs(saved: Path, tmp_path: Path, key: str) -> None:
    from sb3_contrib import MaskablePPO

    marker = tmp_path / "ran"
    crafted = tmp_path / "crafted.zip"
    _rewrite(saved, crafted, lambda d: d.__setitem__(key, _pickled(_Payload(str(marker)))))
    model = load_model(crafted)  # rebuilt from JSON: the crafted entry is never unpickled
    assert not marker.exists()
    assert _same_policy(model, read_model(saved))
    try:
        MaskablePPO.load(crafted)
    except Exception:
        pass
    assert marker.exists(), "the fixture must be a real exploit against an unguarded loader"


def test_an_unknown_pickled_entry_is_refused_by_name(saved: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    crafted = tmp_path / "crafted.zip"
    _rewrite(saved, crafted, lambda d: d.__setitem__("env", _pickled(_Payload(str(marker)))))
    with pytest.raises(ModelFileError, match=r"crafted\.zip: refused: entry 'env' is a pickle"):
        load_agent(crafted)
    assert not marker.exists()


@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(policy="Evil"), "not one guessgym knows"),
    (lambda m: m["policy_kwargs"].update(activation_fn="os.system"), "activation_fn"),
    (lambda m: m["policy_kwargs"].update(net_arch={"pi": [-3], "vf": [8]}), "layer sizes"),
    # issue 63 item 15: widths within the bound that would allocate 17 GB on load
    (lambda m: m["policy_kwargs"].update(net_arch={"pi": [65536, 65536], "vf": [8]}), "over the 33,554,432"),
    (lambda m: m["policy_kwargs"].update(optimizer_class="<class 'os.system'>"), "optimizer"),
    (lambda m: m["game"].update(answers=["1+2=3", "zzzzz"]), "contains 'z'"),
    (lambda m: m.update(fingerprint="0" * 24), "fingerprint"),
    (lambda m: m["schedules"].update(clip_range={"value_schedule": "LinearSchedule(1, 0)"}), "constant"),
    (lambda m: m.update(format=99), "format 99"),
    (lambda m: m["policy_kwargs"].update(log_scale="2309"), "log_scale must be None"),
])
def test_a_manifest_naming_unknown_settings_is_refused(saved: Path, tmp_path: Path, change: Any, message: str) -> None:
    crafted = tmp_path / "crafted.zip"
    with zipfile.ZipFile(saved) as zin, zipfile.ZipFile(crafted, "w") as zout:
        for info in zin.infolist():
            blob = zin.read(info.filename)
            if info.filename == MANIFEST:
                manifest = json.loads(blob)
                change(manifest)
                blob = json.dumps(manifest).encode()
            zout.writestr(info, blob)
    with pytest.raises(ModelFileError, match=message) as caught:
        read_model(crafted)
    assert str(crafted) in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("algorithm", ["maskable_ppo", "ppo", "a2c"])
def test_save_and_read_give_the_same_model(tmp_path: Path, algorithm: str) -> None:
    model = _tiny_model(algorithm)
    save_model(model, tmp_path / "m.zip")
    back = read_model(tmp_path / "m.zip")
    assert type(back) is type(model) and _same_policy(model, back)
    assert type(back.policy.optimizer) is type(model.policy.optimizer)
    assert back.policy.optimizer.defaults == model.policy.optimizer.defaults
    assert back.lr_schedule(1.0) == model.lr_schedule(1.0)
    if algorithm != "a2c":
        assert back.clip_range(0.5) == model.clip_range(0.5)


def test_the_same_model_saves_to_the_same_bytes(tmp_path: Path) -> None:
    """A zip records when each entry was written; a saved model must not (a model shipped twice
    kept its parameters but changed its SHA-256)."""
    import time

    model = _tiny_model("maskable_ppo")
    first = io.BytesIO()
    save_model(model, first)
    time.sleep(2.1)  # past the zip format's two-second clock
    save_model(model, tmp_path / "again.zip")
    assert first.getvalue() == (tmp_path / "again.zip").read_bytes()
    with zipfile.ZipFile(first) as archive:  # nothing that differs between processes (ids, addresses)
        assert b" at 0x" not in archive.read("data") and json.loads(archive.read("data"))
    assert _same_policy(model, read_model(tmp_path / "again.zip"))


@pytest.mark.parametrize("name", available())
def test_the_shipped_models_read_bit_for_bit_as_sb3_reads_them(name: str) -> None:
    """The shipped zips are guessgym 0.3's (no manifest): they are read with their card's game,
    and give exactly the policy that SB3's own (pickle) loader gives for these trusted files."""
    from guessgym.agents.learned import algorithm_class

    agent = load_pretrained(name)
    card = json.loads((PRETRAINED_DIR / f"{name}.json").read_text())
    reference = algorithm_class(card["algorithm"]).load(PRETRAINED_DIR / f"{name}.zip", device="cpu")
    assert _same_policy(agent.model, reference)
    assert agent.model.num_timesteps == reference.num_timesteps
    game = agent.trained_game
    obs = {k: th.as_tensor(np.zeros((1, *reference.observation_space[k].shape), dtype=np.int64))
           for k in reference.observation_space.spaces}
    with th.no_grad():
        assert th.equal(agent.policy.action_logits(obs), reference.policy.action_logits(obs))
    assert len(game.guesses) == reference.action_space.n


def test_a_legacy_zip_needs_its_run_folder(saved: Path, tmp_path: Path) -> None:
    model = read_model(saved)
    run = tmp_path / "run"
    (run / "checkpoints" / "step-000000000016").mkdir(parents=True)
    legacy = run / "checkpoints" / "step-000000000016" / "model.zip"
    model.save(legacy)  # SB3's own save: no manifest, as guessgym 0.3 wrote it
    with pytest.raises(ModelFileError, match="no game was given"):
        read_model(legacy)
    with pytest.raises(ModelFileError, match="no game was given"):
        load_model(legacy)  # no config.json yet
    (run / "config.json").write_text(json.dumps({"env_id": "guessgym/MicroNerdle-v1", "env_kwargs": {}}))
    assert _same_policy(load_model(legacy), model)
    (run / "config.json").write_text(json.dumps({"env_id": "guessgym/MiniNerdle-v1", "env_kwargs": {}}))
    with pytest.raises(ModelFileError, match="trained on"):
        load_model(legacy)
    (run / "config.json").write_text("[1, 2")
    with pytest.raises(ModelFileError, match="config.json does not describe a game"):
        load_model(legacy)


def test_a_game_travels_as_json() -> None:
    for game in (make_game("guessgym/Wordle-v1", hard_mode=True), nerdle(6, commutative=True)):
        back = game_from_dict(json.loads(json.dumps(game_to_dict(game))))
        assert back.fingerprint == game.fingerprint and repr(back) == repr(game)
        assert back.guess_vocabulary == game.guess_vocabulary
    with pytest.raises(ValueError, match="missing"):
        game_from_dict({"kind": "wordle"})
    with pytest.raises(ValueError, match="not in the guess list"):
        game_from_dict({**game_to_dict(nerdle(5)), "guesses": ["1+2=3"]})


def test_fuzzed_model_zips_give_one_line_errors_and_stay_unchanged(saved: Path, tmp_path: Path) -> None:
    """Random byte damage to the zip, and random value changes inside its JSON entries: every
    outcome is a model or a one-line ModelFileError, and the file is never changed."""
    rng = random.Random(22)
    original = saved.read_bytes()
    with zipfile.ZipFile(saved) as archive:
        entries = {i.filename: archive.read(i.filename) for i in archive.infolist()}
    path = tmp_path / "fuzz.zip"
    outcomes = {"read": 0, "refused": 0}
    for i in range(3000):
        if i % 3 == 0:
            blob = mutate_bytes(original, rng)
        else:
            name = rng.choice(["data", MANIFEST])
            changed = dict(entries, **{name: mutate_json(entries[name], rng)})
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                for key, value in changed.items():
                    archive.writestr(key, value)
            blob = buffer.getvalue()
        path.write_bytes(blob)
        digest = hashlib.sha256(blob).hexdigest()
        try:
            read_model(path)
            outcomes["read"] += 1
        except ModelFileError as exc:
            assert "\n" not in str(exc) and str(path) in str(exc), str(exc)
            outcomes["refused"] += 1
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert outcomes["refused"] > 500 and outcomes["read"] > 0, outcomes


def test_a_directory_or_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no trained model found"):
        load_model(tmp_path / "nothing")
    (tmp_path / "notzip.zip").write_text("hello")
    with pytest.raises(ModelFileError, match="not a readable model zip"):
        load_model(tmp_path / "notzip.zip")
    shutil.copy(PRETRAINED_DIR / "mini-nerdle.json", tmp_path / "card.json")
    with pytest.raises(ModelFileError):
        read_model(tmp_path / "card.json")
