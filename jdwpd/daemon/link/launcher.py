"""Starting a JVM with the jdwpd agent: the agent's path, a per-VM secret, the option string, the
command line, and a trio task that owns the JVM process and its authenticated link."""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jdwpd.usage import UsageError
from protocol import link_basics

from .workdirs import make_workdir

if TYPE_CHECKING:  # start_jvm's; `jdwpd launch` starts its JVM before it imports them
    import trio

    from .agent_link import AgentLink

AGENT_FILE = "libjdwpd_agent.so"


class AgentNotBuilt(FileNotFoundError):
    pass


def agent_path() -> pathlib.Path:
    """The agent library inside the installed package."""
    path = pathlib.Path(__file__).resolve().parents[2] / "_agent" / AGENT_FILE  # the built files' folder
    if not path.is_file():
        raise AgentNotBuilt(f"the jdwpd agent is not built ({path} is missing): run `pip install -e .` in the "
                            f"source tree (it compiles agent/*.c; needs gcc and a JDK)")
    return path


def new_secret_file(directory: os.PathLike | str) -> tuple[bytes, pathlib.Path]:
    """A fresh secret, written as hex to a new file only its owner can read."""
    secret = os.urandom(link_basics.SECRET_SIZE)
    fd, name = tempfile.mkstemp(prefix="secret-", dir=os.fspath(directory))  # mkstemp: 0600, O_EXCL
    with os.fdopen(fd, "w") as f:
        f.write(secret.hex() + "\n")
    return secret, pathlib.Path(name)


def agent_option_string(link_address: str | os.PathLike | tuple[str, int], secret_path: os.PathLike | str, *,
                        profile: str = "full", suspend: bool = False, timeout: int | None = None,
                        log: os.PathLike | str | None = None, include_virtual_threads: bool = False,
                        onthrow: str | None = None, onuncaught: bool = False, optional: bool = False) -> str:
    """The text after '=' in -agentpath: link=..., secretfile=..., and the optional ones.

    link_address: "unix:/path" or "host:port", a (host, port) pair, or a filesystem path (a Unix socket).
    """
    if isinstance(link_address, tuple):
        link = f"{link_address[0]}:{link_address[1]}"
    elif isinstance(link_address, os.PathLike):
        link = f"unix:{os.fspath(link_address)}"
    else:
        link = link_address
    parts = [f"link={link}", f"secretfile={os.fspath(secret_path)}"]
    if profile not in {p.value for p in link_basics.Profile}:
        raise ValueError(f"unknown profile {profile!r} (one of {', '.join(p.value for p in link_basics.Profile)})")
    if profile != "full":
        parts.append(f"profile={profile}")
    if suspend:
        parts.append("suspend=y")
    if timeout is not None:
        parts.append(f"timeout={int(timeout)}")
    if log is not None:
        parts.append(f"log={os.fspath(log)}")
    if include_virtual_threads:  # the reference's option of the same name (JDK 21+; ignored before)
        parts.append("includevirtualthreads=y")
    if onthrow:  # the reference's options of the same names: the agent sleeps until that exception
        parts.append(f"onthrow={onthrow}")
    if onuncaught:
        parts.append("onuncaught=y")
    if optional:  # a JVM whose agent cannot start (no secret: the run that set it up is over) runs without it
        parts.append("optional=y")
    for p in parts:
        if "," in p:  # the agent splits options at commas
            raise ValueError(f"agent option {p!r} must not contain a comma")
    return ",".join(parts)


def java_command_with_agent(argv: Sequence[str], agent_options: str) -> list[str]:
    """argv with -agentpath inserted right after the java executable."""
    argv = list(argv)
    if not argv or os.path.basename(argv[0]) not in ("java", "java.exe"):
        raise ValueError(f"not a java launch: {argv[:1]!r} (the command must start with the java executable)")
    return [argv[0], f"-agentpath:{agent_path()}={agent_options}", *argv[1:]]


