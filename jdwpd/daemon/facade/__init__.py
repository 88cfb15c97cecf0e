"""The VM façade's operations, by concern (docs/architecture.md, "The VM façade").

Every front end (the JDWP command handlers; the tests' in-process ``ScriptSession``) queries and
changes the VM through these, never through the agent link: the bookkeeping that keeps a debugger's
view true (frame generations, suspensions, invoke records, pins, cached class and object facts)
then lives in one place.  ``jdwpd.daemon.vm.VM`` is made of them (one mixin per module); each reaches the
link and the model through the VM's attributes only, and may use another module's operations (the
id checks of values.py serve invoke, classes and objects).  Operations that act for a session
(suspensions, pins, invokes, requests) take it as their first argument.

Errors are JDWP's vocabulary (``JdwpError``), an agent status mapped as the reference maps it.
"""
