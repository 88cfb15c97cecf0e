"""The daemon: serves JDWP to debuggers for VMs whose agent links to it.

Layers, each importing only those below it (docs/architecture.md): ``model`` (what the daemon knows of
the VM) and ``link`` (the agent's socket) under ``facade`` (the VM's operations), ``vm`` (the façade over
one VM), ``fast`` (answering sooner), then the front end: ``session``, ``commands``, ``dispatch``,
``events``, ``server``; ``run`` and ``fleet`` start it for one VM or many.
"""
