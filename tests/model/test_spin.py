"""jdwpd/daemon/fast/spin.py: polling without sleeping while a conversation is under way, never while idle."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import trio

from jdwpd.daemon.fast import spin

pytestmark = pytest.mark.skipif(not spin.available(), reason="the agent library (agent/spin.c) is not built")


def test_until_readable_answers_at_once_for_input_and_gives_up_in_time() -> None:
    a, b = socket.socketpair()
    with a, b:
        t0 = time.monotonic()
        assert spin.until_readable(a.fileno(), 20_000_000) is False
        waited = time.monotonic() - t0
        assert 0.019 <= waited < 5.0
        b.send(b"x")
        t0 = time.monotonic()
        assert spin.until_readable(a.fileno(), 5_000_000_000) is True
        assert time.monotonic() - t0 < 2.0
        assert spin.until_readable(a.fileno(), 0) is False  # nothing asked, nothing polled


def test_until_readable_releases_the_gil() -> None:
    # The fast lanes and the event loop spin in different threads: one spinning must not hold
    # the other back.
    a, b = socket.socketpair()
    counted = []

    def count() -> None:
        n, end = 0, time.monotonic() + 0.2
        while time.monotonic() < end:
            n += 1
        counted.append(n)

    with a, b:
        t = threading.Thread(target=count)
        t.start()
        spin.until_readable(a.fileno(), 300_000_000)
        t.join(5)
    assert counted and counted[0] > 1000


def test_the_event_loop_descriptor_is_found() -> None:
    # trio has no public accessor for its epoll object: if a trio release moves it, this says so
    # (the daemon would quietly stop spinning).
    async def main() -> int | None:
        return spin._event_loop_fd()

    assert isinstance(trio.run(main), int)


def test_an_idle_loop_does_not_spin() -> None:
    # Timer wake-ups are no conversation: after the first, the loop sleeps at once.  Spinning at
    # each would cost 40 x 20 ms of CPU here.
    instrument = spin.SpinBeforeSleep(max_us=20_000)

    async def main() -> None:
        for _ in range(40):
            await trio.sleep(0.025)

    cpu0 = time.process_time()
    trio.run(main, instruments=[instrument])
    assert time.process_time() - cpu0 < 0.3
    assert instrument.caught == 0


def test_a_conversation_is_caught_without_sleeping() -> None:
    a, b = socket.socketpair()

    def echo() -> None:
        while data := b.recv(64):
            time.sleep(0.001)  # answers after the loop has gone to wait
            b.sendall(data)

    instrument = spin.SpinBeforeSleep(max_us=50_000)

    async def main() -> None:
        sock = trio.socket.from_stdlib_socket(a)
        for _ in range(100):
            await sock.send(b"ping")
            got = b""
            while len(got) < 4:
                got += await sock.recv(64)

    peer = threading.Thread(target=echo)
    peer.start()
    try:
        trio.run(main, instruments=[instrument])
    finally:
        a.shutdown(socket.SHUT_RDWR)
        peer.join(5)
        a.close()
        b.close()
    assert instrument.caught > 50
