"""One debugger: its connection, its command lanes, its events, its share of the VM.

Read in this order: lifecycle.py (the session, its tasks, its end), reading.py (packets in, memo
answers, the fast lane's hand-over), ordering.py (which command may overtake which, and the task
each runs in), writing.py (replies), event_queue.py (composites, and when they are held).
"""

from .lifecycle import Session

__all__ = ["Session"]
