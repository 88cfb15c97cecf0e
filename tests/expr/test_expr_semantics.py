"""The interpreter's Java semantics over the in-memory VM of expr_fakevm."""

from __future__ import annotations

import math

import pytest
from expr_fakevm import OBJECT, FakeFrame, FakeVM, shop

from jdwpd.expr import NULL, STRING, EvaluationError, ExpressionError, InvocationException, Value, evaluate, parse

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


async def value_of(text: str, frame: FakeFrame | None = None, **kwargs) -> Value:
    if frame is None:
        frame = FakeFrame(FakeVM())
    return await evaluate(text, frame, **kwargs)


async def text_of(text: str, frame: FakeFrame | None = None, **kwargs) -> str:
    frame = frame or FakeFrame(FakeVM())
    value = await evaluate(text, frame, **kwargs)
    assert value.signature == STRING, value
    return frame.text(value)


@pytest.mark.parametrize(
    "text, signature, data",
    [
        # int and long arithmetic wraps at 32/64 bits
        ("2147483647 + 1", "I", INT_MIN), ("-2147483648 - 1", "I", INT_MAX), ("65536 * 65536", "I", 0),
        ("46341 * 46341", "I", -2147479015), ("9223372036854775807L + 1", "J", LONG_MIN),
        ("2147483647 + 1L", "J", 2**31), ("-(-2147483648)", "I", INT_MIN), ("~0", "I", -1), ("~5L", "J", -6),
        # division and remainder truncate toward zero
        ("7 / 2", "I", 3), ("-7 / 2", "I", -3), ("7 / -2", "I", -3), ("-7 / -2", "I", 3),
        ("7 % 3", "I", 1), ("-7 % 3", "I", -1), ("7 % -3", "I", 1), ("-7 % -3", "I", -1),
        ("-2147483648 / -1", "I", INT_MIN), ("-2147483648 % -1", "I", 0),
        ("-9223372036854775808L / -1", "J", LONG_MIN),
        # shifts mask the count; the left operand's type decides
        ("1 << 32", "I", 1), ("1 << 33", "I", 2), ("1L << 32", "J", 2**32), ("1 << -1", "I", INT_MIN),
        ("-16 >> 2", "I", -4), ("-16 >>> 28", "I", 15), ("-1 >>> 0", "I", -1), ("-1L >>> 60", "J", 15),
        ("1 << 2L", "I", 4), ("(byte) -1 >>> 28", "I", 15), ("'a' << 1", "I", 194),
        # bitwise
        ("6 & 3", "I", 2), ("6 | 3", "I", 7), ("6 ^ 3", "I", 5), ("-1 & 0xFFL", "J", 255),
        ("true & false", "Z", False), ("true | false", "Z", True), ("true ^ true", "Z", False),
        # promotion
        ("'a' + 1", "I", 98), ("'a' + 'b'", "I", 195), ("(byte) 1 + (short) 2", "I", 3), ("1 + 2L", "J", 3),
        ("1 + 2.5f", "F", 3.5), ("1 + 2.5", "D", 3.5), ("1L + 0.5f", "F", 1.5), ("-'a'", "I", -97),
        ("+(byte) 3", "I", 3), ("~'a'", "I", -98),
        # floating point
        ("1.0 / 0", "D", math.inf), ("-1.0 / 0", "D", -math.inf), ("1 / -0.0", "D", -math.inf),
        ("0.1 + 0.2", "D", 0.30000000000000004), ("0.1f + 0.2f", "F", 0.30000001192092896),
        ("1.0f / 3", "F", 0.3333333432674408), ("16777216f + 1", "F", 16777216.0),
        ("5.5 % 2", "D", 1.5), ("-5.5 % 2", "D", -1.5), ("5.5 % -2", "D", 1.5), ("1e300 * 1e300", "D", math.inf),
        ("3.4e38f * 10", "F", math.inf), ("1.0 % (1.0 / 0)", "D", 1.0),
        # comparisons
        ("1 < 2", "Z", True), ("2 <= 2", "Z", True), ("3 > 4", "Z", False), ("'b' > 'a'", "Z", True),
        ("1 == 1.0", "Z", True), ("0.1f == 0.1", "Z", False), ("-0.0 == 0.0", "Z", True),
        ("true == false", "Z", False), ("true != false", "Z", True), ("null == null", "Z", True),
        ("2147483647 + 1 < 0", "Z", True),
        # logic and the conditional
        ("!true", "Z", False), ("true && false", "Z", False), ("false || true", "Z", True),
        ("1 > 0 ? 10 : 20", "I", 10), ("1 > 2 ? 10 : 20L", "J", 20), ("true ? 1 : 2.0", "D", 1.0),
        ("true ? (byte) 1 : 2", "B", 1), ("false ? 2 : (char) 65", "C", 65), ("true ? (byte) 1 : (short) 2", "S", 1),
        ("true ? 'a' : 0", "C", 97), ("true ? 'a' : 70000", "I", 97), ("true ? 1 : 2L", "J", 1),
        # casts: Java's narrowing rules
        ("(int) 3.9", "I", 3), ("(int) -3.9", "I", -3), ("(int) (0.0 / 0)", "I", 0), ("(int) 1e20", "I", INT_MAX),
        ("(int) -1e20", "I", INT_MIN), ("(long) 1e20", "J", LONG_MAX), ("(long) (1.0 / 0)", "J", LONG_MAX),
        ("(byte) 200", "B", -56), ("(byte) 128", "B", -128), ("(short) 70000", "S", 4464),
        ("(char) 65", "C", 65), ("(char) -1", "C", 65535), ("(int) (char) -1", "I", 65535),
        ("(byte) 300.7", "B", 44), ("(char) 1e10", "C", 65535), ("(short) -1e10", "S", 0),
        ("(int) 9223372036854775807L", "I", -1), ("(long) 2147483647 * 2", "J", 4294967294),
        ("(float) 0.1", "F", 0.10000000149011612), ("(double) 0.1f", "D", 0.10000000149011612),
        ("(float) 16777217", "F", 16777216.0), ("(float) 9007199791611905L", "F", 9007200328482816.0),
        ("(float) 1e40", "F", math.inf), ("(int) 'x'", "I", 120), ("(boolean) true", "Z", True),
        ("(double) 9007199254740993L", "D", 9007199254740992.0),
    ],
)
async def test_primitive_semantics(text, signature, data):
    value = await value_of(text)
    assert value.signature == signature, (text, value)
    assert value.data == data or (isinstance(data, float) and math.isnan(data) and math.isnan(value.data))
    if isinstance(data, float) and data == 0:
        assert math.copysign(1, value.data) == math.copysign(1, data)


