"""Exceptions a test's annotation expects: TestNG's ``@Test(expectedExceptions = X.class)``.

TestNG catches whatever its test throws in its runner, the expected exception as any other, and
decides afterwards by the annotation: where it is caught says nothing (JUnit 4's
``@Test(expected=...)`` has a catch of its own, ``ExpectException``, tests_seen.EXPECTING).  So
the annotation is read, without running code in the VM: the ``java.lang.reflect.Method`` that
TestNG invokes is ``this`` of the ``Method.invoke`` frame below the test, its ``annotations``
field holds the method's RuntimeVisibleAnnotations attribute as the class file has it (JVMS
4.7.16), and its indexes name entries of the declaring class's constant pool (JDWP's
ReferenceType.ConstantPool).  An expected exception whose message does not match
``expectedExceptionsMessageRegExp`` fails its test in TestNG, and is not captured here.
"""

from __future__ import annotations

import struct
from typing import Any

from ..api.constant_pool import utf8_entries

TESTNG_TEST = "Lorg/testng/annotations/Test;"
TESTNG_EXPECTED = "expectedExceptions"


def annotation_classes(data: bytes, utf8: dict[int, str], annotation: str, element: str) -> list[str]:
    """The class descriptors an annotation's element holds (``Lpkg/Name;``), from the bytes of a
    RuntimeVisibleAnnotations attribute; none where the annotation or element is absent, or the
    bytes are not what JVMS 4.7.16 says.

    >>> pool = {1: "Lp/Test;", 2: "expected", 3: "Lp/Boom;", 4: "other"}
    >>> value = b"[" + struct.pack(">H", 1) + b"c" + struct.pack(">H", 3)
    >>> data = struct.pack(">HHHH", 1, 1, 1, 2) + value  # 1 annotation: type 1, 1 pair: name 2
    >>> annotation_classes(data, pool, "Lp/Test;", "expected")
    ['Lp/Boom;']
    >>> annotation_classes(data, pool, "Lp/Test;", "other")
    []
    """
    at = 0

    def u2() -> int:
        nonlocal at
        (v,) = struct.unpack_from(">H", data, at)
        at += 2
        return v

    def value(collect: list[str] | None) -> None:
        nonlocal at
        tag = chr(data[at])
        at += 1
        if tag in "BCDFIJSZs":
            u2()
        elif tag == "e":
            u2()
            u2()
        elif tag == "c":
            index = u2()
            if collect is not None:
                collect.append(utf8.get(index, ""))
        elif tag == "@":
            body(False)
        elif tag == "[":
            for _ in range(u2()):
                value(collect)
        else:
            raise ValueError(f"element value tag {tag!r}")

    def body(wanted: bool) -> list[str] | None:
        mine = wanted and utf8.get(u2()) == annotation
        found = None
        for _ in range(u2()):
            name = utf8.get(u2())
            collect: list[str] | None = [] if mine and name == element else None
            value(collect)
            if collect is not None:
                found = collect
        return found

    try:
        for _ in range(u2()):
            got = body(True)
            if got is not None:
                return got
    except (struct.error, IndexError, ValueError):  # not an attribute this reader understands
        pass
    return []


async def expected_by_annotation(hit: Any, frames: list[Any], t: int) -> bool:
    """Whether the test at ``frames[t]`` is TestNG's and its ``@Test`` expects ``hit.thrown``
    (its class or a superclass)."""
    below = frames[t + 1:]
    thrown = getattr(hit, "thrown", None)
    if thrown is None or not any(f.location.type.name.startswith("org.testng.") for f in below):
        return False
    invoke = next((f for f in below if f.location.type.name == "java.lang.reflect.Method"
                   and f.location.method.name == "invoke"), None)
    if invoke is None:
        return False
    try:
        method = await invoke.this()
        raw = await method.get("annotations") if method is not None else None
        if raw is None:
            return False
        data = bytes(b & 0xFF for b in await raw.slice(0, len(raw)))
        declaring = frames[t].location.type
        pool = await declaring.vm.conn.command("ReferenceType", "ConstantPool", ref_type=declaring.id)
        expected = annotation_classes(data, utf8_entries(pool.count, bytes(pool.bytes)), TESTNG_TEST,
                                      TESTNG_EXPECTED)
        for descriptor in expected:
            if await thrown.type.is_subtype_of(descriptor):
                return True
    except Exception:  # a frame or a pool the server cannot give: judged a failure, as TestNG's default is
        return False
    return False
