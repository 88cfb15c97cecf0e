"""The evaluator's exceptions: what went wrong, where (a 1-based column), and in which text.

>>> err = ExpressionError("';' expected", column=3, text="a b")
>>> print(err)
';' expected (column 3)
    a b
      ^
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jdwpd.expr.access import Value

__all__ = ["ExpressionError", "EvaluationError", "InvocationException"]


class ExpressionError(Exception):
    """A syntax or type error in an expression, or an expression the evaluator refuses.

    ``message`` is for the user; ``column`` (1-based, or None when unknown) points into ``text``,
    the expression (or the whole template) the error is about. ``str(err)`` shows the message,
    the text and a caret under the column.
    """

    def __init__(self, message: str, column: int | None = None, text: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.text = text

    def locate(self, column: int | None, text: str | None) -> ExpressionError:
        """Fill in the column and text where the raiser (e.g. a ValueAccess) could not; return self."""
        if self.column is None:
            self.column = column
        if self.text is None:
            self.text = text
        return self

    def __str__(self) -> str:
        if self.column is None:
            return self.message if self.text is None else f"{self.message}\n    {self.text}"
        head = f"{self.message} (column {self.column})"
        if self.text is None:
            return head
        # A caret under the column: tabs stay tabs so that the caret lines up in a terminal.
        pad = "".join("\t" if ch == "\t" else " " for ch in self.text[: self.column - 1])
        return f"{head}\n    {self.text}\n    {pad}^"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, column={self.column!r})"


class EvaluationError(ExpressionError):
    """A failure while evaluating: what Java would throw (``java_exception`` names it, e.g.
    ``java.lang.NullPointerException``, and the message starts with its simple name), or a name
    that does not resolve in the frame (``java_exception`` None).

    >>> str(EvaluationError("ArithmeticException: / by zero", column=3,
    ...                     java_exception="java.lang.ArithmeticException")).splitlines()[0]
    'ArithmeticException: / by zero (column 3)'
    """

    def __init__(
        self,
        message: str,
        column: int | None = None,
        text: str | None = None,
        *,
        java_exception: str | None = None,
    ) -> None:
        super().__init__(message, column, text)
        self.java_exception = java_exception


class InvocationException(EvaluationError):
    """A method invoked in the VM threw: ``exception`` is the thrown object (a VM reference).

    A ValueAccess raises it from ``invoke``; the evaluator adds the column of the call.
    """

    def __init__(
        self,
        message: str,
        exception: Value,
        column: int | None = None,
        text: str | None = None,
        *,
        java_exception: str | None = None,
    ) -> None:
        super().__init__(message, column, text, java_exception=java_exception)
        self.exception = exception
