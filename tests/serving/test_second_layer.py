"""The server's second layer (issue 72, items 1-3, 9 and 21): requests pipelined behind another,
clients that stop reading, addresses that share the connections.

Each case is the audit's failure, rebuilt against a server this test starts on 127.0.0.1; every
loop is bounded in count and time.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import threading
import time
from typing import Any

import pytest

pytest.importorskip("openenv", reason="the openenv extra (in the test extra)")

import httpx
from test_hostile_clients import (
    WORDLE,
    ask,
    closed_by_server,
    connect_from,
    from_another_address,
    honest_answers,
    raw,
)

from guessgym.serving.app import make_app, serving
from guessgym.serving.transport import default_connections_per_client


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def read_response_head(s: socket.socket, within: float = 10.0) -> bytes:
    """Bytes up to the end of the first response's headers."""
    s.settimeout(within)
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = s.recv(4096)
        assert chunk, got
        got += chunk
    return got


# ---- item 1: a request pipelined behind another has the same deadline as any -------------------------
@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_request_pipelined_behind_another_is_bounded_in_time(framing: str) -> None:
    """--request-timeout 5: a POST /reset sent in the same packet as a GET /health, its body then trickled a
    byte every 2 s, was open after 60 s (the deadline was armed only once a connection's cycle completed)."""
    app = make_app(WORDLE, header_timeout=1.0, request_timeout=2.0)
    head = (b"POST /reset HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            if framing == "content-length" else
            b"POST /reset HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n")
    with serving(app) as url:
        s = connect_from("127.0.0.2", port_of(url))
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" + head)
        assert read_response_head(s).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        closed = False
        while time.monotonic() - started < 10.0 and not closed:
            try:
                s.sendall(b" " if framing == "content-length" else b"1\r\n \r\n")  # a byte, never the end
            except OSError:
                closed = True
                break
            closed = closed_by_server(s, 0.5)
        assert closed, "the pipelined request's connection was still open 10 s later"
        assert time.monotonic() - started < 5.0  # its request_timeout (2 s) from when it began to be read
        s.close()
        assert httpx.get(url + "/health", timeout=10).status_code == 200


def test_a_pipelined_request_whose_headers_never_end_is_bounded() -> None:
    app = make_app(WORDLE, header_timeout=1.0, request_timeout=2.0)
    with serving(app) as url:
        s = connect_from("127.0.0.2", port_of(url))
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /heal")
        assert read_response_head(s).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        assert closed_by_server(s, 6.0)
        assert time.monotonic() - started < 3.0  # its header_timeout (1 s)
        s.close()


def test_pipelined_requests_sent_whole_are_all_answered() -> None:
    """The deadlines end slow requests, not pipelining: 50 whole requests in one packet are each answered."""
    with serving(make_app(WORDLE, header_timeout=1.0, request_timeout=2.0)) as url:
        s = connect_from("127.0.0.2", port_of(url))
        body = b'{"seed": 3}'
        one = (b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
               b"POST /reset HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
               % (len(body), body))
        s.sendall(one * 25)
        s.settimeout(10)
        got = b""
        deadline = time.monotonic() + 20
        while got.count(b"HTTP/1.1 200") < 50 and time.monotonic() < deadline:
            got += s.recv(65536)
        assert got.count(b"HTTP/1.1 200") == 50
        s.close()


