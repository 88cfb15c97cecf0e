"""Snapshot the stack and locals where an exception is thrown, into JSON (the snapshot schema
jdwpd.snapshot/1, docs/scripting.md).

    python examples/snapshot_on_exception.py java.lang.IllegalStateException out.json -- java -cp classes shop.Main
"""

from __future__ import annotations

import sys

import trio

import jdwpd


async def snapshot_on_exception(exception: str, path: str, argv: list[str]) -> dict:
    async with jdwpd.launch(argv, suspend=True) as vm:
        catch = await vm.catch(exception, caught=True, uncaught=True)
        await vm.resume()
        hit = await catch.wait(timeout=60)
        snap = await hit.snapshot(jdwpd.Limits(frames=10, depth=2), watch=["this"])
        data = snap.data
        data["exception"] = await jdwpd.to_python(hit.thrown, jdwpd.Limits(depth=1))
        await hit.resume()
    with open(path, "w") as f:
        f.write(jdwpd.Snapshot(data).to_json(indent=2))
    print(f"{exception} at {data['location']['file']}:{data['location']['line']} -> {path}", flush=True)
    return data


def main() -> None:
    dash = sys.argv.index("--")
    trio.run(snapshot_on_exception, sys.argv[1], sys.argv[2], sys.argv[dash + 1:])


if __name__ == "__main__":
    main()
