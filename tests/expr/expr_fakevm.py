"""An in-memory VM for the evaluator's tests: Python objects stand in for Java objects.

Handles are ints into ``FakeVM.heap``; strings of the VM are heap entries too (so that the
evaluator's own strings, which are Python ``str`` data, stay distinguishable). Every call the
evaluator makes is counted in ``FakeFrame.calls`` so that tests can assert that no method ran.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from jdwpd.expr import NULL, STRING, EvaluationError, InvocationException, Value

OBJECT = "Ljava/lang/Object;"
INTEGER = "Ljava/lang/Integer;"

Method = Callable[["FakeFrame", Value, list[Value]], Value]


@attrs.define(eq=False)
class Obj:
    signature: str
    fields: dict[str, Value] = attrs.Factory(dict)


@attrs.define(eq=False)
class Arr:
    signature: str
    elements: list[Value]


@attrs.define(eq=False)
class Str:
    text: str


@attrs.define
class FakeVM:
    """Classes by source name, their supertypes, static fields and methods, and a heap."""

    classes: dict[str, str] = attrs.Factory(dict)
    supertypes: dict[str, set[str]] = attrs.Factory(dict)
    statics: dict[str, dict[str, Value]] = attrs.Factory(dict)
    methods: dict[tuple[str, str], Method] = attrs.Factory(dict)
    heap: dict[int, Any] = attrs.Factory(dict)

    def __attrs_post_init__(self) -> None:
        for name in ("String", "Object", "Integer", "Long", "Double", "Boolean", "Character", "Math",
                     "CharSequence", "Comparable", "Number", "Float", "Short", "Byte"):
            self.define(f"java.lang.{name}", simple=name)
        self.supertypes[STRING] |= {"Ljava/lang/CharSequence;", "Ljava/lang/Comparable;"}
        for box in ("Integer", "Long", "Double", "Float", "Short", "Byte"):
            self.supertypes[f"Ljava/lang/{box};"].add("Ljava/lang/Number;")
        self.statics["Ljava/lang/Math;"] = {"PI": Value("D", 3.141592653589793)}
        self.statics[INTEGER] = {"MAX_VALUE": Value("I", 2**31 - 1), "MIN_VALUE": Value("I", -(2**31))}
        self.methods[("Ljava/lang/Math;", "abs")] = lambda f, t, a: Value(a[0].signature, abs(a[0].data))
        self.methods[("Ljava/lang/Math;", "max")] = lambda f, t, a: Value(a[0].signature, max(a[0].data, a[1].data))

    def define(self, name: str, *, simple: str | None = None, supers: tuple[str, ...] = ()) -> str:
        """Declare a class named ``name`` (dotted; nested classes with '$' in the binary name)."""
        signature = "L" + name.replace(".", "/") + ";"
        source = name.replace("$", ".")
        self.classes[source] = signature
        if simple:
            self.classes[simple] = signature
        self.supertypes[signature] = {signature, OBJECT, *supers}
        return signature

    def new(self, thing: Any) -> Value:
        handle = len(self.heap) + 1
        self.heap[handle] = thing
        signature = STRING if isinstance(thing, Str) else thing.signature
        return Value(signature, handle)

    def obj(self, signature: str, **fields: Value) -> Value:
        return self.new(Obj(signature, dict(fields)))

    def string(self, text: str) -> Value:
        return self.new(Str(text))

    def array(self, signature: str, elements: list[Value]) -> Value:
        return self.new(Arr(signature, elements))

    def box(self, primitive: str, data: Any) -> Value:
        from jdwpd.expr.types import UNBOXED

        return self.obj(UNBOXED[primitive], value=Value(primitive, data))


@attrs.define
class FakeFrame:
    """A ValueAccess over a FakeVM: a frame with locals and maybe ``this``."""

    vm: FakeVM
    locals: dict[str, Value] = attrs.Factory(dict)
    this_value: Value | None = None
    calls: list[tuple[str, ...]] = attrs.Factory(list)

    def _deref(self, value: Value) -> Any:
        assert not value.is_null and not value.is_primitive and not isinstance(value.data, str), value
        return self.vm.heap[value.data]

    async def local(self, name: str) -> Value | None:
        self.calls.append(("local", name))
        return self.locals.get(name)

    async def this(self) -> Value | None:
        self.calls.append(("this",))
        return self.this_value

    async def field(self, obj: Value, name: str) -> Value | None:
        self.calls.append(("field", name))
        thing = self._deref(obj)
        if isinstance(thing, Obj) and name in thing.fields:
            return thing.fields[name]
        return self.vm.statics.get(obj.signature, {}).get(name)

    async def static_field(self, class_signature: str, name: str) -> Value | None:
        self.calls.append(("static_field", name))
        return self.vm.statics.get(class_signature, {}).get(name)

    async def find_class(self, name: str) -> str | None:
        self.calls.append(("find_class", name))
        return self.vm.classes.get(name)

    async def array_length(self, array: Value) -> int:
        self.calls.append(("array_length",))
        return len(self._deref(array).elements)

    async def array_element(self, array: Value, index: int) -> Value:
        self.calls.append(("array_element", str(index)))
        return self._deref(array).elements[index]

    async def string_text(self, string: Value) -> str:
        self.calls.append(("string_text",))
        return self._deref(string).text

    async def is_instance(self, value: Value, type_signature: str) -> bool:
        self.calls.append(("is_instance", type_signature))
        thing = self._deref(value)
        runtime = STRING if isinstance(thing, Str) else thing.signature  # the real class, not the declared one
        if runtime.startswith("["):
            return type_signature in (runtime, OBJECT)
        return type_signature in self.vm.supertypes.get(runtime, {runtime, OBJECT})

    async def invoke(self, target: Value | str, name: str, args: list[Value]) -> Value:
        self.calls.append(("invoke", name))
        signature = target if isinstance(target, str) else target.signature
        method = self.vm.methods.get((signature, name))
        if method is None and not isinstance(target, str):
            for sup in self.vm.supertypes.get(signature, ()):
                method = self.vm.methods.get((sup, name))
                if method:
                    break
        if method is None:
            raise EvaluationError(f"no method {name} with {len(args)} arguments in {signature}")
        return method(self, target, args)  # type: ignore[arg-type]

    @property
    def invoked(self) -> list[str]:
        return [call[1] for call in self.calls if call[0] == "invoke"]

    def text(self, value: Value) -> str:
        """A string result's text, whoever made it."""
        return value.data if isinstance(value.data, str) else self.vm.heap[value.data].text

    def throw(self, exception_class: str, message: str) -> InvocationException:
        exc = self.vm.obj(exception_class, message=self.vm.string(message))
        return InvocationException(f"{exception_class[1:-1].replace('/', '.')}: {message}", exc)


