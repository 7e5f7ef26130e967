"""The one resumable log: header first, every line checked, a torn last line dropped, one writer."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from guessgym.infra.resumable_log import LogError, ResumableLog

HEADER = {"format": 1, "game": "micro"}


def _rows(value):
    if not isinstance(value, dict) or type(value.get("n")) is not int:
        raise ValueError("expected {'n': int}")
    return value["n"]


def test_rows_are_appended_synced_and_read_back_with_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    with ResumableLog(path, HEADER, _rows) as log:
        assert log.rows == []
        log.append({"n": 1})
        log.append({"n": 2})
    assert [json.loads(line) for line in path.read_text().splitlines()] == [HEADER, {"n": 1}, {"n": 2}]
    with ResumableLog(path, HEADER, _rows) as log:
        assert log.rows == [(2, 1), (3, 2)]


def test_a_torn_last_line_is_dropped_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(HEADER) + '\n{"n": 1}\n{"n": 2')
    with ResumableLog(path, HEADER, _rows) as log:
        assert log.rows == [(2, 1)]
        log.append({"n": 3})
    assert path.read_text().splitlines()[1:] == ['{"n": 1}', '{"n": 3}']
    path.write_text(json.dumps(HEADER)[:10])  # killed while writing its header
    with ResumableLog(path, HEADER, _rows) as log:
        assert log.rows == []
    assert path.read_text() == json.dumps(HEADER) + "\n"


@pytest.mark.parametrize("content", [b'{"answer": 1}', b'{"format": 2, "game": "micro"}\n{"n": 1}\n{"n"',
                                     b"not json\n", b"[1]\n", b'{"format": 1, "game": "micro"}\n{"n": "x"}\n{"n'])
def test_nothing_is_changed_in_a_file_that_is_not_ours(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "other.jsonl"
    path.write_bytes(content)
    with pytest.raises(LogError, match=r"other\.jsonl"):
        ResumableLog(path, HEADER, _rows)
    assert path.read_bytes() == content


def test_one_writer_and_readers_that_change_nothing(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    writer = ResumableLog(path, HEADER, _rows)
    writer.append({"n": 1})
    with pytest.raises(LogError, match="in use by another run"):
        ResumableLog(path, HEADER, _rows)
    with open(path, "a") as f:
        f.write('{"n": 2')  # a line being written
    reader = ResumableLog(path, HEADER, _rows, read_only=True)
    assert reader.rows == [(2, 1)] and path.read_text().endswith('{"n": 2')
    writer.close()
    with ResumableLog(path, HEADER, _rows) as again:
        assert again.rows == [(2, 1)]


def test_directories_and_special_files_are_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="is a directory"):
        ResumableLog(tmp_path, HEADER, _rows)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(LogError, match="not a regular file"):
        ResumableLog(fifo, HEADER, _rows)  # opening a FIFO to append would wait for a reader
    with pytest.raises(LogError, match="no such log"):
        ResumableLog(tmp_path / "missing.jsonl", HEADER, _rows, read_only=True)


def test_an_outcome_log_keeps_each_key_once_settled_and_reads_it_back(tmp_path: Path) -> None:
    from guessgym.infra.resumable_log import OutcomeLog

    def parse(row):
        return row["opener"], row["win"]

    def to_row(opener, win):
        return {"opener": opener, "win": win}

    path = tmp_path / "proof.jsonl"
    log = OutcomeLog(path, HEADER, parse, to_row)
    log.record("salet", True)
    log.record("aeros", False)
    log.close()
    again = OutcomeLog(path, HEADER, parse, to_row)
    assert again.values == {"salet": True, "aeros": False} and again.lines == {"salet": 2, "aeros": 3}
    assert again.path == path
    again.close()
    memory = OutcomeLog(None, HEADER, parse, to_row)  # no file: kept in memory only
    memory.record("crane", True)
    assert memory.values == {"crane": True} and memory.path is None and not list(tmp_path.glob("*.tmp"))
    memory.close()


@pytest.mark.parametrize("change", ["replaced", "removed"])
def test_a_file_replaced_or_removed_under_a_live_run_stops_it_and_is_left_alone(tmp_path: Path, change: str) -> None:
    path = tmp_path / "log.jsonl"
    log = ResumableLog(path, HEADER, _rows)
    log.append({"n": 1})
    moved = tmp_path / "moved.jsonl"
    os.replace(path, moved)  # what `git stash` does to a tracked file: the run's file goes away
    if change == "replaced":
        path.write_text(json.dumps(HEADER) + '\n{"n": 0}\n')
    before = path.read_bytes() if path.exists() else None
    with pytest.raises(LogError, match=rf"log\.jsonl was .*{'replaced' if change == 'replaced' else 'removed'}"):
        log.append({"n": 2})
    assert (path.read_bytes() if path.exists() else None) == before
    assert moved.read_text().splitlines()[1:] == ['{"n": 1}']  # nothing went on into the file no path names
    log.close()
    os.replace(moved, path)
    with ResumableLog(path, HEADER, _rows) as again:
        assert again.rows == [(2, 1)]
