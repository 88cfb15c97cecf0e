"""A transcript of raw JDWP commands and events, normalized for differential comparison."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs

from protocol import messages, spec
from protocol.constants import ErrorCode

from . import jvm
from .client import JdwpClient, open_jdwp_client
from .normalize import Normalizer

__all__ = ["Transcript", "debuggee_session", "id_free"]

# The reference agent's race at VM death (its event thread asks for thread-local storage after
# the dead phase began) aborts the JVM after the session is over, rarely (seen once in a full
# test run, tests/differential/test_raw_events.py).  The transcript is whole; only the exit code
# is the reference's bug.
REFERENCE_EXIT_CRASH = "cannot get thread local storage, jvmtiError=JVMTI_ERROR_WRONG_PHASE"


@contextlib.asynccontextmanager
async def debuggee_session(kind: str, classes: Path | str, main: str) -> AsyncIterator[JdwpClient]:
    """A raw client on a fresh debuggee under ``kind`` ("reference" or "jdwpd"), which must exit with 0
    once the client is done (the reference may also die of its known exit race); whatever fails
    carries the debuggee's output."""
    async with jvm.open_jvm(kind, classes, main) as vm:
        try:
            async with open_jdwp_client(vm.host, vm.port) as c:
                yield c
            code = await vm.wait_exit(60)
            assert code == 0 or (kind == "reference" and REFERENCE_EXIT_CRASH in vm.output.text()), code
        except BaseException as e:
            e.add_note(f"debuggee ({kind}) output:\n{vm.output.describe()}")
            raise


@attrs.define
class Transcript:
    n: Normalizer = attrs.field(factory=Normalizer)
    steps: list = attrs.field(factory=list)

    def add(self, label: str, value: Any) -> None:
        self.steps.append((label, self.n(value)))

    async def cmd(self, c: JdwpClient, set_name: str, cmd_name: str, label: str = "", *, must: bool = False,
                  **fields: Any) -> Any:
        """Run a command; record its normalized reply or error code; return the decoded reply (None on error).

        Replies that carry no IDs are compared byte for byte as well: decoding would hide
        differences such as modified vs standard UTF-8 in strings.  ``must``: the script needs the
        reply to go on, so an error reply fails the run at once, saying which step it was.
        """
        cs = spec.by_name(set_name, cmd_name)
        pid = await c.send_packet(cs.set_id, cs.cmd_id, messages.encode_command(cs, fields, c.sizes))
        packet = await c.reply(pid)
        label = f"{set_name}.{cmd_name}{' ' + label if label else ''}"
        if packet.error_code:
            self.steps.append((label, {"error": packet.error_code}))
            if must:
                raise AssertionError(f"step {len(self.steps)} `{label}` failed: "
                                     f"{ErrorCode(packet.error_code).name} ({packet.error_code})")
            return None
        reply = messages.decode_reply(cs, packet.data, c.sizes)
        entry = self.n(reply, thread=fields.get("thread"))
        if id_free(cs.reply):
            entry["bytes"] = packet.data.hex()
        self.steps.append((label, entry))
        return reply


_ID_BEARING = set(spec.ID_TYPES) | {"value", "location", "tagged-object", "typed-sequence", "untagged-value"}


def id_free(layout: tuple) -> bool:
    for el in layout:
        if isinstance(el, spec.Field) and el.type in _ID_BEARING:
            return False
        if isinstance(el, spec.Repeat):
            item = el.item
            if isinstance(item, spec.Field) and item.type in _ID_BEARING:
                return False
            if isinstance(item, spec.Group) and not id_free(item.fields):
                return False
            if isinstance(item, spec.Select):
                return False
    return True