@pytest.mark.parametrize("text", ["0.0 / 0", "0.0f / 0", "5 % 0.0", "(1.0 / 0) % 2", "(0.0 / 0) + 1"])
async def test_nan(text):
    assert math.isnan((await value_of(text)).data)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('"a" + 1', "a1"), ('1 + 2 + "a"', "3a"), ('"a" + 1 + 2', "a12"), ('"a" + (1 + 2)', "a3"),
        ('"" + true', "true"), ('"" + \'c\'', "c"), ('"" + (char) 65', "A"), ('"" + null', "null"),
        ('"" + 1.0', "1.0"), ('"" + 100.0', "100.0"), ('"" + 1e10', "1.0E10"), ('"" + 1e-5', "1.0E-5"),
        ('"" + 1.0f / 3', "0.33333334"), ('"" + 1.0 / 3', "0.3333333333333333"), ('"" + 0.001', "0.001"),
        ('"" + 1e7', "1.0E7"), ('"" + 9999999.0', "9999999.0"), ('"" + 0.0001', "1.0E-4"),
        ('"" + 123456789.0f', "1.2345679E8"), ('"" + 1e-3f', "0.001"), ('"" + 0.1f', "0.1"),
        ('"" + (0.0 / 0)', "NaN"), ('"" + (1.0 / 0)', "Infinity"), ('"" + (-1f / 0)', "-Infinity"),
        ('"" + -0.0', "-0.0"), ('"" + 4.9e-324', "4.9E-324"), ('"" + 1.7976931348623157e308', "1.7976931348623157E308"),
        ('"" + 3.4028235e38f', "3.4028235E38"), ('"" + 1.4e-45f', "1.4E-45"), ('"" + 1234.5678', "1234.5678"),
        ('"" + -2147483648', "-2147483648"), ('"" + 5L', "5"), ('"x" + \'\\u00e9\'', "xé"),
        ('"a" + "b" + \'c\'', "abc"), ("'a' + 'b' + \"\"", "195"),
    ],
)
async def test_string_concatenation_formats_like_string_value_of(text, expected):
    assert await text_of(text) == expected


