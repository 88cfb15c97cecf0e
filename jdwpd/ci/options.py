"""What `jdwpd ci` is asked to do: probes, limits, redaction, output, from flags and a TOML file.

Everything is checked before the command starts (locations and expressions parse, the output folder
can be written, durations are durations): a CI user learns of a typo in one line, not after a
forty-minute build.
"""

from __future__ import annotations

import argparse
import os
import re
import tomllib
from pathlib import Path

import attrs

from jdwpd.api.views import Limits
from jdwpd.usage import UsageError

from .args import DEFAULT_REDACT_NAMES
from .args import duration as _flag_duration


def duration(text: str) -> float:
    """A duration from the TOML file: one line on error, as for a flag."""
    try:
        return _flag_duration(text)
    except argparse.ArgumentTypeError as e:
        raise UsageError(f"--config: {e}") from None


#: Hits a probe takes per VM unless told otherwise (--max-hits, or LOC#N per probe): the first N.
DEFAULT_CAP = 50
LOGPOINT_CAP = 1000


@attrs.frozen
class Probe:
    """One thing to watch for in every selected VM.

    kind: "snapshot" | "logpoint" | "assert" | "throw" | "uncaught" | "test-failure".
    """

    kind: str
    location: str | None = None  # for snapshot, logpoint, assert
    expression: str | None = None  # snapshot's condition, logpoint's template, assertion's expression
    exception: str | None = None  # for throw
    max_hits: int | None = None

    def describe(self) -> str:
        return self._describe() + (f" (at most {self.max_hits} hits)" if self.max_hits is not None else "")

    def _describe(self) -> str:
        if self.kind == "snapshot":
            return f"snapshot {self.location}" + (f" if {self.expression}" if self.expression else "")
        if self.kind == "logpoint":
            return f"logpoint {self.location}: {self.expression}"
        if self.kind == "assert":
            return f"assert {self.location}: {self.expression}"
        if self.kind == "throw":
            return f"throw of {self.exception}"
        return self.kind


@attrs.frozen
class Settings:
    command: tuple[str, ...]
    out: Path
    probes: tuple[Probe, ...]
    timeout: float | None = None
    grace: float = 10.0
    select: tuple[tuple[str, str], ...] = ()
    max_hits: int | None = None  # None: DEFAULT_CAP, LOGPOINT_CAP for logpoints
    cpu_quota: float | None = None  # None: no quota (the job's own time limit is the budget)
    expire: float | None = None
    fail_on: frozenset[str] = frozenset()
    redact_names: tuple[str, ...] = DEFAULT_REDACT_NAMES  # runs of words (evidence.Redactor)
    redact_patterns: tuple[str, ...] = ()  # the user's regular expressions
    redact_values: tuple[str, ...] = ()
    limits: Limits = Limits()  # the API's defaults, [limits] in the TOML changes them
    profile: str | None = None
    junit_dirs: tuple[Path, ...] = ()
    junit_dirs_default: bool = True  # no --junit-reports: modules' report folders are looked for too


def split_location(text: str, what: str) -> tuple[str, str]:
    """'File.java:42:rest' or 'pkg.Cls.method:rest' -> (location, rest): the location ends at the
    first ':' after a line number, else at the first ':'."""
    m = re.match(r"^([^:]+:\d+):(.*)$", text, re.S) or re.match(r"^([^:]+):(.*)$", text, re.S)
    if not m or not m.group(2).strip():
        raise UsageError(f"{what} '{text}': expected LOCATION:TEXT, e.g. Cart.java:40:items={{items.size()}}")
    return m.group(1), m.group(2)


def _check_location(text: str, what: str) -> None:
    from jdwpd.api.locations import parse_location

    try:
        parse_location(text)
    except Exception as e:  # the API's LocationError: one line
        raise UsageError(f"{what}: {e}") from None


