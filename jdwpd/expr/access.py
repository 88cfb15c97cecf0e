"""What the Java expression evaluator needs from a debugged VM, and the values it passes around.

The evaluator is pure: it parses, type-checks and interprets, and reaches the VM only through a
``ValueAccess``. The Python API implements one over JDWP (against any server); tests implement one
over plain Python data. A back end that compiles for the agent (in-agent conditions) uses the same
parse tree and type rules, not this protocol.

Values carry their Java type as a JNI signature so that the evaluator can apply Java's rules
(numeric promotion, string concatenation, ``==`` on references) without asking the VM.
"""

from __future__ import annotations

from typing import Protocol

import attrs

#: The signature of java.lang.String, the one reference type the evaluator knows by content.
STRING = "Ljava/lang/String;"
#: The type of the ``null`` literal (no JNI signature names it).
NULL = "null"


@attrs.frozen
class Value:
    """A Java value during evaluation.

    ``signature`` is the JNI signature of the value's type: ``Z B C S I J F D`` for primitives
    (``V`` for a void method's result), ``L...;`` or ``[...`` for an object (its runtime class
    where known, else its declared type), ``NULL`` for null.

    ``data`` is, for primitives, a Python ``bool``/``int``/``float`` (``C``: an ``int`` code unit);
    for ``null``, ``None``; for a string made by the evaluator (a literal or a concatenation), a
    Python ``str`` with ``signature == STRING``; for any object of the VM, an opaque handle that
    only the ``ValueAccess`` that produced it understands (a VM string's handle included).

    The evaluator tells its own strings from the VM's by ``isinstance(data, str)``, so a handle
    must never be a ``str``. A null the VM reports has ``signature == NULL`` whatever its declared
    type (so a null ``Integer`` in arithmetic is a NullPointerException, as in Java).
    """

    signature: str
    data: object

    @property
    def is_primitive(self) -> bool:
        return len(self.signature) == 1

    @property
    def is_null(self) -> bool:
        return self.signature == NULL


class ValueAccess(Protocol):
    """The frame an expression is evaluated in, and the VM around it. Every method may raise
    ``jdwpd.expr.EvaluationError`` (or a subclass) with a message for the user."""

    async def local(self, name: str) -> Value | None:
        """The local variable or argument ``name`` visible at the frame's location; None if none."""

    async def this(self) -> Value | None:
        """``this`` of the frame; None in a static method."""

    async def field(self, obj: Value, name: str) -> Value | None:
        """Instance or static field ``name`` of ``obj``'s runtime class or its supertypes; None if none."""

    async def static_field(self, class_signature: str, name: str) -> Value | None:
        """Static field ``name`` of the class (or its supertypes); None if none."""

    async def find_class(self, name: str) -> str | None:
        """The signature of a loaded class or interface named ``name`` as written in source
        (``java.util.List``, ``Order``, ``Outer.Inner``; a simple name is looked up relative to the
        frame's class and package, then ``java.lang``); None if no such class is loaded."""

    async def array_length(self, array: Value) -> int:
        """The length of a non-null array."""

    async def array_element(self, array: Value, index: int) -> Value:
        """Element ``index`` (already checked against the length) of a non-null array."""

    async def string_text(self, string: Value) -> str:
        """The text of a non-null ``java.lang.String`` held by the VM."""

    async def is_instance(self, value: Value, type_signature: str) -> bool:
        """Whether a non-null object is an instance of the type (its class, superclasses, interfaces)."""

    async def invoke(self, target: Value | str, name: str, args: list[Value]) -> Value:
        """Call a method: ``target`` is an object (instance call, virtual dispatch) or a class
        signature (static call). The method is chosen by name, arity and Java's applicability
        rules on the arguments' signatures. Evaluator-made strings in ``args`` are passed as text
        and made VM strings by the access; so is an evaluator-made string as ``target``
        (``"abc".toUpperCase()``). An exception thrown by the method raises
        ``jdwpd.expr.InvocationException`` naming it."""
