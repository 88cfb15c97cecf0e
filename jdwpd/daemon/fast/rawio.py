"""Socket I/O for the hot paths, without trio's per-call scheduler passes.

trio's ``SocketStream.receive_some``/``send_all`` yield to the scheduler on every call
(a cancel-shielded checkpoint after each successful send or receive), and each pass
through the scheduler costs more than answering a cached JDWP command.  Here a read or
write is tried at once on the non-blocking socket, and the task waits
(``trio.lowlevel.wait_readable``/``wait_writable``) only when the call would block.

The stream still owns the socket: closing the stream wakes a waiter here with
ClosedResourceError, as trio's own calls would.  Errors are trio's: a peer gone is
BrokenResourceError, a socket closed under us ClosedResourceError.  One reader and one
writer at a time, as with any trio stream (writer.py sees to the writers).

A reader that always finds data would never let other tasks run; every
``BURST``-th read in a row that did not wait checkpoints, so a debugger flooding us
with packets cannot starve the VM's event pump.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

import trio

BURST = 32
_CLOSED_ERRNOS = frozenset({errno.EBADF, errno.ENOTSOCK})


def _raise_from(e: OSError) -> None:
    if e.errno in _CLOSED_ERRNOS:
        raise trio.ClosedResourceError("socket was closed") from None
    raise trio.BrokenResourceError(f"socket error: {e!r}") from e


class RawStream:
    """Non-blocking reads and writes on a trio stream's socket, falling back to the stream's
    own methods for a stream that has no plain socket (tests, wrappers)."""

    __slots__ = ("stream", "_sock", "_reads_without_wait", "drained")

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        inner = getattr(getattr(stream, "socket", None), "_sock", None)
        self._sock: socket.socket | None = inner if isinstance(inner, socket.socket) else None
        self._reads_without_wait = 0
        # The last read took less than it could: the peer had sent no more.  A request/reply
        # peer sends nothing more until it has our reply, so the next read waits first rather
        # than trying a read that would fail (a syscall and an exception saved per packet).
        self.drained = False

    @property
    def raw(self) -> bool:
        return self._sock is not None

    @property
    def socket(self) -> socket.socket:
        assert self._sock is not None
        return self._sock

    async def receive_some(self, max_bytes: int = 65536) -> bytes | bytearray:
        """Whatever is available (at least one byte), b"" at end of stream."""
        sock = self._sock
        if sock is None:
            return await self.stream.receive_some(max_bytes)
        if self.drained:
            self._reads_without_wait = 0
            await trio.lowlevel.wait_readable(sock)
        else:
            self._reads_without_wait += 1
            if self._reads_without_wait >= BURST:
                self._reads_without_wait = 0
                await trio.lowlevel.checkpoint()
        while True:
            try:
                data = sock.recv(max_bytes)
            except BlockingIOError:
                pass
            except OSError as e:
                _raise_from(e)
            else:
                self.drained = 0 < len(data) < max_bytes
                return data
            self._reads_without_wait = 0
            await trio.lowlevel.wait_readable(sock)

    def try_receive(self, max_bytes: int = 65536) -> bytes | None:
        """What is available now (b"" at end of stream), or None when a read would wait."""
        sock = self._sock
        assert sock is not None
        try:
            data = sock.recv(max_bytes)
        except BlockingIOError:
            self.drained = True
            return None
        except OSError as e:
            _raise_from(e)
            raise  # unreachable: for the type checker
        self.drained = 0 < len(data) < max_bytes
        return data

    async def wait_readable(self) -> None:
        assert self._sock is not None
        await trio.lowlevel.wait_readable(self._sock)
        self.drained = False

    def try_send(self, data: Any) -> int:
        """Write what fits now without waiting; how many bytes went (0 when the socket is full)."""
        sock = self._sock
        assert sock is not None
        try:
            return sock.send(data)
        except BlockingIOError:
            return 0
        except OSError as e:
            _raise_from(e)
            raise  # unreachable: for the type checker

    async def send_all(self, data: bytes) -> None:
        """Write everything; waits only while the socket's buffer is full."""
        if self._sock is None:
            await self.stream.send_all(data)
            return
        sent = self.try_send(data)
        if sent == len(data):
            return
        view = memoryview(data)
        with view:
            while sent < len(data):
                await trio.lowlevel.wait_writable(self._sock)
                sent += self.try_send(view[sent:])