def _check_expression(text: str, what: str, *, template: bool = False) -> None:
    """It parses, and calls no method: `jdwpd ci` never runs code of the program under test for
    a probe (a call could change what the tests see, or hang them); the String methods the
    evaluator runs itself (length(), equals(x), ...) are allowed."""
    from jdwpd import expr
    from jdwpd.expr.tree import MethodCall, walk

    try:
        parts = expr.parse_template(text).expressions if template else (expr.parse(text),)
    except expr.ExpressionError as e:
        raise UsageError(f"{what}: {e.message} at column {e.column} of '{text}'") from None
    for part in parts:
        call = next((n for n in walk(part.tree) if isinstance(n, MethodCall) and not n.intrinsic), None) \
            if part.needs_invoke else None
        if call is not None:
            raise UsageError(f"{what}: '{call.name}(...)' is a method call, which jdwpd ci does not make in the "
                             f"program under test; read fields and locals instead ('{text}')")


_CAP = re.compile(r"#(\d+)(?=$|[:@])")


def take_cap(text: str, what: str) -> tuple[str, int | None]:
    """'Foo.java:42#5@cond' -> ('Foo.java:42@cond', 5): a probe's own hit cap, written after its
    location (a location never holds '#')."""
    m = _CAP.search(text)
    if m is None or any(c in text[:m.start()] for c in "@{"):
        return text, None
    n = int(m.group(1))
    if n < 1:
        raise UsageError(f"{what} '{text}': a hit cap (#N after the location) must be at least 1")
    return text[:m.start()] + text[m.end():], n


def snapshot_probe(text: str) -> Probe:
    text, cap = take_cap(text, "--snapshot")
    location, _, condition = text.partition("@")
    _check_location(location, "--snapshot")
    if condition:
        _check_expression(condition, f"--snapshot {location} condition")
    return Probe("snapshot", location=location, expression=condition or None, max_hits=cap)


def logpoint_probe(text: str) -> Probe:
    text, cap = take_cap(text, "--logpoint")
    location, template = split_location(text, "--logpoint")
    _check_location(location, "--logpoint")
    _check_expression(template, f"--logpoint {location}", template=True)
    return Probe("logpoint", location=location, expression=template, max_hits=cap)


def assert_probe(text: str) -> Probe:
    text, cap = take_cap(text, "--assert")
    location, expression = split_location(text, "--assert")
    _check_location(location, "--assert")
    _check_expression(expression, f"--assert {location}")
    return Probe("assert", location=location, expression=expression, max_hits=cap)


