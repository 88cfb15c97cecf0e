"""Where a method's bytecode returns: the code indexes of its return instructions.

JDWP's Method.Bytecodes gives the code as the class file holds it; walking it needs each
instruction's length (JVMS 6.5): fixed for most, padded tables for the two switches, doubled
operands after ``wide``.
"""

from __future__ import annotations

import struct

_RETURNS = frozenset(range(0xAC, 0xB2))  # ireturn .. return
_TABLESWITCH, _LOOKUPSWITCH, _WIDE, _IINC = 0xAA, 0xAB, 0xC4, 0x84


def _fixed_lengths() -> list[int]:
    lengths = [1] * 256
    for op in (0x10, 0x12, 0xA9, 0xBC):  # bipush ldc ret newarray
        lengths[op] = 2
    for op in range(0x15, 0x1A):  # iload .. aload
        lengths[op] = 2
    for op in range(0x36, 0x3B):  # istore .. astore
        lengths[op] = 2
    for op in (0x11, 0x13, 0x14, 0x84, 0xBB, 0xBD, 0xC0, 0xC1, 0xC6, 0xC7):  # sipush ldc_w ldc2_w iinc new ...
        lengths[op] = 3
    for op in range(0x99, 0xA9):  # ifeq .. jsr
        lengths[op] = 3
    for op in range(0xB2, 0xB9):  # getstatic .. invokestatic
        lengths[op] = 3
    lengths[0xC5] = 4  # multianewarray
    for op in (0xB9, 0xBA, 0xC8, 0xC9):  # invokeinterface invokedynamic goto_w jsr_w
        lengths[op] = 5
    return lengths


_LENGTHS = _fixed_lengths()


def return_indexes(code: bytes) -> list[int]:
    """Code indexes of the return instructions in ``code`` (a method's bytecode).

    >>> return_indexes(bytes([0x1A, 0x04, 0x60, 0xAC]))   # iload_0 iconst_1 iadd ireturn
    [3]
    >>> switch = bytes([0x00, 0xAA, 0, 0]) + bytes([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 7])
    >>> return_indexes(switch + bytes([0xB1]))   # nop, a tableswitch padded to 4, return
    [20]
    """
    out = []
    at = 0
    while at < len(code):
        op = code[at]
        if op in _RETURNS:
            out.append(at)
        if op in (_TABLESWITCH, _LOOKUPSWITCH):
            base = at + 1 + (-(at + 1) % 4)
            if op == _TABLESWITCH:
                low, high = struct.unpack_from(">ii", code, base + 4)
                at = base + 12 + 4 * (high - low + 1)
            else:
                (pairs,) = struct.unpack_from(">i", code, base + 4)
                at = base + 8 + 8 * pairs
        elif op == _WIDE:
            at += 6 if at + 1 < len(code) and code[at + 1] == _IINC else 4
        else:
            at += _LENGTHS[op]
    return out
