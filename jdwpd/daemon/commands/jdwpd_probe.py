"""VirtualMachine.JdwpdHello (1, 100): how a client learns that jdwpd's extension is there.

The probe lives in a standard set, below command 128, because the reference agent answers such an
unassigned command NOT_IMPLEMENTED after a bounds check, while a vendor set (>= 128) makes it
index its tables with a negative number (docs/extensions.md).  Its handler is jdwpd_ext's.
"""

from __future__ import annotations

from jdwpd.daemon.commands.jdwpd_ext import hello

SET_NAME = "VirtualMachine"
HANDLERS = {"JdwpdHello": hello}
