"""The fast path: what makes the daemon answer sooner than the plain path would, as one layer.

Each module is one mechanism, measured when it came (docs/performance_log.md; the list with what each
buys is docs/architecture.md, "The fast path"):

- ``settings``      the one record of what is on (``JDWPD_FAST``), read once per process
- ``rawio``         socket reads and writes tried at once, trio waited for only when they would block
- ``writer``        the one way bytes go out on a socket (a debugger's, the agent link's)
- ``inline``        a command begun in the task that read it, stopped at its first link request
- ``memo``          reply bytes a debugger may be given again, and until when
- ``lane``          a thread per session that answers from the memo without the event loop
- ``prefill``       a class walk's next answers put in the memo before they are asked
- ``locals_ahead``  a stop's locals read in one link round trip
- ``spin``          polling without sleeping while a conversation is under way
- ``warmup``        codecs made before a debugger's first command

The layer sits above ``protocol`` and the model and under the link: it imports nothing of the
link, the façade or the sessions (it sees them through the few attributes it uses), so that all
of them may use it (tests/test_layers.py).  Nothing is imported here: each user imports the
mechanism it uses.
"""