async def test_issue_19_examples():
    vm, frame = shop()
    assert await value_of("order.items.size() * 2", frame) == Value("I", 4)
    assert await value_of("order.total > 100", frame) == Value("Z", True)
    assert frame.invoked == ["size"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("amount", Value("I", 1200)), ("i * 2 + amount", Value("I", 1206)), ("this.limit", Value("J", 100)),
        ("limit + 1", Value("J", 101)),  # a field of this, unqualified
        ("order.lines[2]", Value("I", 30)), ("order.lines.length", Value("I", 3)),
        ("order.lines[order.lines.length - 1] * 2", Value("I", 60)), ("order.lines[(byte) 1]", Value("I", 20)),
        ("Math.PI > 3", Value("Z", True)), ("java.lang.Math.PI", Value("D", math.pi)),
        ("shop.Order.MAX_ITEMS", Value("I", 50)), ("Order.MAX_ITEMS", Value("I", 50)),
        ("Integer.MAX_VALUE + 1", Value("I", INT_MIN)),
        ("order.count + 1", Value("I", 4)), ("order.count * 2L", Value("J", 6)), ("-order.count", Value("I", -3)),
        ("order.count == 3", Value("Z", True)), ("order.flag && true", Value("Z", True)),
        ("order.flag ? 1 : 2", Value("I", 1)), ("!order.flag", Value("Z", False)),
        ("(int) order.count", Value("I", 3)), ("(long) order.count", Value("J", 3)),
        ("order.letter + 1", Value("I", 121)),
        ("order.next == null", Value("Z", True)), ("order != null", Value("Z", True)),
        ("order == order", Value("Z", True)),
        ("order.next != order", Value("Z", True)), ("none == null", Value("Z", True)),
        ('s == "hello"', Value("Z", False)),  # identity: an evaluator string is a new object
        ("s == s", Value("Z", True)),
        ("s.length()", Value("I", 5)), ("s.isEmpty()", Value("Z", False)), ('"".isEmpty()', Value("Z", True)),
        ("s.charAt(1)", Value("C", ord("e"))), ('s.equals("hello")', Value("Z", True)),
        ('"hello".equals(s)', Value("Z", True)), ("s.equals(null)", Value("Z", False)),
        ("s.equals(1)", Value("Z", False)),
        ("s.equals(order)", Value("Z", False)), ('s.contains("ell")', Value("Z", True)),
        ('s.startsWith("he")', Value("Z", True)), ('s.endsWith("lo")', Value("Z", True)),
        ('obj.equals("as object")', Value("Z", True)), ("obj.length()", Value("I", 9)),
        ('"😀".length()', Value("I", 2)), ('"😀".charAt(1)', Value("C", 0xDE00)),
        ('order.id.equals("A-17") && order.total >= 250', Value("Z", True)),
        ("order instanceof shop.Order", Value("Z", True)), ("order instanceof Object", Value("Z", True)),
        ("order instanceof String", Value("Z", False)), ("none instanceof Object", Value("Z", False)),
        ("obj instanceof String", Value("Z", True)), ('"x" instanceof CharSequence', Value("Z", True)),
        ("order.items instanceof java.util.List", Value("Z", True)), ("order.lines instanceof int[]", Value("Z", True)),
        ("(String) none == null", Value("Z", True)), ("((String) obj).length()", Value("I", 9)),
    ],
)
async def test_frame_values(text, expected):
    vm, frame = shop()
    assert await value_of(text, frame, allow_invoke=False) == expected
    assert frame.invoked == []


