"""The daemon's model of the debugged VM: threads, frames, event requests, object references.

Pure state: no sockets, no trio.  vm.py drives it and talks to the agent.
"""
