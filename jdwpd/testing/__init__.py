"""jdwpd's public test kit.

- ``debuggees``: compile Java sources once into a content-keyed cache; ``// @marker`` line lookup.
- ``jvm``: start a JVM under the reference agent or under jdwpd, wait until it listens, always kill it.
- ``client``: a raw trio JDWP client, the API's connection (``jdwpd.api.connection``) keeping what it
  was not asked for yet.
- ``normalize``: map IDs to stable names so transcripts from two servers compare equal.
- ``jdb``: drive ``jdb -attach`` one command at a time and keep a transcript.

The JDI client (a Java program) lives in tests/clients/; the differential tests that use
all of these are in tests/differential/.

Submodules are imported on use, so that e.g. the normalizer works without trio.
"""