async def test_values_of_the_vm_come_back_as_handles():
    vm, frame = shop()
    order = frame.locals["order"]
    assert await value_of("order", frame) == order
    assert await value_of("this", frame) == frame.this_value
    assert await value_of("(Object) order", frame) == order
    assert frame.text(await value_of("Order.Line.UNIT", frame)) == "pcs"  # nested class by its source name
    assert frame.text(await value_of("order.id", frame)) == "A-17"
    assert await value_of('(String) obj + "!"', frame) == Value(STRING, "as object!")


async def test_concatenation_of_objects_calls_to_string_only_when_allowed():
    vm, frame = shop()
    assert await text_of('"o=" + order + ", n=" + order.count + ", " + order.next', frame) == "o=Order#A-17, n=3, null"
    assert frame.invoked == ["toString"]
    with pytest.raises(ExpressionError, match=r"method calls are not allowed here: shop.Order.toString\(\)") as info:
        await value_of('"o=" + order', frame, allow_invoke=False)
    assert info.value.column == 8
    assert await text_of('"n=" + order.count + s', frame, allow_invoke=False) == "n=3hello"


async def test_method_calls():
    vm, frame = shop()
    assert await value_of("order.discount(10)", frame) == Value("D", 5.0)
    assert frame.text(await value_of("describe()", frame)) == "checkout"  # unqualified: on this
    assert await value_of("Math.max(3, 7)", frame) == Value("I", 7)  # static, by class name
    assert await value_of("java.lang.Math.abs(-3)", frame) == Value("I", 3)
    assert frame.text(await value_of("order.label() + order.label()", frame)) == "LL"
    assert await value_of("order.nothing() == null", frame) == Value("Z", True)
    assert frame.invoked == ["discount", "describe", "max", "abs", "label", "label", "nothing"]


async def test_method_calls_refused_when_not_allowed():
    vm, frame = shop()
    with pytest.raises(ExpressionError) as info:
        await value_of("order.items.size() > 1", frame, allow_invoke=False)
    assert info.value.column == 13
    assert "method calls are not allowed here: size() would run code in the VM" in info.value.message
    assert "allow_invoke=True" in info.value.message
    assert not isinstance(info.value, EvaluationError)
    assert frame.invoked == []
    # A String method on something that is not a String becomes a real call.
    with pytest.raises(ExpressionError, match="not allowed"):
        await value_of("order.equals(order)", frame, allow_invoke=False)


async def test_invocation_exception_carries_the_thrown_object():
    vm, frame = shop()
    with pytest.raises(InvocationException) as info:
        await value_of("1 + order.fail()", frame)
    assert info.value.column == 11
    assert info.value.exception.signature == "Ljava/lang/IllegalStateException;"
    assert "IllegalStateException: closed" in info.value.message


async def test_short_circuit_skips_the_other_operand():
    vm, frame = shop()
    assert await value_of("none != null && none.x > 0", frame) == Value("Z", False)
    assert await value_of("none == null || none.x > 0", frame) == Value("Z", True)
    assert await value_of("none == null ? 0 : none.x", frame) == Value("I", 0)
    assert await value_of("false && order.fail()", frame) == Value("Z", False)
    assert frame.invoked == []


