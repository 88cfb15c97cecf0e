"""Bytecode of jdwpd's own modules, written once per test session for the processes the tests start.

Most tests start a `jdwpd launch`, `jdwpd java` or `jdwpd ci` process, and each imports some sixty
modules of jdwpd and protocol before it serves anything.  Under PYTHONDONTWRITEBYTECODE=1 (our CI
machines, and the shells the tests run from) no process ever writes their bytecode: in a fresh
checkout every one of those processes compiles all of them again (~270 ms of the ~320 ms a
`jdwpd launch` takes to listen, measured on this project's 2-core machine), and in a working checkout
each module edited since its bytecode was last written is compiled again by every process.
`pip install .` writes the bytecode of every module; an editable checkout gets it here, once.
"""

from __future__ import annotations

import compileall
import sys
from pathlib import Path

PACKAGES = ("jdwpd", "protocol")


def package_dirs() -> list[Path]:
    """The folders the child processes import jdwpd and protocol from (this process's, as
    jdwpd.own_command starts them with this Python and its path)."""
    import protocol

    jdwpd_dir = Path(__file__).resolve().parents[1]  # jdwpd/testing/bytecode.py
    return [jdwpd_dir, *(Path(p).resolve() for p in protocol.__path__)]


def compile_packages(force: bool = False, folders: list[Path] | None = None) -> bool:
    """Write the bytecode of every module of jdwpd and protocol that has none or a stale one.

    Only when this interpreter does not write bytecode itself (``force`` aside): otherwise the first
    child to import a module writes it, as usual.  Where the folders cannot be written (an installed
    package, owned by someone else) nothing is written and the children compile as before.  True if
    every module has current bytecode afterwards.  ``folders``: others than jdwpd's and protocol's."""
    if not (force or sys.dont_write_bytecode):
        return True
    ok = True
    for folder in package_dirs() if folders is None else folders:
        # quiet=2: nothing printed, not even errors (a read-only folder is not the test's failure)
        ok = bool(compileall.compile_dir(str(folder), quiet=2, workers=1)) and ok
    return ok
