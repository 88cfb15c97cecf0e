"""The VM's registry of jdwpd's extension objects (jdwpd/daemon/model/ext_objects.py)."""

import gc

import pytest

from jdwpd.daemon.model import ext_objects
from jdwpd.daemon.model.ext_objects import ExtObjects
from jdwpd.errors import JdwpError
from protocol.constants import ErrorCode


class _Session:
    pass


def test_a_session_has_objects_from_its_hello_on_and_ids_name_one_sessions_object():
    reg = ExtObjects()
    a, b = _Session(), _Session()
    assert reg.of(a) is None
    reg.hello(a)
    reg.hello(b)
    first = reg.of(a).define(b"\x01cond")
    reg.hello(a)  # a second hello keeps what the session defined
    other = reg.of(b).define(b"\x02budget")
    assert first != other
    assert reg.of(a).get(first) == b"\x01cond" and reg.of(a).get(other) is None  # b's id names nothing for a
    reg.of(a).forget(first)
    reg.of(a).forget(first)  # forgetting twice is harmless
    assert reg.of(a).get(first) is None


def test_objects_go_with_their_session():
    reg = ExtObjects()
    s = _Session()
    reg.hello(s)
    reg.of(s).define(b"\x01")
    del s
    gc.collect()
    assert len(reg._sessions) == 0


def test_a_session_that_never_forgets_is_told(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ext_objects, "MAX_PER_SESSION", 2)
    reg = ExtObjects()
    s = _Session()
    reg.hello(s)
    reg.of(s).define(b"\x01")
    kept = reg.of(s).define(b"\x01")
    with pytest.raises(JdwpError) as full:
        reg.of(s).define(b"\x01")
    assert full.value.code == ErrorCode.OUT_OF_MEMORY
    reg.of(s).forget(kept)
    reg.of(s).define(b"\x01")
