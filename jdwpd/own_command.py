"""How jdwpd starts another jdwpd process: the installed package, whatever the current folder holds.

`python -m jdwpd` puts the current folder first on `sys.path`, so a folder named `jdwpd/` there (a
clone of this repository, a project that vendors us) would be imported instead of the installed
package, with no agent built. `-P` (Python 3.11+) leaves the current folder out of `sys.path`;
PYTHONPATH and site-packages (editable installs included) are kept, so a developer's setup still
reaches the child.
"""

from __future__ import annotations

import sys


def jdwpd_argv(*args: str) -> list[str]:
    """The command line of `jdwpd ARGS...` run by this Python, immune to the working directory.

    >>> jdwpd_argv("launch", "--help")[1:]
    ['-P', '-m', 'jdwpd', 'launch', '--help']
    """
    return [sys.executable, "-P", "-m", "jdwpd", *args]


def jdwpd_shell_command() -> str:
    """The same, as the start of a POSIX shell command line (for generated launcher scripts)."""
    return f"'{sys.executable}' -P -m jdwpd"