def _from_config(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise UsageError(f"--config {path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"--config {path}: {e}") from None


_CONFIG_KEYS = {"out", "snapshot", "logpoint", "assert", "on_uncaught", "on_throw", "on_test_failure", "on_timeout",
                "grace", "select", "max_hits", "cpu_quota", "expire", "fail_on", "redact", "redact_value", "profile",
                "limits", "default_redact", "junit_reports"}
# [limits] offers the API's Limits but fields (docs/ci.md)
_LIMIT_KEYS = frozenset(attrs.fields_dict(Limits)) - {"fields"}


def settings_from(args: argparse.Namespace) -> Settings:
    config = _from_config(args.config) if args.config else {}
    unknown = set(config) - _CONFIG_KEYS
    if unknown:
        raise UsageError(f"--config {args.config}: unknown key(s) {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted(_CONFIG_KEYS))})")

    def listed(key: str, flag: list) -> list:
        value = config.get(key, [])
        return [*(value if isinstance(value, list) else [value]), *flag]

    command = list(args.ci_command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise UsageError("ci needs a command after '--', e.g. jdwpd ci --on-uncaught -- mvn -B test")
    probes: list[Probe] = []
    probes += [snapshot_probe(t) for t in listed("snapshot", args.snapshot)]
    probes += [logpoint_probe(t) for t in listed("logpoint", args.logpoint)]
    probes += [assert_probe(t) for t in listed("assert", args.asserts)]
    if args.on_uncaught or config.get("on_uncaught"):
        probes.append(Probe("uncaught"))
    for cls in listed("on_throw", args.on_throw):
        if not re.fullmatch(r"[\w$]+(\.[\w$]+)*", cls):
            raise UsageError(f"--on-throw: '{cls}' is not a class name")
        probes.append(Probe("throw", exception=cls))
    if args.on_test_failure or config.get("on_test_failure"):
        probes.append(Probe("test-failure"))
    timeout = args.on_timeout if args.on_timeout is not None else (
        duration(config["on_timeout"]) if "on_timeout" in config else None)
    select = []
    for item in listed("select", args.select):
        label, sep, value = item.partition("=")
        if not sep or label not in ("main", "pid", "ppid", "cwd", "argv", "test"):
            raise UsageError(f"--select '{item}': expected LABEL=VALUE with LABEL one of main, pid, ppid, cwd, argv, "
                             "test")
        select.append((label, value))
    out = Path(args.out if args.out != "jdwpd-ci" or "out" not in config else config["out"])
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe_file = out / ".jdwpd-write-test"
        probe_file.write_text("")
        probe_file.unlink()
    except OSError as e:
        raise UsageError(f"--out {out}: cannot write there: {e.strerror}") from None
    for pattern in [*listed("redact", args.redact), *listed("redact_value", args.redact_value)]:
        try:
            re.compile(pattern)
        except re.error as e:
            raise UsageError(f"--redact '{pattern}': {e}") from None
    for item in listed("fail_on", []):
        if item not in ("assert", "exception", "probe"):
            raise UsageError(f"--config: fail_on '{item}': expected assert, exception or probe")
    limits = config.get("limits", {})
    if set(limits) - _LIMIT_KEYS:
        raise UsageError(f"--config: unknown limits {', '.join(sorted(set(limits) - _LIMIT_KEYS))}")
    max_hits = args.max_hits if args.max_hits is not None else config.get("max_hits")
    if max_hits is not None and (not isinstance(max_hits, int) or max_hits < 1):
        raise UsageError("--max-hits must be a whole number, at least 1")
    cpu_quota = args.cpu_quota if args.cpu_quota is not None else config.get("cpu_quota")
    if cpu_quota is not None:
        cpu_quota = _quota(str(cpu_quota))
    junit = [Path(d) for d in listed("junit_reports", args.junit_reports)] or [
        Path(os.getcwd()) / "target" / "surefire-reports", Path(os.getcwd()) / "build" / "test-results"]
    return Settings(
        command=tuple(command), out=out, probes=tuple(probes), timeout=timeout,
        grace=args.grace if args.grace != 10.0 else duration(config.get("grace", "10s")),
        select=tuple(select), max_hits=max_hits, cpu_quota=cpu_quota,
        expire=args.expire if args.expire is not None else (duration(config["expire"]) if "expire" in config else None),
        fail_on=frozenset(listed("fail_on", args.fail_on)),
        redact_names=() if args.no_default_redact or config.get("default_redact") is False else DEFAULT_REDACT_NAMES,
        redact_patterns=tuple(listed("redact", args.redact)),
        redact_values=tuple(listed("redact_value", args.redact_value)),
        profile=args.profile or config.get("profile"), junit_dirs=tuple(junit),
        junit_dirs_default=not listed("junit_reports", args.junit_reports),
        limits=Limits(**{k: int(v) for k, v in limits.items()}))


def _quota(text: str) -> float:
    """'1%' or '0.01': a share of one CPU."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise UsageError(f"--cpu-quota '{text}': expected a share of one CPU, e.g. 1% or 0.01")
    return value


def cheapest_profile(probes: tuple[Probe, ...], timeout: float | None) -> str:
    """The agent's profile: exception events cost compiled code at every throw (docs/profiles.md), so
    only probes on exceptions pay for them; breakpoints, and the locals of a hang's frames, need
    `nothrow`; with no probe at all, `inspect` costs nothing."""
    kinds = {p.kind for p in probes}
    if kinds & {"uncaught", "throw", "test-failure"}:
        return "full"
    if kinds & {"snapshot", "logpoint", "assert"} or timeout is not None:
        return "nothrow"
    return "inspect"
