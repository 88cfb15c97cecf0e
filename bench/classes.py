"""AllClasses, then the methods and line tables of 500 classes: what an IDE asks on attach.

Cold: the first debugger session.  Warm: a second session on the same VM; jdwpd keeps
its class cache across sessions, the reference forgets everything on detach.
"""

from __future__ import annotations

import re

import trio

from jdwpd.testing import debuggees
from jdwpd.testing.client import open_jdwp_client

from . import lean
from .common import Config, Measurement, MeasurementFailed, Target, compiled_classes
from .dbg import Debugger, debug_target, now, wait_stdout

CLASS_COUNT = 500
METHODS_PER_CLASS = 5


def _source(i: int) -> str:
    methods = []
    for m in range(METHODS_PER_CLASS):
        methods.append(f"""    public static int m{m}(int x) {{
        int a = x + {m};
        a = a * {i + 1};
        return a ^ (a >>> 3);
    }}
""")
    return f"public class G{i} {{\n{''.join(methods)}}}\n"


def generated_classes() -> str:
    """Compiled G0..G499 (sources written once into the debuggee cache, then compiled once)."""
    src = debuggees.cache_root() / f"bench-generated-{CLASS_COUNT}x{METHODS_PER_CLASS}"
    src.mkdir(parents=True, exist_ok=True)
    for i in range(CLASS_COUNT):
        path = src / f"G{i}.java"
        text = _source(i)
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
    return str(debuggees.compile_sources(src))


async def _browse(c) -> int:
    """AllClassesWithGeneric, then MethodsWithGeneric and every LineTable of the generated classes.

    Through bench/lean.py's blocking loop, which decodes every reply as a debugger would: the
    test client's own ~100 us per command would be most of what is measured."""
    classes = lean.call(c, "VirtualMachine", "AllClassesWithGeneric").classes
    generated = [k for k in classes if re.fullmatch(r"LG\d+;", k.signature)]
    tables = 0
    for k in generated:
        for m in lean.call(c, "ReferenceType", "MethodsWithGeneric", ref_type=k.type_id).declared:
            lean.call(c, "Method", "LineTable", ref_type=k.type_id, method_id=m.method_id)
            tables += 1
    if len(generated) != CLASS_COUNT:
        raise MeasurementFailed(f"{len(generated)} generated classes seen, {CLASS_COUNT} expected")
    return tables


async def _cold_and_warm(d: Debugger) -> dict[str, float]:
    await d.c.command("VirtualMachine", "Resume")
    await wait_stdout(d.vm, re.compile(f"loaded {CLASS_COUNT}"), timeout=60)
    t0 = now()
    await _browse(d.c)
    cold = (now() - t0) * 1e3
    await d.c.command("VirtualMachine", "Dispose")
    return {"cold": cold, "warm": await _second_session(d.vm)}


async def _second_session(vm) -> float:
    """Browse again from a second debugger session (ms).

    The reference listens again only a moment after the first debugger detached: retry the connect.
    """
    port = vm.port
    for _ in range(100):
        # The reference, started on port 0, listens again on a new port and says so on stdout.
        listening = [int(m) for m in re.findall(r"Listening for transport dt_socket at address: (\d+)",
                                                  vm.output.text("stdout"))]
        if len(listening) > 1:
            port = listening[-1]
        session = open_jdwp_client(vm.host, port, timeout=10)
        try:
            client = await session.__aenter__()
        except OSError:
            await trio.sleep(0.05)
            continue
        try:
            t0 = now()
            await _browse(client)
            return (now() - t0) * 1e3
        finally:
            await session.__aexit__(None, None, None)
    raise MeasurementFailed(f"no second session possible on {vm.host}:{port}")


def run_classes(variant: str, cfg: Config) -> dict[str, float]:
    cp = f"{compiled_classes()}:{generated_classes()}"
    return debug_target(variant, ["classes", str(CLASS_COUNT)], _cold_and_warm, classpath=cp, timeout=300)


CLASSES = Measurement(
    name="classes",
    doc=f"AllClasses + methods and line tables of {CLASS_COUNT} classes (ms): first session, second session",
    variants=("reference", "jdwpd"),
    run=run_classes,
    units={"cold": "ms", "warm": "ms"},
    targets=(Target("cold", "jdwpd", "reference", 1.5), Target("warm", "jdwpd", "reference", 0.5)),
    needs_debugger=True,
)