@pytest.mark.parametrize(
    "text, message, column, exception",
    [
        ("1 / 0", "ArithmeticException: / by zero", 3, "java.lang.ArithmeticException"),
        ("5L % 0L", "ArithmeticException: / by zero", 4, "java.lang.ArithmeticException"),
        ("order.next.id", 'NullPointerException: Cannot read field "id" because "order.next" is null', 12,
         "java.lang.NullPointerException"),
        ("none.length", 'NullPointerException: Cannot read the array length because "none" is null', 6,
         "java.lang.NullPointerException"),
        ("none.length()", 'NullPointerException: Cannot invoke "length()" because "none" is null', 6,
         "java.lang.NullPointerException"),
        ("order.next.m(1)", 'NullPointerException: Cannot invoke "m()" because "order.next" is null', 12,
         "java.lang.NullPointerException"),
        ("none[0]", 'NullPointerException: Cannot load from object array because "none" is null', 5,
         "java.lang.NullPointerException"),
        ("none + 1", 'NullPointerException: Cannot unbox a null value because "none" is null', 1,
         "java.lang.NullPointerException"),
        ("(int) none", 'NullPointerException: Cannot unbox a null value because "none" is null', 1,
         "java.lang.NullPointerException"),
        ('s.contains(none)', 'NullPointerException: Cannot invoke "String.toString()" because "none" is null', 12,
         "java.lang.NullPointerException"),
        ("order.lines[3]", "ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 3", 12,
         "java.lang.ArrayIndexOutOfBoundsException"),
        ("order.lines[-1]", "ArrayIndexOutOfBoundsException: Index -1 out of bounds for length 3", 12,
         "java.lang.ArrayIndexOutOfBoundsException"),
        ("s.charAt(5)", "StringIndexOutOfBoundsException: index 5, length 5", 3,
         "java.lang.StringIndexOutOfBoundsException"),
        ("(String) order", "ClassCastException: class shop.Order cannot be cast to class String", 1,
         "java.lang.ClassCastException"),
        ("(Integer) s", "ClassCastException: class String cannot be cast to class Integer", 1,
         "java.lang.ClassCastException"),
        ("(shop.Order) \"x\"", "ClassCastException: class String cannot be cast to class shop.Order", 1,
         "java.lang.ClassCastException"),
        ("nosuch + 1", "cannot find symbol: variable nosuch", 1, None),
        ("order.nosuch", "cannot find symbol: variable nosuch in class shop.Order", 7, None),
        ("a.b.c", "cannot find symbol: a.b.c (no variable, field or loaded class of that name)", 5, None),
        ("Math.NOPE", "cannot find symbol: variable NOPE in class Math", 6, None),
        ("nope.Cls.m()", "cannot find symbol: nope.Cls (no variable, field or loaded class of that name)", 6, None),
        ("(Nope) order", "cannot find symbol: class Nope (no loaded class of that name)", 2, None),
        ("order instanceof Nope", "cannot find symbol: class Nope (no loaded class of that name)", 18, None),
        ("order.lines.size", "cannot find symbol: variable size (an array has only length)", 13, None),
    ],
)
async def test_runtime_errors_name_the_java_exception(text, message, column, exception):
    vm, frame = shop()
    with pytest.raises(EvaluationError) as info:
        await value_of(text, frame)
    assert (info.value.message, info.value.column, info.value.java_exception) == (message, column, exception)
    assert info.value.text == text


