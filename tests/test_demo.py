"""The README's main job: `jdwpd demo` debugs the bundled sample end to end through jdwpd."""

from __future__ import annotations

import re
import subprocess

import pytest

from jdwpd.own_command import jdwpd_argv
from jdwpd.testing import jvm


@pytest.mark.jvm
def test_demo_hits_the_breakpoint_and_shows_what_the_program_computed():
    if not jvm.jdwpd_available():
        pytest.skip(jvm.JDWPD_UNAVAILABLE_REASON)
    result = subprocess.run([*jdwpd_argv(), "demo"], capture_output=True, text=True, timeout=180)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert re.search(r'breakpoint hit in thread "main"', out), out
    assert re.search(r"\[0\] Sample\.main \(line \d+\)", out), out
    # what the debugger saw in the frame equals what the program then printed itself
    printed = re.search(r"average ([\d.]+), checksum (\d+), grade (\w)", out)
    assert printed, out
    assert f"double average = {printed.group(1)}" in out
    assert f"long sum = {printed.group(2)}" in out
    assert f"char grade = '{printed.group(3)}'" in out
    assert re.search(r"Sample\$Order first = Sample\$Order@\d+ \{number=1, items=java\.util\.ArrayList@\d+", out)
    assert "the program exited with code 0" in out
