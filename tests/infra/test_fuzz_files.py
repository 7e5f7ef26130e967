"""Every file format guessgym reads, under a few thousand random mutations (issue 22).

Each reader must read a damaged file or refuse it with its documented error and a one-line
message, and must leave the file as it was (a resumable log may drop a torn last line). Model
zips are fuzzed in ``test_model_files.py``. The formats: decision trees (text and JSON), LLM
transcripts, proof and opener-search checkpoints, worst-case checkpoints, training checkpoint
states, training configs (TOML and JSON), word lists and saved evaluation results.
"""

from __future__ import annotations

import gzip
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from fuzzing import fuzz_file, mutate_bytes, mutate_json, mutate_jsonl, mutate_lines

from guessgym.agents.decision_tree import DecisionTree
from guessgym.agents.registry import make_agent
from guessgym.agents.text import ModelReply, TextAgent
from guessgym.baselines.opener_search import Checkpoint, _header, search_openers
from guessgym.baselines.worst_case import solve_worst_case
from guessgym.envs.chat import ChatGuessEnv
from guessgym.envs.game import nerdle, wordle
from guessgym.evaluation.chat import evaluate_chat
from guessgym.evaluation.results import EvaluationResult
from guessgym.evaluation.transcripts import TranscriptLog, read_transcripts, replay_check
from guessgym.evaluation.tree_checks import record_tree
from guessgym.infra.resumable_log import LogError

ROUNDS = 2000
MICRO = nerdle(5)


def _sometimes_gzip(mutate):
    def run(blob: bytes, rng: random.Random) -> bytes:
        return gzip.compress(mutate(blob, rng), mtime=0) if rng.random() < 0.2 else mutate(blob, rng)
    return run


@pytest.mark.parametrize("suffix", [".txt", ".json"])
def test_tree_files(tmp_path: Path, suffix: str) -> None:
    tree = record_tree(make_agent("least-worst"), MICRO)
    valid_path = tree.save(tmp_path / f"valid{suffix}", MICRO)
    mutations = [mutate_bytes, mutate_lines] + ([mutate_json] if suffix == ".json" else [])
    counts = fuzz_file(tmp_path / f"fuzz{suffix}", valid_path.read_bytes(), lambda p: DecisionTree.load(p, MICRO),
                       (ValueError,), [_sometimes_gzip(m) for m in mutations], rounds=ROUNDS)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts


class _Solver(TextAgent):
    """Plays least-worst's guesses in conversation (a local, deterministic text agent)."""

    def __init__(self) -> None:
        from guessgym.agents.llm.scripted_server import ScriptedSolver

        self.solver = ScriptedSolver(ChatGuessEnv(**MICRO_CHAT).game, "least-worst")

    def reply(self, messages: list[dict[str, str]]) -> ModelReply:
        text = "\n".join(m["content"] for m in messages if m["role"] == "user")
        return ModelReply(f"My guess: [{self.solver.next_guess(text)}]")


MICRO_CHAT = {"kind": "nerdle", "length": 5}


def test_transcript_files(tmp_path: Path) -> None:
    path = tmp_path / "valid.jsonl"
    evaluate_chat(_Solver(), "guessgym/NerdleChat-v0", env_kwargs={"length": 5}, sample=3, transcripts=path)
    header = json.loads(path.read_text().splitlines()[0])
    header = {k: v for k, v in header.items() if k not in ("kind", "format")}
    kwargs = header["env_kwargs"]

    def read(p: Path) -> None:
        TranscriptLog(p, header, replay_check(ChatGuessEnv(**kwargs), header["seed"])).close()

    counts = fuzz_file(tmp_path / "fuzz.jsonl", path.read_bytes(), read, (LogError,),
                       [mutate_bytes, mutate_lines, mutate_jsonl], rounds=ROUNDS, may_drop_torn_line=True)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts


def test_transcript_files_read_for_analysis(tmp_path: Path) -> None:
    """read_transcripts learns the game from the file's own header, so the header is fuzzed too."""
    path = tmp_path / "valid.jsonl"
    evaluate_chat(_Solver(), "guessgym/NerdleChat-v0", env_kwargs={"length": 5}, sample=3, transcripts=path)
    rounds = ROUNDS // 4
    counts = fuzz_file(tmp_path / "fuzz.jsonl", path.read_bytes(), read_transcripts, (ValueError,),
                       [mutate_bytes, mutate_lines, mutate_jsonl], rounds=rounds, may_drop_torn_line=True)
    assert counts["refused"] > rounds // 4 and counts["read"] > 0, counts