@pytest.mark.parametrize(
    "text, message, column",
    [
        ('"a" - 1', "bad operand types for binary operator '-' (first type: String, second type: int)", 5),
        ("true + 1", "bad operand types for binary operator '+' (first type: boolean, second type: int)", 6),
        ("order * 2", "bad operand types for binary operator '*' (first type: shop.Order, second type: int)", 7),
        ("1.5 << 1", "bad operand types for binary operator '<<' (first type: double, second type: int)", 5),
        ("1.5 & 1", "bad operand types for binary operator '&' (first type: double, second type: int)", 5),
        ("true < false", "bad operand types for binary operator '<' (first type: boolean, second type: boolean)", 6),
        ("!5", "bad operand type int for unary operator '!'", 1),
        ("-true", "bad operand type boolean for unary operator '-'", 1),
        ("~1.5", "bad operand type double for unary operator '~'", 1),
        ("1 && true", "bad operand types for binary operator '&&' (found int, required boolean)", 1),
        ("false || s", "bad operand types for binary operator '||' (found String, required boolean)", 10),
        ("1 ? 2 : 3", "incompatible types: int cannot be converted to boolean", 1),
        ("1 == true", "incomparable types: int and boolean", 3),
        ("order == 1", "bad operand types for binary operator '==' (first type: shop.Order, second type: int)", 7),
        ("(int) true", "incompatible types: boolean cannot be converted to int", 1),
        ("(boolean) 1", "incompatible types: int cannot be converted to boolean", 1),
        ("(int) s", "incompatible types: String cannot be converted to int", 1),
        ("(Integer) 5", "casting int to Integer would box it, which an expression cannot do (no objects are created)",
         1),
        ("5 instanceof Integer", "unexpected type: required reference, found int", 3),
        ("order.lines[1L]", "incompatible types: possible lossy conversion from long to int", 13),
        ("order.lines[1.0]", "incompatible types: double cannot be converted to int", 13),
        ("amount[0]", "array required, but int found", 7),
        ("amount.x", "int cannot be dereferenced", 8),
        ("amount.m()", "int cannot be dereferenced", 8),
        ("Math", "Math is a class, not a value", 1),
        ("s.startsWith(1)", "incompatible types: int cannot be converted to String", 14),
    ],
)
async def test_type_errors_use_javac_wording(text, message, column):
    vm, frame = shop()
    with pytest.raises(ExpressionError) as info:
        await value_of(text, frame)
    assert (info.value.message, info.value.column) == (message, column)
    assert not isinstance(info.value, EvaluationError), info.value


async def test_static_context():
    vm = FakeVM()
    frame = FakeFrame(vm, {"x": Value("I", 1)})
    with pytest.raises(ExpressionError, match="non-static variable this cannot be referenced from a static context"):
        await value_of("this", frame)
    with pytest.raises(ExpressionError, match=r"cannot call m\(...\) without an object in a static method"):
        await value_of("x + m()", frame)
    assert await value_of("x + 1", frame) == Value("I", 2)


async def test_locals_shadow_fields_and_fields_shadow_classes():
    vm, frame = shop()
    frame.locals["limit"] = Value("I", 7)
    assert await value_of("limit", frame) == Value("I", 7)
    assert await value_of("this.limit", frame) == Value("J", 100)
    frame.locals["Math"] = Value("I", 1)
    assert await value_of("Math + 1", frame) == Value("I", 2)


async def test_errors_from_the_access_get_the_column():
    class Broken(FakeFrame):
        async def local(self, name: str):
            raise EvaluationError("the VM is gone")

    frame = Broken(FakeVM())
    with pytest.raises(EvaluationError) as info:
        await value_of("1 + x", frame)
    assert (info.value.message, info.value.column, info.value.text) == ("the VM is gone", 5, "1 + x")


async def test_evaluate_takes_a_parsed_expression_and_reads_this_once():
    vm, frame = shop()
    expression = parse("limit + limit + name.length()")
    assert await evaluate(expression, frame) == Value("J", 204)
    assert frame.calls.count(("this",)) == 1


async def test_deep_but_allowed_trees_evaluate():
    assert await value_of(" + ".join(["1"] * 190)) == Value("I", 190)
    assert await value_of("(" * 150 + "1" + ")" * 150) == Value("I", 1)
    assert await value_of("- " * 99 + "1") == Value("I", -1)


async def test_a_cast_to_a_final_class_gives_the_value_that_type():
    vm, frame = shop()
    frame.locals["boxed"] = Value(OBJECT, vm.box("I", 41).data)
    assert await value_of("(Integer) boxed + 1", frame) == Value("I", 42)
    frame.locals["nil"] = Value(NULL, None)
    assert await value_of("(Integer) nil", frame) == Value(NULL, None)
