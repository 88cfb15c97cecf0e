"""protocol is sans-I/O: it imports with socket, trio (and other I/O modules) made unimportable."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import sys
for name in ("socket", "trio", "selectors", "asyncio", "ssl", "select", "subprocess"):
    sys.modules[name] = None  # makes "import name" raise ImportError
import protocol
import protocol.jdwp, protocol.messages, protocol.packets, protocol.spec, protocol.wire, protocol.constants
from protocol import by_name, encode_reply, decode_reply
cs = by_name("VirtualMachine", "IDSizes")
assert decode_reply(cs, encode_reply(cs, (8, 8, 8, 8, 8))).frame_idsize == 8
print("ok")
"""


def test_imports_without_io_modules():
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