# ---- item 3: HTTP clients that pipeline and never read --------------------------------------------
def small_buffer_connection(host: str, port: int, small: bool = True) -> socket.socket:
    """A connection from ``host`` whose receive buffer is as small as the kernel allows (``small``)."""
    s = socket.socket()
    if small:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.bind((host, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def send_without_reading(s: socket.socket, wire: bytes, seconds: float, again: bool = False) -> None:
    """Send ``wire`` (over and over, with ``again``) for at most ``seconds``, or until the server stops taking
    it, reading nothing."""
    s.setblocking(False)
    deadline = time.monotonic() + seconds
    pending = wire
    while time.monotonic() < deadline:
        if not pending:
            if not again:
                return
            pending = wire
        try:
            pending = pending[s.send(pending):]
        except BlockingIOError:
            time.sleep(0.02)
        except OSError:
            return


def test_http_clients_that_pipeline_and_never_read_are_closed_at_the_send_deadline() -> None:
    """10 connections at --max-connections 10, every request whole, responses waiting on full buffers, were
    held for ever: now a response that cannot be written within --send-timeout closes its connection."""
    app = make_app(WORDLE, max_connections=10, max_connections_per_client=10, send_timeout=1.0)
    with serving(app) as url:
        port = port_of(url)
        hogs = [small_buffer_connection("127.0.0.2", port) for _ in range(10)]
        request = b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"  # 11 KB answered for 40 B asked
        threads = [threading.Thread(target=send_without_reading, args=(s, request * 64, 4.0, True), daemon=True)
                   for s in hogs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        started = time.monotonic()
        for s in hogs:
            s.setblocking(True)
        assert all(closed_by_server(s, 10.0) for s in hogs)  # each aborted once it has not read for 1 s
        assert time.monotonic() - started < 12.0
        with httpx.Client(base_url=url, timeout=10) as honest:
            assert all(honest.get("/health").status_code == 200 for _ in range(5))
        for s in hogs:
            s.close()


# ---- item 2: a /ws client that stops reading -------------------------------------------------------------
def raw_socket_session(port: int, host: str = "127.0.0.2", small: bool = True) -> socket.socket:
    """A session socket opened by hand from ``host`` (over a small receive buffer where ``small``): after the
    handshake it reads only what the test asks it to."""
    s = small_buffer_connection(host, port, small)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    assert read_response_head(s).startswith(b"HTTP/1.1 101")
    return s


def text_frame(payload: str) -> bytes:
    """One masked text frame, as a client sends it."""
    data = payload.encode()
    mask = os.urandom(4)
    n = len(data)
    length = bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + struct.pack("!H", n) if n < 1 << 16
                                                 else bytes([0x80 | 127]) + struct.pack("!Q", n))
    return b"\x81" + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def test_a_socket_client_that_stops_reading_loses_its_session_at_the_send_deadline() -> None:
    """--max-sessions 1 --idle-timeout 5: a client with a small receive buffer sent 18 steps of 100,000
    characters and 20 state requests, then read nothing; 82 s later it held its session and 2.9 MB queued, and
    every other client was refused (the handler waited in send, so the idle clock never fired)."""
    app = make_app(WORDLE, max_sessions=1, idle_timeout=5.0, send_timeout=1.0)
    with serving(app) as url:
        s = raw_socket_session(port_of(url))
        messages = [json.dumps({"type": "reset", "data": {"seed": 0}})]
        messages += [json.dumps({"type": "step", "data": {"message": "x" * 100_000}})] * 18
        messages += [json.dumps({"type": "state"})] * 20
        send_without_reading(s, b"".join(text_frame(m) for m in messages), 5.0)
        started = time.monotonic()
        freed = False
        while time.monotonic() - started < 15.0 and not freed:  # another client gets the one session
            with from_another_address(url) as other:
                try:
                    greeting = json.loads(other.recv(timeout=0.5))
                except TimeoutError:
                    freed = ask(other, {"type": "reset", "data": {"seed": 1}})["type"] == "observation"
                else:
                    assert greeting["data"]["code"] == "CAPACITY_REACHED"
                    time.sleep(0.3)
        assert freed, "the non-reading client still held the only session 15 s later"
        s.setblocking(True)
        assert closed_by_server(s, 5.0)
        s.close()


def test_a_socket_client_that_reads_slowly_but_keeps_up_plays_on() -> None:
    """The deadline is on a client that does not read, not a slow one: a client that reads each reply a
    second later than it could plays a whole game."""
    with serving(make_app(WORDLE, send_timeout=1.0)) as url, raw(url) as ws:
        assert ask(ws, {"type": "reset", "data": {"answer": "crane"}})["type"] == "observation"
        for guess in ("salet", "crony", "crane"):
            ws.send(json.dumps({"type": "step", "data": {"message": f"[{guess}]"}}))
            time.sleep(1.5)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["type"] == "observation"
        assert reply["data"]["done"] is True


def read_frames(s: socket.socket, count: int, rate: int, within: float) -> list[dict[str, Any]]:
    """Read ``count`` text frames from the server at about ``rate`` bytes a second (16 KiB at a time)."""
    buffer, frames = b"", []
    deadline = time.monotonic() + within
    s.settimeout(5)
    while len(frames) < count:
        assert time.monotonic() < deadline, f"{len(frames)} of {count} replies in {within} s"
        chunk = s.recv(16 << 10)
        assert chunk, "the server closed the connection"
        buffer += chunk
        time.sleep(len(chunk) / rate)
        while len(buffer) >= 2:
            n, start = buffer[1] & 0x7F, 2
            if n == 126:
                n, start = struct.unpack("!H", buffer[2:4])[0], 4
            elif n == 127:
                n, start = struct.unpack("!Q", buffer[2:10])[0], 10
            if len(buffer) < start + n:
                break
            frames.append(json.loads(buffer[start:start + n]))
            buffer = buffer[start + n:]
    return frames


def test_a_client_that_reads_slowly_keeps_its_session() -> None:
    """The send deadline ends a client that does not read, not one that reads slowly: 7.8 MB of replies
    (the conversation grows by 100,000 characters a step) read at 1 MB/s keep the server's write buffer full
    for seconds past --send-timeout 1, window after window, and the session plays on."""
    app = make_app(WORDLE, send_timeout=1.0)
    with serving(app) as url:
        s = raw_socket_session(port_of(url), small=False)  # a tiny window would stall TCP itself on loopback
        messages = [json.dumps({"type": "reset", "data": {"seed": 0}})]
        messages += [json.dumps({"type": "step", "data": {"message": "x" * 100_000}})] * 12
        sender = threading.Thread(target=s.sendall, args=(b"".join(text_frame(m) for m in messages),), daemon=True)
        started = time.monotonic()
        sender.start()
        replies = read_frames(s, len(messages), rate=1 << 20, within=90.0)
        sender.join(30)
        assert time.monotonic() - started > 4.0  # the buffer stayed full well past the deadline
        assert [r["type"] for r in replies] == ["observation"] * len(messages)
        s.sendall(text_frame(json.dumps({"type": "state"})))
        assert read_frames(s, 1, rate=1 << 30, within=10.0)[0]["type"] == "state"
        s.close()


# ---- items 9 and 21: the connections shared between addresses -----------------------------------------
def is_closed(s: socket.socket) -> bool:
    """Whether the server has closed ``s`` (looked at without waiting)."""
    try:
        return s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def hog_connections(addresses: list[str], port: int, stop: threading.Event, held: list[socket.socket]) -> None:
    """From each address, keep 15 connections open, reopening each one the server closes as fast as it can
    (until ``stop``)."""
    mine: dict[str, list[socket.socket]] = {host: [] for host in addresses}
    while not stop.is_set():
        for host, sockets in mine.items():
            for s in [s for s in sockets if is_closed(s)]:
                s.close()
                sockets.remove(s)
            while len(sockets) < 15 and not stop.is_set():
                try:
                    sockets.append(connect_from(host, port))
                except OSError:
                    break
        held[:] = [s for sockets in mine.values() for s in sockets]
        time.sleep(0.01)


@pytest.mark.parametrize("hogs", [2, 6])
def test_addresses_that_hold_none_are_served_however_many_fill_the_rest(hogs: int) -> None:
    """Two addresses reopening idle connections took every one (the default share was half): an honest client
    was answered 0 of 15 times. Now an address holds a quarter by default, and a full server closes an idle
    connection of the address that holds the most for an address that holds none, so an honest client is
    answered every time, with two addresses or six."""
    app = make_app(WORDLE, max_connections=40, header_timeout=30.0, request_timeout=30.0)
    assert app.state.guessgym["max_connections_per_client"] == default_connections_per_client(40) == 10
    with serving(app) as url:
        stop, held = threading.Event(), []  # type: ignore[var-annotated]
        addresses = [f"127.0.0.{10 + i}" for i in range(hogs)]
        thread = threading.Thread(target=hog_connections, args=(addresses, port_of(url), stop, held), daemon=True)
        thread.start()
        time.sleep(1.5)
        answered = honest_answers(url, 15, new_connection_each=True)
        stop.set()
        thread.join(30)
        for s in held:
            s.close()
    assert answered == 15


def test_forwarded_allow_ips_star_keeps_the_per_client_share() -> None:
    """--forwarded-allow-ips '*' made every address a trusted proxy, which the share exempts: one address took
    every connection. '*' believes every header, but names no proxy: every address is held to its share."""
    def accepted_from_one_address(app: Any) -> int:
        with serving(app) as url:
            opened = [connect_from("127.0.0.2", port_of(url)) for _ in range(12)]
            time.sleep(0.5)
            kept = sum(not closed_by_server(s, 0.3) for s in opened)
            for s in opened:
                s.close()
            return kept

    assert accepted_from_one_address(make_app(WORDLE, max_connections=12, header_timeout=30.0,
                                              forwarded_allow_ips="*")) == 3
    named = make_app(WORDLE, max_connections=12, header_timeout=30.0, forwarded_allow_ips="127.0.0.2")
    assert accepted_from_one_address(named) == 12  # a named proxy is not held to it
