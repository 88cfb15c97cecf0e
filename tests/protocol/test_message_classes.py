"""Generated message classes compare, order, hash and print as attrs classes do (protocol.messages.Message)."""

from __future__ import annotations

import attrs
import pytest

from protocol import messages, spec

FRAMES = messages.command_class(spec.by_name("ThreadReference", "Frames"))
LENGTH = messages.command_class(spec.by_name("ThreadReference", "FrameCount"))


def test_equal_fields_equal_instances_and_hashes() -> None:
    a, b = FRAMES(thread=1, start_frame=0, length=-1), FRAMES(thread=1, start_frame=0, length=-1)
    assert a == b and not (a != b)
    assert hash(a) == hash(b) and {a: "x"}[b] == "x"
    assert a != FRAMES(thread=1, start_frame=0, length=2)


def test_another_class_is_never_equal_nor_ordered() -> None:
    one = LENGTH(thread=1)
    assert one != FRAMES(thread=1, start_frame=0, length=-1)
    assert one.__eq__(FRAMES(thread=1, start_frame=0, length=-1)) is NotImplemented
    assert one != (1,)
    with pytest.raises(TypeError):
        _ = one < FRAMES(thread=1, start_frame=0, length=-1)


def test_order_is_the_fields_in_declared_order() -> None:
    low, high = FRAMES(thread=1, start_frame=5, length=0), FRAMES(thread=2, start_frame=0, length=0)
    assert low < high and low <= high and high > low and high >= low
    assert sorted([high, low]) == [low, high]


def test_repr_names_the_class_and_every_field() -> None:
    assert repr(FRAMES(thread=1, start_frame=0, length=-1)) == \
        "ThreadReferenceFramesCommand(thread=1, start_frame=0, length=-1)"


def test_still_attrs_classes() -> None:
    a = FRAMES(thread=1, start_frame=0, length=-1)
    assert attrs.has(FRAMES) and attrs.evolve(a, length=3).length == 3
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        a.thread = 2  # type: ignore[misc]