def test_opener_search_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "valid.jsonl"
    openers = list(MICRO.guesses[:6])
    search_openers(MICRO, openers, 400, checkpoint=path)
    header = _header(MICRO, MICRO.max_attempts, 0)
    counts = fuzz_file(tmp_path / "fuzz.jsonl", path.read_bytes(), lambda p: Checkpoint(p, header, MICRO).close(),
                       (LogError,), [mutate_bytes, mutate_lines, mutate_jsonl], rounds=ROUNDS,
                       may_drop_torn_line=True)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts


def test_worst_case_checkpoints(tmp_path: Path) -> None:
    from guessgym.baselines.worst_case import _checkpoint

    game = nerdle(6)
    path = tmp_path / "valid.jsonl"
    solve_worst_case(game, "absurdle", checkpoint=path)
    header = json.loads(path.read_text().splitlines()[0])
    counts = fuzz_file(tmp_path / "fuzz.jsonl", path.read_bytes(), lambda p: _checkpoint(p, header, game).close(),
                       (LogError,), [mutate_bytes, mutate_lines, mutate_jsonl], rounds=ROUNDS,
                       may_drop_torn_line=True)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts


def test_training_checkpoint_states(tmp_path: Path) -> None:
    th = pytest.importorskip("torch")
    from guessgym.training.checkpoints import CheckpointError, encode_state, load_checkpoint_state, rng_state

    state = {"format": 2, "rng": rng_state(), "env": {"venv": {"state": np.arange(12).reshape(3, 4)}},
             "model_extra": {"_last_obs": {"board": np.zeros((2, 5), dtype=np.int64)}}, "wall_time_s": 1.5,
             "config": {"seed": 3}, "t": th.ones(3)}
    arrays: dict[str, np.ndarray] = {}
    document = json.dumps(encode_state(state, arrays)).encode()
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **arrays)
    folder = tmp_path / "step"
    folder.mkdir()
    (folder / "state.npz").write_bytes(buffer.getvalue())
    counts = fuzz_file(folder / "state.json", document, lambda p: load_checkpoint_state(p.parent),
                       (CheckpointError,), [mutate_bytes, mutate_json], rounds=ROUNDS)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts
    (folder / "state.json").write_bytes(document)
    counts = fuzz_file(folder / "state.npz", buffer.getvalue(), lambda p: load_checkpoint_state(p.parent),
                       (CheckpointError,), [mutate_bytes], rounds=500)
    assert counts["refused"] > 100, counts


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_training_configs(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("torch")
    from guessgym.training.config import load_config

    source = Path(__file__).resolve().parents[2] / "configs" / "mini-nerdle.toml"
    config = load_config(source)
    valid = source.read_bytes() if suffix == ".toml" else json.dumps(config.to_dict()).encode()
    mutations = [mutate_bytes, mutate_lines] + ([mutate_json] if suffix == ".json" else [])
    counts = fuzz_file(tmp_path / f"fuzz{suffix}", valid, load_config, (ValueError,), mutations, rounds=ROUNDS)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts


def test_word_lists(tmp_path: Path) -> None:
    valid = "\n".join(wordle().answers[:40]).encode() + b"\n"
    counts = fuzz_file(tmp_path / "words.txt", valid, lambda p: wordle(answers=p), (ValueError,),
                       [mutate_bytes, mutate_lines], rounds=ROUNDS)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts


def test_saved_results(tmp_path: Path) -> None:
    from guessgym.evaluation.evaluate import evaluate

    path = tmp_path / "valid.json"
    evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1", sample=5).to_json(path)
    counts = fuzz_file(tmp_path / "fuzz.json", path.read_bytes(), EvaluationResult.from_json, (ValueError,),
                       [mutate_bytes, mutate_json], rounds=ROUNDS)
    assert counts["refused"] > ROUNDS // 4 and counts["read"] > 0, counts


@pytest.mark.parametrize("suffix", [".json", ".json.gz"])
def test_move_analysis_files(tmp_path: Path, suffix: str) -> None:
    """``guessgym report`` reads the move analyses beside the results (``load_analysis``)."""
    from guessgym.evaluation.analysis import analyze, load_analysis
    from guessgym.evaluation.evaluate import evaluate

    result = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1", sample=6, record_guesses=True)
    path = tmp_path / f"valid.analysis{suffix}"
    analyze(result).to_json(path)
    assert load_analysis(path).games
    if suffix == ".json":
        blob, mutations = path.read_bytes(), [mutate_bytes, mutate_lines, mutate_json]
    else:
        blob, mutations = path.read_bytes(), [mutate_bytes]

    counts = fuzz_file(tmp_path / f"fuzz.analysis{suffix}", blob, load_analysis, (ValueError,), mutations,
                       rounds=ROUNDS // 4)
    assert counts["refused"] > ROUNDS // 40, counts


# ---- issue 40: results with their analysis files, transcripts with huge and hostile replies, the viewer -------
HOSTILE_TEXTS = ["<script>window.x=1</script>", "<!--<script>", "{{data}}", "</script>", "\u2028", "&amp;<b>",
                 "x" * 300_000, "<guess>" * 20_000, "[" * 50_000 + "crane"]


def _viewer_checked(page: str) -> None:
    """The viewer's page holds its two scripts and nothing else that runs."""
    import re

    assert len(re.findall(r"<script\b", page, re.I)) == 2
    data = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    assert data is not None and "<" not in data.group(1)


def _report(result_path: Path, out: Path) -> None:
    """What ``guessgym report`` does with a result and the analysis beside it."""
    from guessgym.evaluation.analysis import load_analysis
    from guessgym.evaluation.saved import check_saved_result
    from guessgym.evaluation.viewer import write_viewer

    result = EvaluationResult.from_json(result_path)
    check_saved_result(result, str(result_path))
    analysis = load_analysis(result_path.with_name("fuzz.analysis.json"))
    _viewer_checked(write_viewer([result], out, analyses={0: analysis}).read_text())


@pytest.mark.parametrize("fuzzed", ["result", "analysis"])
def test_results_with_their_analysis_through_the_viewer(tmp_path: Path, fuzzed: str) -> None:
    from guessgym.evaluation.analysis import analyze
    from guessgym.evaluation.evaluate import evaluate

    result = evaluate(make_agent("least-worst"), "guessgym/MicroNerdle-v1", sample=6, record_guesses=True)
    result_blob = result.to_json().encode()
    analysis_path = tmp_path / "fuzz.analysis.json"
    analyze(result).to_json(analysis_path)
    analysis_blob = analysis_path.read_bytes()
    result_path = tmp_path / "fuzz.json"
    result_path.write_bytes(result_blob)
    rounds = ROUNDS // 8
    if fuzzed == "result":
        counts = fuzz_file(result_path, result_blob, lambda p: _report(p, tmp_path / "r.html"), (ValueError,),
                           [mutate_bytes, mutate_json], rounds=rounds)
    else:
        counts = fuzz_file(analysis_path, analysis_blob, lambda p: _report(result_path, tmp_path / "r.html"),
                           (ValueError,), [mutate_bytes, mutate_lines, mutate_json], rounds=rounds)
    assert counts["refused"] > rounds // 10 and counts["read"] > 0, counts


def _hostile_replies(blob: bytes, rng: random.Random) -> bytes:
    """A transcripts file with some replies replaced by hostile or huge text (a game then no longer
    replays, unless the reply was invalid anyway) or the header's options changed."""
    lines = blob.decode().split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        if not lines[i]:
            continue
        row = json.loads(lines[i])
        if row.get("kind") == "header":
            row["env_kwargs"][rng.choice(["reply_format", "answers", "prompts", "max_reply_chars"])] = rng.choice(
                ["^(a|aa)+$", "/etc/passwd", {"system": "{rules:>999999999}"}, None, 10**9])
        else:
            replies = [m for m in row["transcript"]["messages"] if m["role"] == "assistant"]
            rng.choice(replies)["content"] = rng.choice(HOSTILE_TEXTS)
        lines[i] = json.dumps(row)
    return "\n".join(lines).encode()


def test_transcripts_with_huge_and_hostile_replies_through_the_viewer(tmp_path: Path) -> None:
    from guessgym.evaluation.viewer import write_viewer

    path = tmp_path / "valid.jsonl"
    evaluate_chat(_Solver(), "guessgym/NerdleChat-v0", env_kwargs={"length": 5}, sample=3, transcripts=path)

    def read(p: Path) -> None:
        read = read_transcripts(p)
        _viewer_checked(write_viewer([read.result], tmp_path / "t.html", turns={0: read.turns}).read_text())

    rounds = ROUNDS // 20
    counts = fuzz_file(tmp_path / "fuzz.jsonl", path.read_bytes(), read, (ValueError,),
                       [_hostile_replies, mutate_jsonl], rounds=rounds, may_drop_torn_line=True)
    assert counts["refused"] > rounds // 4 and counts["read"] > 0, counts


def _npz_bomb(path: Path, member_bytes: int, claimed: int | None = None) -> None:
    """An .npz whose one array deflates to ``member_bytes`` of zeros (with ``claimed``: a header that
    claims that many elements over a member that holds far fewer)."""
    import zipfile

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<i8", "fortran_order": False,
                                                  "shape": (claimed or (member_bytes - 128) // 8,)})
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("exact_keys.npy", "w", force_zip64=True) as f:
            f.write(header.getvalue())
            chunk = bytes(min(member_bytes, 1 << 20))
            for _ in range(member_bytes // len(chunk)):
                f.write(chunk)


def test_an_npz_is_decompressed_only_up_to_its_bound(tmp_path: Path) -> None:
    """Issue 63 item 7: a 4.2 MB solved-sets memo whose arrays deflate to 2 GiB each took 8.6 GB. Every .npz
    the package reads goes through the one bounded reader: the sizes are read before anything is
    decompressed, and an array's header must fit its member."""
    import tracemalloc

    from guessgym.infra.inputs import InputFileError, read_npz

    bomb = tmp_path / "bomb.npz"
    _npz_bomb(bomb, 64 << 20)
    assert bomb.stat().st_size < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(InputFileError, match=r"bomb\.npz: its arrays take 67,108,\d+ bytes once decompressed, "
                                                 r"over the limit of 1,048,576"):
            read_npz(bomb, "cache", max_bytes=1 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, peak  # the file itself, never its arrays
    _npz_bomb(bomb, 4096, claimed=10**12)  # numpy's own reader allocates what the header claims, first
    with pytest.raises(InputFileError, match="declares 8,000,000,000,000 bytes of data in a member of 4,2"):
        read_npz(bomb, "cache", max_bytes=1 << 20)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, a=np.arange(10), b=np.ones((2, 3), order="F"), m=np.array("text"))
    (tmp_path / "ok.npz").write_bytes(buffer.getvalue())
    read = read_npz(tmp_path / "ok.npz", "cache")
    assert read["a"].tolist() == list(range(10)) and read["b"].shape == (2, 3) and str(read["m"]) == "text"
    buffer = io.BytesIO()
    np.savez(buffer, o=np.array([{"x": 1}], dtype=object), allow_pickle=True)
    (tmp_path / "pickle.npz").write_bytes(buffer.getvalue())
    with pytest.raises(InputFileError, match="holds Python objects, which are never read"):
        read_npz(tmp_path / "pickle.npz", "cache")
    counts = fuzz_file(tmp_path / "fuzz.npz", (tmp_path / "ok.npz").read_bytes(), lambda p: read_npz(p, "cache"),
                       (InputFileError,), [mutate_bytes], rounds=500)
    assert counts["refused"] > 100, counts


def test_an_npz_is_held_once_and_its_members_are_bounded(tmp_path: Path) -> None:
    """Issue 72, item 23: the reader held twice its bound (the file's bytes and a copy of each array); a 45 MB
    file of 200,000 members took over 2 minutes; a 1 MB memo whose arrays hold 992 MiB was read (the memo's
    bound, 1 GiB, for files of 400 KB). Now the arrays are filled in place from the file, at most the bound
    once; the members are bounded; a kind of file guessgym writes uncompressed is read up to about its size."""
    import time
    import tracemalloc
    import zipfile

    from guessgym.infra.inputs import InputFileError, read_npz

    data = np.arange(4 << 20, dtype=np.int64)  # 32 MiB of arrays, written uncompressed as guessgym's are
    np.savez(tmp_path / "plain.npz", a=data)
    tracemalloc.start()
    try:
        read = read_npz(tmp_path / "plain.npz", "checkpoint", max_bytes=64 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(read["a"], data)
    assert peak < data.nbytes + (4 << 20), peak  # the array once, and a chunk
    many = tmp_path / "many.npz"
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(20_000):
            archive.writestr(f"m{i}.npy", b"")
    started = time.monotonic()
    with pytest.raises(InputFileError, match="it has 20,000 members, over the 10,000 this kind of file holds"):
        read_npz(many, "cache")
    assert time.monotonic() - started < 10.0
    bomb = tmp_path / "memo.npz"
    _npz_bomb(bomb, 32 << 20)
    with pytest.raises(InputFileError, match="over the limit of"):
        read_npz(bomb, "memo", max_bytes=1 << 30, max_ratio=2.0)  # the memo's bound near its real size
    assert read_npz(tmp_path / "plain.npz", "memo", max_ratio=2.0)["a"].shape == data.shape  # a real one: read


def test_a_memo_bomb_is_ignored_as_a_damaged_cache(tmp_path: Path) -> None:
    from guessgym.baselines import memo_store
    from guessgym.baselines.optimal import solve

    game = nerdle(5)
    memo_store.MAX_MEMO_BYTES = 1 << 20  # the bound, smaller here so that the bomb is small
    try:
        solve(game, cache_dir=tmp_path)
        memos = list(tmp_path.glob("memo-*.npz"))
        for memo in memos:
            _npz_bomb(memo, 16 << 20)
        with pytest.warns(RuntimeWarning, match="ignoring the solved-subproblem cache .* over the limit"):
            assert solve(game, cache_dir=tmp_path).total == 374
    finally:
        memo_store.MAX_MEMO_BYTES = 1 << 30