def shop() -> tuple[FakeVM, FakeFrame]:
    """The example of issue 19: a Checkout frame with ``order`` (id, total, items) and ``amount``."""
    vm = FakeVM()
    order_sig = vm.define("shop.Order")
    vm.define("shop.Checkout")
    line_sig = vm.define("shop.Order$Line")
    list_sig = vm.define("java.util.ArrayList", supers=("Ljava/util/List;",))
    vm.define("java.util.List", simple=None)
    vm.classes["List"] = "Ljava/util/List;"
    # Simple names resolve relative to the frame's package (shop), as find_class promises.
    vm.classes["Order"], vm.classes["Order.Line"] = order_sig, line_sig
    vm.statics[order_sig] = {"MAX_ITEMS": Value("I", 50)}
    vm.statics[line_sig] = {"UNIT": vm.string("pcs")}
    items = vm.obj(list_sig, elements=vm.array("[Ljava/lang/Object;", [vm.string("apple"), vm.string("pear")]))
    vm.methods[(list_sig, "size")] = lambda f, t, a: Value("I", len(f._deref(f._deref(t).fields["elements"]).elements))
    vm.methods[(order_sig, "toString")] = lambda f, t, a: f.vm.string(f"Order#{f.text(f._deref(t).fields['id'])}")
    vm.methods[(order_sig, "fail")] = lambda f, t, a: (_ for _ in ()).throw(
        f.throw("Ljava/lang/IllegalStateException;", "closed"))
    vm.methods[(order_sig, "discount")] = lambda f, t, a: Value("D", 0.5 * a[0].data)
    vm.methods[(order_sig, "label")] = lambda f, t, a: f.vm.string("L")
    vm.methods[(order_sig, "nothing")] = lambda f, t, a: Value(NULL, None)
    order = vm.obj(order_sig, id=vm.string("A-17"), total=Value("D", 250.0), items=items,
                   count=vm.box("I", 3), lines=vm.array("[I", [Value("I", v) for v in (10, 20, 30)]),
                   next=Value(NULL, None), flag=vm.box("Z", True), letter=Value("C", ord("x")))
    checkout = vm.obj("Lshop/Checkout;", order=order, limit=Value("J", 100), name=vm.string("cart"))
    vm.methods[("Lshop/Checkout;", "describe")] = lambda f, t, a: f.vm.string("checkout")
    frame = FakeFrame(vm, {"order": order, "amount": Value("I", 1200), "i": Value("I", 3), "s": vm.string("hello"),
                           "none": Value(NULL, None), "obj": vm.string("as object")}, this_value=checkout)
    # ``obj`` is a String the frame declares as Object.
    frame.locals["obj"] = Value(OBJECT, frame.locals["obj"].data)
    return vm, frame
