"""Exceptions a test's annotation expects: TestNG's ``@Test(expectedExceptions = X.class)``.

TestNG catches whatever its test throws in its runner, the expected exception as any other, and
decides afterwards by the annotation: where it is caught says nothing (JUnit 4's
``@Test(expected=...)`` has a catch of its own, ``ExpectException``, tests_seen.JUNIT4_EXPECT).
So the annotation is read, a method's without running code in the VM: the
``java.lang.reflect.Method`` that TestNG invokes is ``this`` of the ``Method.invoke`` frame below
the test, its ``annotations`` field holds the method's RuntimeVisibleAnnotations attribute as
the class file has it (JVMS 4.7.16), and its indexes name entries of the declaring class's constant pool (JDWP's
ReferenceType.ConstantPool).  ``@Test`` on the class (its expectedExceptions apply to the
methods whose own ``@Test`` names none) is read the same way, its bytes from the JDK's
``Class.getRawAnnotations()`` run on the held thread (a Class has no field that holds them).  An
expected exception whose message does not match ``expectedExceptionsMessageRegExp`` fails its
test in TestNG, and so is no expected exception here.
"""

from __future__ import annotations

import re
import struct
from typing import Any

from ..api.constant_pool import utf8_entries

TESTNG_TEST = "Lorg/testng/annotations/Test;"
TESTNG_EXPECTED = "expectedExceptions"
TESTNG_REGEXP = "expectedExceptionsMessageRegExp"
#: TestNG's default regexp: any message.
DEFAULT_REGEXP = ".*"
#: How long the JDK's Class.getRawAnnotations() may take on the held thread.
RAW_ANNOTATIONS_TIMEOUT = 10.0


def annotation_elements(data: bytes, utf8: dict[int, str], annotation: str) -> dict[str, list[str]] | None:
    """The elements of ``annotation`` in the bytes of a RuntimeVisibleAnnotations attribute, each
    as the class descriptors (``Lpkg/Name;``) and strings it holds; None where the annotation is
    absent or the bytes are not what JVMS 4.7.16 says.

    >>> pool = {1: "Lp/Test;", 2: "expected", 3: "Lp/Boom;", 4: "regexp", 5: "bo+m"}
    >>> value = b"[" + struct.pack(">H", 1) + b"c" + struct.pack(">H", 3)
    >>> data = struct.pack(">HHHH", 1, 1, 2, 2) + value + struct.pack(">H", 4) + b"s" + struct.pack(">H", 5)
    >>> annotation_elements(data, pool, "Lp/Test;")
    {'expected': ['Lp/Boom;'], 'regexp': ['bo+m']}
    >>> annotation_elements(data, pool, "Lp/Other;") is None
    True
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
        if tag in "BCDFIJSZ":
            u2()
        elif tag in "cs":
            index = u2()
            if collect is not None:
                collect.append(utf8.get(index, ""))
        elif tag == "e":
            u2()
            u2()
        elif tag == "@":
            body(False)
        elif tag == "[":
            for _ in range(u2()):
                value(collect)
        else:
            raise ValueError(f"element value tag {tag!r}")

    def body(wanted: bool) -> dict[str, list[str]] | None:
        mine = wanted and utf8.get(u2()) == annotation
        found: dict[str, list[str]] | None = {} if mine else None
        for _ in range(u2()):
            name = utf8.get(u2(), "")
            collect: list[str] | None = [] if found is not None else None
            value(collect)
            if found is not None and collect is not None:
                found[name] = collect
        return found

    try:
        for _ in range(u2()):
            got = body(True)
            if got is not None:
                return got
    except (struct.error, IndexError, ValueError):  # not an attribute this reader understands
        pass
    return None


def annotation_classes(data: bytes, utf8: dict[int, str], annotation: str, element: str) -> list[str]:
    """The class descriptors an annotation's element holds (``Lpkg/Name;``); none where the
    annotation or element is absent.

    >>> pool = {1: "Lp/Test;", 2: "expected", 3: "Lp/Boom;", 4: "other"}
    >>> value = b"[" + struct.pack(">H", 1) + b"c" + struct.pack(">H", 3)
    >>> data = struct.pack(">HHHH", 1, 1, 1, 2) + value  # 1 annotation: type 1, 1 pair: name 2
    >>> annotation_classes(data, pool, "Lp/Test;", "expected")
    ['Lp/Boom;']
    >>> annotation_classes(data, pool, "Lp/Test;", "other")
    []
    """
    return (annotation_elements(data, utf8, annotation) or {}).get(element, [])


def message_matches(regexp: str, message: str | None) -> bool:
    """Whether TestNG's ``expectedExceptionsMessageRegExp`` holds for a message: ``.*`` always
    (its default), else a full match with DOTALL, as ``Pattern.matches`` with ``Pattern.DOTALL``;
    a pattern Python's ``re`` cannot read is taken to hold (no failure is claimed that TestNG may
    not see).

    >>> message_matches("neg.*", "negative count"), message_matches("neg", "negative count")
    (True, False)
    >>> message_matches("x", None), message_matches(".*", None)
    (False, True)
    """
    if regexp == DEFAULT_REGEXP:
        return True
    if message is None:
        return False
    try:
        return re.fullmatch(regexp, message, re.DOTALL) is not None
    except re.error:
        return True


async def expected_by_annotation(hit: Any, frames: list[Any], t: int) -> bool:
    """Whether the test at ``frames[t]`` is TestNG's and its ``@Test`` expects ``hit.thrown`` (its
    class or a superclass, with a message its ``expectedExceptionsMessageRegExp`` matches).  The
    method's own ``@Test`` first; where it names no ``expectedExceptions``, the class's ``@Test``."""
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
        if method is None:
            return False
        declaring = frames[t].location.type
        pool = await declaring.vm.conn.command("ReferenceType", "ConstantPool", ref_type=declaring.id)
        utf8 = utf8_entries(pool.count, bytes(pool.bytes))
        raw = await method.get("annotations")
        elements = annotation_elements(await _bytes(raw), utf8, TESTNG_TEST) if raw is not None else None
        if not (elements or {}).get(TESTNG_EXPECTED):
            # the class's @Test: its raw annotations, from the JDK's own Class.getRawAnnotations()
            clazz = await method.get("clazz")
            raw = await clazz.invoke("getRawAnnotations", thread=hit.thread, timeout=RAW_ANNOTATIONS_TIMEOUT)
            of_class = annotation_elements(await _bytes(raw), utf8, TESTNG_TEST) if raw is not None else None
            elements = {**(of_class or {}), **{k: v for k, v in (elements or {}).items() if k != TESTNG_EXPECTED}}
        elements = elements or {}
        for descriptor in elements.get(TESTNG_EXPECTED, []):
            if await thrown.type.is_subtype_of(descriptor):
                regexp = (elements.get(TESTNG_REGEXP) or [DEFAULT_REGEXP])[0]
                message = await thrown.get("detailMessage") if regexp != DEFAULT_REGEXP else None
                return message_matches(regexp, message if isinstance(message, str) else None)
    except Exception:  # a frame or a pool the server cannot give: judged a failure, as TestNG's default is
        return False
    return False


async def _bytes(raw: Any) -> bytes:
    return bytes(b & 0xFF for b in await raw.slice(0, len(raw)))
