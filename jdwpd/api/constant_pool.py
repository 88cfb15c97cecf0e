"""The class names a class file's constant pool refers to: what its source imported and used.

JDWP's ReferenceType.ConstantPool gives the pool's entries as the class file holds them; a simple
class name in an expression (``(Node) items.get(0)``) is looked up among them, as javac looked it
up among the source's imports.
"""

from __future__ import annotations

import re
import struct

# tag -> the entry's size after its tag byte (Utf8 is sized by its own length field)
_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2, 20: 2}
_UTF8, _CLASS, _LONG, _DOUBLE = 1, 7, 5, 6
_DESCRIBED = re.compile(r"(?:(?<=[(\[;<>):+*-])|^)L([A-Za-z_$][\w$]*(?:/[\w$]+)*)(?=[;<])")


def class_names(count: int, data: bytes) -> list[str]:
    """Internal names (``java/util/List``, ``[Lp/Node;``) of the CONSTANT_Class entries.

    >>> pool = bytes([1, 0, 14]) + b"java/util/List" + bytes([7, 0, 1])
    >>> class_names(3, pool)
    ['java/util/List']
    >>> sig = b"(Lp/Node;I)Ljava/util/List<Lp/Page;>;"
    >>> class_names(2, bytes([1, 0, len(sig)]) + sig)
    ['p/Node', 'java/util/List', 'p/Page']
    """
    utf8, classes = _entries(count, data)
    named = [utf8[i] for i in classes if i in utf8]
    # Types a source names only in declarations (a parameter, a local's generic type) appear in
    # descriptors and signatures, not as CONSTANT_Class entries.
    seen = set(named)
    for text in utf8.values():
        for m in _DESCRIBED.finditer(text):
            if m.group(1) not in seen:
                seen.add(m.group(1))
                named.append(m.group(1))
    return named


def utf8_entries(count: int, data: bytes) -> dict[int, str]:
    """The pool's Utf8 entries by index (what annotations' bytes refer to).

    >>> utf8_entries(3, bytes([1, 0, 1]) + b"a" + bytes([7, 0, 1]))
    {1: 'a'}
    """
    return _entries(count, data)[0]


def _entries(count: int, data: bytes) -> tuple[dict[int, str], list[int]]:
    """Utf8 entries by index, and the Utf8 indexes the CONSTANT_Class entries name."""
    utf8: dict[int, str] = {}
    classes: list[int] = []
    index, at = 1, 0
    while index < count and at < len(data):
        tag = data[at]
        at += 1
        if tag == _UTF8:
            (length,) = struct.unpack_from(">H", data, at)
            utf8[index] = data[at + 2:at + 2 + length].decode("utf-8", "replace")
            at += 2 + length
        elif tag in _SIZES:
            if tag == _CLASS:
                classes.append(struct.unpack_from(">H", data, at)[0])
            at += _SIZES[tag]
        else:  # a tag this reader does not know: what it read so far stands
            break
        index += 2 if tag in (_LONG, _DOUBLE) else 1
    return utf8, classes


def imported_named(names: list[str], simple: str) -> list[str]:
    """Signatures of the pool's classes whose simple name is ``simple`` (a nested class by its own
    name too: ``Outer$Inner`` answers ``Inner``).

    >>> imported_named(["java/util/List", "p/Page", "p/Doc$Node", "[Lp/Page;"], "Node")
    ['Lp/Doc$Node;']
    """
    out = []
    for name in names:
        if name.startswith("["):
            continue
        if name.rsplit("/", 1)[-1].rsplit("$", 1)[-1] == simple:
            out.append(f"L{name};")
    return out