class LaunchedJvm:
    """A JVM started by start_jvm: its process and, once the agent authenticated, its link.

    A plain class, not attrs: this module is imported before `jdwpd launch` and `jdwpd java` start
    their JVM, and attrs (~35 ms of imports) can wait until the JVM starts."""

    __slots__ = ("process", "link", "workdir", "secret")

    def __init__(self, process: trio.Process, link: AgentLink, workdir: pathlib.Path, secret: bytes) -> None:
        self.process = process
        self.link = link
        self.workdir = workdir
        self.secret = secret

    def __repr__(self) -> str:
        return (f"LaunchedJvm(process={self.process!r}, link={self.link!r}, workdir={self.workdir!r}, "
                f"secret={self.secret!r})")


async def start_jvm(argv: Sequence[str], *, profile: str = "full", suspend: bool = False,
                    timeout: int | None = None, log: os.PathLike | str | None = None,
                    connect_timeout: float = 30.0, stdout: Any = None, stderr: Any = None,
                    task_status: Any = None) -> int:
    """Start `argv` (a java command) with the agent; task_status.started(LaunchedJvm) once the agent is
    authenticated; return the JVM's exit code.  Use with ``await nursery.start(start_jvm, argv)``:
    the caller's nursery owns the process; cancelling the task kills it.

    The link is a Unix socket in a fresh 0700 directory, with a 0600 secret file next to it.
    """
    import trio

    from .agent_link import HandshakeError, accept_agent, open_unix_listener

    if task_status is None:
        task_status = trio.TASK_STATUS_IGNORED
    workdir = pathlib.Path(make_workdir())
    sock_path = workdir / "link.sock"
    secret, secret_path = new_secret_file(workdir)
    listener = await open_unix_listener(os.fspath(sock_path))
    cmd = java_command_with_agent(argv, agent_option_string(sock_path, secret_path, profile=profile,
                                                            suspend=suspend, timeout=timeout, log=log))
    try:
        async with trio.open_nursery() as nursery:
            proc: trio.Process = await nursery.start(
                lambda task_status: trio.run_process(cmd, check=False, stdout=stdout, stderr=stderr,
                                                     task_status=task_status))
            link = None
            with trio.move_on_after(connect_timeout):
                while link is None:
                    stream = await listener.accept()
                    try:
                        link = await accept_agent(stream, secret)
                    except HandshakeError:
                        continue
            await listener.aclose()
            if link is None:
                proc.kill()
                raise TimeoutError(f"the agent did not connect within {connect_timeout} s")
            task_status.started(LaunchedJvm(proc, link, workdir, secret))
            code = await proc.wait()
            await link.aclose()
            return code
    finally:
        for p in (sock_path, secret_path):
            try:
                p.unlink()
            except FileNotFoundError:
                pass
        shutil.rmtree(workdir, ignore_errors=True)


def check_java_command(java: list[str]) -> None:
    """Refuse, with one line a user can act on, a command that is not a java launcher on PATH."""
    if not java:
        raise UsageError("launch needs a java command after '--', e.g. jdwpd launch -- java -cp app.jar Main")
    exe = os.path.basename(java[0])
    if exe not in ("java", "java.exe"):
        raise UsageError(f"'{java[0]}' is not a java launcher: the command after '--' must start with java")
    if shutil.which(java[0]) is None:
        raise UsageError(f"cannot find '{java[0]}' on PATH")


def load_or_create_secret(path: str) -> bytes:
    """The link secret in PATH, made (mode 0600) when absent; refused when others can read it."""
    if not os.path.exists(path):
        directory = os.path.dirname(os.path.abspath(path))
        secret, made = new_secret_file(directory)
        os.replace(made, path)
        return secret
    st = os.stat(path)
    if st.st_mode & 0o077:
        raise UsageError(f"{path} is readable by others (mode {st.st_mode & 0o777:o}): chmod 600 it")
    from protocol import link as L

    try:
        return L.parse_secret(pathlib.Path(path).read_text())
    except L.LinkError as e:
        raise UsageError(f"{path}: {e}") from None
