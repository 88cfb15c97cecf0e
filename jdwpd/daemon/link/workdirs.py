"""The daemon's private folders (link socket + the VM's secret), and the sweep of dead daemons' ones.

Each folder is ``$TMPDIR/jdwpd-XXXXXXXX`` (0700, from mkdtemp) with an ``owner`` file naming the
process that made it: its pid and its start time, so that a reused pid is never taken for the
owner. A daemon removes its folder when it ends; one that is killed cannot, so every daemon that
starts removes the folders of owners that are surely gone: only its user's, only folders that carry
an owner record whose process no longer runs (or runs as another process with the same pid), or,
for folders without a record (made by older versions), ones untouched for an hour whose link
socket nobody listens on.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

PREFIX = "jdwpd-"
OWNER_FILE = "owner"
#: A folder without an owner record is left alone for this long: it may be a daemon's of an older version.
UNRECORDED_GRACE_SECONDS = 3600.0


def process_start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22), or None if no such
    process. The command name may hold spaces and parentheses, so fields count from the last ')'."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    return fields[19] if len(fields) > 19 else None


def make_workdir() -> str:
    """A fresh private folder for one daemon, recorded as this process's; stale ones are swept first."""
    sweep_stale()
    path = tempfile.mkdtemp(prefix=PREFIX)  # 0700
    started = process_start_time(os.getpid()) or "?"
    with open(os.path.join(path, OWNER_FILE), "w") as f:
        f.write(f"{os.getpid()} {started}\n")
    return path


def _owner_is_gone(folder: Path) -> bool:
    try:
        pid_text, started = (folder / OWNER_FILE).read_text().split()
        pid = int(pid_text)
    except FileNotFoundError:
        return _unrecorded_is_gone(folder)
    except (OSError, ValueError):
        return False  # being written, or not ours to judge
    now = process_start_time(pid)
    return now is None or (started != "?" and now != started)


def _unrecorded_is_gone(folder: Path) -> bool:
    try:
        if time.time() - folder.stat().st_mtime < UNRECORDED_GRACE_SECONDS:
            return False  # maybe a daemon between mkdtemp and writing its record
    except OSError:
        return False
    link = folder / "link.sock"
    if not link.exists():
        return True
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(link))
    except OSError:
        return True
    finally:
        probe.close()
    return False


def sweep_stale(directory: str | None = None) -> list[str]:
    """Remove this user's daemon folders whose owner is surely dead; return what was removed."""
    root = Path(directory or tempfile.gettempdir())
    removed: list[str] = []
    try:
        entries = list(root.iterdir())
    except OSError:
        return removed
    uid = os.geteuid()
    for folder in entries:
        if not folder.name.startswith(PREFIX) or folder.name.startswith(PREFIX + "jvm-"):
            continue
        try:
            st = folder.lstat()
        except OSError:
            continue
        if st.st_uid != uid or not folder.is_dir() or folder.is_symlink() or st.st_mode & 0o077:
            continue  # another user's, or nothing a daemon of ours made (mkdtemp's folders are 0700)
        if _owner_is_gone(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(str(folder))
    return removed
