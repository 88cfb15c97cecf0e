"""A short JVM from start to exit with no debugger attached: what being debuggable costs a CLI or a test."""

from __future__ import annotations

from .common import (
    Config,
    Measurement,
    Target,
    agent_path,
    compiled_classes,
    launch_prefix,
    reference_agent,
    run_timed,
    serve_daemon,
)


def run_startup(variant: str, cfg: Config) -> dict[str, float]:
    cp = str(compiled_classes())
    java = [cfg.java]
    hello = ["-cp", cp, "Hello"]
    if variant == "plain":
        seconds, _, _ = run_timed([*java, *hello], timeout=60)
    elif variant == "reference":
        seconds, _, _ = run_timed([*java, reference_agent(suspend=False), *hello], timeout=60)
    elif variant == "jdwpd-agent":
        # The daemon runs already (a user's long-lived `jdwpd serve`); only the JVM is timed.
        with serve_daemon() as daemon:
            agent = f"-agentpath:{agent_path()}=link={daemon.link},secretfile={daemon.secret}"
            seconds, _, _ = run_timed([*java, agent, *hello], timeout=60)
            # Only a JVM whose agent really reached the daemon counts.  A JVM this short may be gone
            # before the link handshake completes (the agent never holds the exit for it): the daemon
            # then logs the cut handshake, which proves the agent connected all the same.
            daemon.wait_for("adopted the JVM", "agent handshake failed", timeout=10)
    elif variant == "jdwpd-launch":
        seconds, _, _ = run_timed([*launch_prefix(), *java, *hello], timeout=60)
    else:
        raise ValueError(variant)
    return {"hello_exit": seconds * 1000}


STARTUP = Measurement(
    name="startup",
    doc="Hello world from spawn to exit, no debugger attached (ms)",
    variants=("plain", "reference", "jdwpd-agent", "jdwpd-launch"),
    run=run_startup,
    units={"hello_exit": "ms"},
    targets=(
        Target("hello_exit", "jdwpd-agent", "reference", 0.2),
        Target("hello_exit", "jdwpd-agent", "plain", 10.0, kind="delta_ms"),
        Target("hello_exit", "jdwpd-launch", "reference", 1.0),
    ),
)
