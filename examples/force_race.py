"""Force a race between two threads: hold thread A at one line until thread B reaches another,
then let B run a line while A is still held.

    python examples/force_race.py Checkout.java:33 Main.java:15 seen -- java -cp classes shop.Main

With shop.Main: main is held inside pay() before it adds to the revenue, the auditor thread then
reads the revenue and sees the old value, the interleaving a test would need luck to hit.
"""

from __future__ import annotations

import sys

import trio

import jdwpd


async def force_race(hold_at: str, other_at: str, show: str, argv: list[str]) -> tuple[str, object]:
    result: list = []
    async with jdwpd.launch(argv, suspend=True) as vm:
        first = await vm.breakpoint(hold_at)
        done = trio.Event()

        @first.on_hit
        async def hold(hit: jdwpd.Hit) -> None:
            await first.clear()
            print(f"{hit.thread.name} held at {hit.location}", flush=True)
            second = await vm.breakpoint(other_at)
            other = await second.wait(timeout=30)
            await second.clear()
            after = await other.step_over()
            value = await after.evaluate(show)
            print(f"{after.thread.name} ran {other.location.file_line} meanwhile: {show} = {value!r}", flush=True)
            result.extend([after.thread.name, value])
            await after.resume()
            done.set()  # returning resumes the held thread

        await vm.resume()
        with trio.fail_after(60):
            await done.wait()
    return result[0], result[1]


def main() -> None:
    dash = sys.argv.index("--")
    trio.run(force_race, sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[dash + 1:])


if __name__ == "__main__":
    main()
