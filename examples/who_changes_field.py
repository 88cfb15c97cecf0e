"""Find who changes a field: a modification watchpoint, with the stack of each write.

    python examples/who_changes_field.py shop.Checkout.revenue 3 -- java -cp classes shop.Main
"""

from __future__ import annotations

import sys

import trio

import jdwpd


async def who_changes(field: str, writes: int, argv: list[str]) -> list[dict]:
    found = []
    async with jdwpd.launch(argv, suspend=True) as vm:
        watch = await vm.watch(field, modify=True)
        await vm.resume()
        async for hit in watch.hits(limit=writes, timeout=30):
            stack = [str(f.location) for f in await hit.frames()]
            found.append({"thread": hit.thread.name, "old": hit.value, "new": hit.new_value, "stack": stack})
            print(f"{field}: {hit.value!r} -> {hit.new_value!r} in {hit.thread.name}", flush=True)
            for line in stack:
                print(f"    at {line}", flush=True)
            await hit.resume()
    return found


def main() -> None:
    dash = sys.argv.index("--")
    trio.run(who_changes, sys.argv[1], int(sys.argv[2]), sys.argv[dash + 1:])


if __name__ == "__main__":
    main()
