"""Logins and sessions against real `tapete serve` processes (tests/procs.py), where the time an answer
takes, the client's address or the bytes on the wire matter: a failed login takes the same time whether
its name exists or not (argon2id at its production cost); an attacker's failures from one loopback
address (127.0.0.2) throttle that address, while the name's owner logs in from 127.0.0.1; a body over
1 MiB is answered 413 before it is sent whole (declared, or chunked); the headers on the wire."""

from __future__ import annotations

import socket
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.procs import ADMIN_PASSWORD, Server

#: no throttling at all: every attempt is checked (the timing test)
UNTHROTTLED = {
    "TAPETE_LOCKOUT_FAILURES": "0",
    "TAPETE_LOCKOUT_ADDRESS_FAILURES": "0",
    "TAPETE_LOCKOUT_NAME_FAILURES": "0",
}


ANA = {"username": "ana", "password": "password-123", "role": "player"}


@pytest.fixture
def server(database_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    """A real server on the test's database (unthrottled, and hashing at argon2id's production cost, for
    the tests whose name says timing; the others hash cheaply, `tests.fast_passwords`)."""
    timing = "same_time" in request.node.name
    proc = Server(
        database_url, tmp_path / "home", env=UNTHROTTLED if timing else {}, fast_passwords=not timing
    )
    proc.start()
    try:
        proc.login("admin", ADMIN_PASSWORD)
        yield proc
    finally:
        proc.stop()


def client_at(address: str) -> httpx.Client:
    """An HTTP client whose connections leave from `address` (any 127.x.y.z is this machine)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)


def test_a_failed_login_takes_the_same_time_whether_the_name_exists_or_not(server: Server) -> None:
    """Wrong passwords for `ana` (who exists) and for `nadie` (who does not), taken in turns (throttling
    off, so that every attempt is checked): the same answer, and median times within 20 % of each other
    (before, an absent name skipped argon2id: ~5 ms against ~125 ms)."""
    server.call(
        "admin", "POST", "/api/users", {"username": "ana", "password": "password-123", "role": "player"}
    )
    times: dict[str, list[float]] = {"ana": [], "nadie": []}
    answers: dict[str, set[str]] = {"ana": set(), "nadie": set()}
    with client_at("127.0.0.1") as http:
        for turn in range(24):
            for name in ("ana", "nadie") if turn % 2 else ("nadie", "ana"):
                started = time.perf_counter()
                r = http.post(
                    f"{server.url}/api/login", json={"username": name, "password": "wrong-password"}
                )
                took = time.perf_counter() - started
                assert r.status_code == 401
                answers[name].add(r.text)
                if turn >= 4:  # the first turns warm the connection and the server up
                    times[name].append(took)
    assert answers["ana"] == answers["nadie"] and len(answers["ana"]) == 1
    present, absent = statistics.median(times["ana"]), statistics.median(times["nadie"])
    assert abs(present - absent) <= 0.2 * max(present, absent), (present, absent)
    assert min(present, absent) > 0.01  # both paid for argon2id


def test_the_owner_logs_in_from_another_address_while_his_name_is_throttled(server: Server) -> None:
    """Five wrong passwords for `admin` from 127.0.0.2: that address is refused for `admin`, the right
    password included (429 rate_limited, Retry-After), and the owner logs in from 127.0.0.1 at once.
    Twenty names tried from 127.0.0.3: that address is throttled for every name (ana's right password
    too), and ana logs in from 127.0.0.1. Each throttling is a significant event naming its address."""
    server.call(
        "admin", "POST", "/api/users", {"username": "ana", "password": "password-123", "role": "player"}
    )
    with client_at("127.0.0.2") as attacker:
        for _ in range(5):
            r = attacker.post(f"{server.url}/api/login", json={"username": "admin", "password": "guess-1234"})
            assert r.status_code == 401, r.text
        r = attacker.post(f"{server.url}/api/login", json={"username": "admin", "password": ADMIN_PASSWORD})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", r.text
        assert 1 <= int(r.headers["Retry-After"]) <= 60
        assert r.headers["Cache-Control"] == "no-store"
    with client_at("127.0.0.1") as owner:
        r = owner.post(f"{server.url}/api/login", json={"username": "admin", "password": ADMIN_PASSWORD})
        assert r.status_code == 200, r.text
    with client_at("127.0.0.3") as sprayer:
        for i in range(20):
            r = sprayer.post(
                f"{server.url}/api/login", json={"username": f"n{i}", "password": "password-123"}
            )
            assert r.status_code == 401, (i, r.text)
        r = sprayer.post(f"{server.url}/api/login", json={"username": "ana", "password": "password-123"})
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1, r.text
    with client_at("127.0.0.1") as owner:
        r = owner.post(f"{server.url}/api/login", json={"username": "ana", "password": "password-123"})
        assert r.status_code == 200, r.text
    events = server.call("admin", "GET", "/api/events?limit=1000")["events"]
    throttled = [
        (e["details"]["address"], e["details"]["scope"]) for e in events if e["kind"] == "login_throttled"
    ]
    assert throttled == [("127.0.0.2", "name"), ("127.0.0.3", "address")]
    logins = [(e["actor"], e["details"]["address"]) for e in events if e["kind"] == "login"]
    assert ("admin", "127.0.0.1") in logins and ("ana", "127.0.0.1") in logins


def _raw(server: Server, head: str, body: bytes) -> bytes:
    """Send a request's head and the first part of its body on a plain socket, and read what the server
    answers before the rest is sent (it never will be)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as conn:
        conn.sendall(head.encode() + body)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer


def test_a_body_over_1_mib_is_answered_413_before_it_is_sent_whole(server: Server) -> None:
    """A request that declares 2 MiB (and 50 MB) and sends only its first 64 KiB, at a table step and at
    the login, is answered 413 with the error body and the security headers: the server did not wait
    for the rest. A chunked body is refused once it passes 1 MiB, its end never sent."""
    token = server.tokens["admin"]
    for path, size in (("/api/tables/1/actions", 2 << 20), ("/api/login", 50_000_000)):
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {size}\r\n\r\n"
        )
        answer = _raw(server, head, b"[" + b"1," * 32_000)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b'"code":"bad_request"' in answer and b"err.api.too_large" in answer
        assert b"x-frame-options: DENY" in answer.lower().replace(b"deny", b"DENY")
    head = (
        "POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    )
    piece = b"x" * 65536
    chunks = b"".join(b"%x\r\n" % len(piece) + piece + b"\r\n" for _ in range(17))  # 1 MiB + 64 KiB
    answer = _raw(server, head, chunks)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_the_headers_on_the_wire(server: Server) -> None:
    """The page, a refused table step and a refused WebSocket handshake, as a real server sends them."""
    page = httpx.get(f"{server.url}/", timeout=10)
    step = httpx.post(f"{server.url}/api/tables/1/actions", json={"seat": 1, "action": "hit"}, timeout=10)
    assert page.status_code == 200 and step.status_code == 401
    for r in (page, step):
        assert "script-src 'self';" in r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Referrer-Policy"] == "no-referrer"
        assert r.headers["X-Frame-Options"] == "DENY"
    assert step.headers["Cache-Control"] == "no-store"
    upgrade = {
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    }
    refused = httpx.get(f"{server.url}/ws/tables/1", headers=upgrade, timeout=10)  # no token: denied
    assert refused.status_code == 401, refused.text
    assert refused.headers["X-Frame-Options"] == "DENY" and refused.headers["Cache-Control"] == "no-store"
