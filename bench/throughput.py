"""Throughput kernels with the agent loaded and no requests: what the capability set alone costs.

Each kernel runs in its own JVM (a kernel's JIT profile must not leak into the next) and
reports its own ns/op after a warm-up, so start-up and exit stay out of these numbers.
The "-attached" variants have a debugger connected (handshake, IDSizes, Version, resume)
but no event request: they must run as fast as nobody attached.
"""

from __future__ import annotations

import trio

from jdwpd.testing import jvm
from jdwpd.testing.client import open_jdwp_client

from .common import (
    NS_PER_OP,
    Config,
    Measurement,
    MeasurementFailed,
    Target,
    compiled_classes,
    launch_prefix,
    parse_float,
    reference_agent,
    run_timed,
)

KERNELS = ("boxing", "throw", "alloc", "mixed")
# The JVM's defaults (G1): a different collector hides part of what the capabilities cost
# (with Serial GC the reference's boxing penalty, allocations escape analysis no longer removes,
# all but vanished).  A fixed heap keeps heap resizing out of the numbers.
JVM_ARGS = ("-Xms256m", "-Xmx256m")
PROFILES = ("full", "nothrow", "inspect")


def _timing(cfg: Config) -> tuple[str, str]:
    warmup, measure = cfg.pick((300, 400), (500, 800))
    return str(warmup), str(measure)


async def _attached(kind: str, cp: str, args: list[str], timeout: float) -> str:
    """Run the kernel with a debugger connected that asks nothing after the resume; return stdout."""
    opener = jvm.open_reference_jvm if kind == "reference" else jvm.open_jdwpd_jvm
    with trio.fail_after(timeout):
        async with opener(cp, "Kernels", args, suspend=True, jvm_args=JVM_ARGS) as vm:
            async with open_jdwp_client(vm.host, vm.port) as c:
                await c.next_event(timeout=30)  # VMStart
                await c.command("VirtualMachine", "Version")
                await c.command("VirtualMachine", "Resume")
                code = await vm.wait_exit(timeout)
            if code != 0:
                raise MeasurementFailed(f"{kind} kernel exited {code}: {vm.output.describe()[-1000:]}")
            return vm.output.text("stdout")


def run_kernels(variant: str, cfg: Config) -> dict[str, float]:
    cp = str(compiled_classes())
    warmup, measure = _timing(cfg)
    results = {}
    for kernel in KERNELS:
        args = [kernel, warmup, measure]
        plain = [cfg.java, *JVM_ARGS, "-cp", cp, "Kernels", *args]
        if variant == "plain":
            _, out, _ = run_timed(plain, timeout=120)
        elif variant == "reference":
            _, out, _ = run_timed([cfg.java, reference_agent(suspend=False), *plain[1:]], timeout=120)
        elif variant.startswith("jdwpd-") and variant.removeprefix("jdwpd-") in PROFILES:
            _, out, _ = run_timed([*launch_prefix(profile=variant.removeprefix("jdwpd-")), *plain], timeout=120)
        elif variant in ("reference-attached", "jdwpd-attached"):
            out = trio.run(_attached, variant.split("-")[0], cp, args, 120.0)
        else:
            raise ValueError(variant)
        results[kernel] = parse_float(NS_PER_OP, out, f"{kernel} ns_per_op")
    return results


def _targets() -> tuple[Target, ...]:
    out = []
    for k in KERNELS:
        out.append(Target(k, "jdwpd-full", "reference", 1.0))
        out.append(Target(k, "jdwpd-inspect", "plain", 1.1))
        out.append(Target(k, "jdwpd-attached", "jdwpd-full", 1.1))
        out.append(Target(k, "reference-attached", "reference", 1.1))
    out.append(Target("throw", "jdwpd-nothrow", "plain", 1.1))
    return tuple(out)


THROUGHPUT = Measurement(
    name="throughput",
    doc="Kernels with the agent loaded, no requests (ns/op, after warm-up)",
    variants=("plain", "reference", "jdwpd-full", "jdwpd-nothrow", "jdwpd-inspect", "reference-attached",
              "jdwpd-attached"),
    run=run_kernels,
    units={k: "ns/op" for k in KERNELS},
    targets=_targets(),
)
