"""Trace a method's arguments and return values, without stopping the program for long.

    python examples/trace_method.py shop.Checkout.total 5 -- java -cp classes shop.Main

Each call prints its arguments (read at the method's first line) and what it returned.
"""

from __future__ import annotations

import sys

import trio

import jdwpd


async def trace(method: str, calls: int, argv: list[str]) -> list[str]:
    out = []
    async with jdwpd.launch(argv, suspend=True) as vm:
        entry = await vm.breakpoint(method)
        exits = await vm.method_exits(method)
        await vm.resume()
        for _ in range(calls):
            hit = await entry.wait(timeout=30)
            args = await hit.frame.locals()
            shown = {name: await jdwpd.to_python(v, jdwpd.Limits(depth=1)) for name, v in args.items()}
            await hit.resume()
            done = await exits.wait(timeout=30)
            out.append(f"{method}({shown}) -> {done.return_value!r}")
            print(out[-1], flush=True)
            await done.resume()
    return out


def main() -> None:
    dash = sys.argv.index("--")
    method, calls = sys.argv[1], int(sys.argv[2])
    trio.run(trace, method, calls, sys.argv[dash + 1:])


if __name__ == "__main__":
    main()
