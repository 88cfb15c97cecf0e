"""The `jdwpd` command line.

Exit statuses (docs/cli.md): 0 success; 1 a failure while running (the demo's session failed,
`doctor` found jdwpd cannot debug here, an unexpected error); 2 a user or environment error found
before anything ran (bad arguments, a busy port, an unreachable address, a missing java, a PID that
is not a JVM, a secret file others can read), always one line on stderr; `launch` exits with the
JVM's own status (128+N for signal N); 130 on Ctrl-C.

Start-up order matters for `launch`: the JVM is started before the daemon's
heavy imports (trio, the protocol tables), so that the JVM's own start-up and
ours overlap.  The sockets are bound first with the standard library, so that
a busy port fails before any JVM runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from jdwpd.usage import UsageError
from jdwpd.usage import parse_address as _parse_address

__all__ = ["UsageError", "main"]

DEFAULT_JDWP = "127.0.0.1:5005"


class _VersionAction(argparse.Action):
    """--version reads the agent's build record only when asked."""

    def __init__(self, option_strings: list[str], dest: str, **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print jdwpd's version and the agent's build, and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from .doctor import version_text

        print(version_text())
        parser.exit()


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite, non-negative number of seconds")
    return value


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jdwpd", description="An out-of-process Java debugger server (JDWP).")
    p.add_argument("--version", action=_VersionAction)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    launch = sub.add_parser("launch", help="start a JVM under jdwpd and serve JDWP debuggers",
                            description="Start a JVM with the jdwpd agent; debuggers attach to --jdwp. "
                                        "Exits with the JVM's exit code.")
    launch.add_argument("--jdwp", default=None, metavar="HOST:PORT",
                        help=f"where debuggers attach (default {DEFAULT_JDWP}, none with --connect; port 0 picks "
                             "a free one)")
    launch.add_argument("--connect", metavar="HOST:PORT",
                        help="connect to a debugger listening there (an IDE's 'listen' mode, JDI's launching and "
                             "listening connectors: the reference's server=n) before the JVM starts; it gets the "
                             "start event. Without --suspend the VM runs from it on")
    group = launch.add_mutually_exclusive_group()
    group.add_argument("--suspend", dest="suspend", action="store_true",
                       help="hold the VM at start until a debugger attaches and resumes it")
    group.add_argument("--no-suspend", dest="suspend", action="store_false", help="run at once (default)")
    launch.add_argument("--profile", default="full", choices=["full", "nothrow", "inspect"],
                        help="capability profile: what the JVM pays for (see docs/profiles.md)")
    launch.add_argument("--allow", action="append", default=[], metavar="ADDR",
                        help="only accept debuggers from these addresses (repeatable)")
    launch.add_argument("--read-only", action="store_true", help="refuse every command that changes the VM")
    launch.add_argument("--include-virtual-threads", action="store_true",
                        help="AllThreads lists virtual threads too (JDK 21+; the reference's includevirtualthreads=y)")
    launch.add_argument("--onthrow", metavar="CLASS",
                        help="debug from the first throw of this exception class (java.lang.Foo, not its "
                             "subclasses): until then the JVM runs without a daemon and the port refuses "
                             "debuggers (the reference's onthrow=; docs/options.md)")
    launch.add_argument("--onuncaught", action="store_true",
                        help="debug from the first uncaught exception (the reference's onuncaught=y)")
    launch.add_argument("--launch", dest="launch_command", metavar="CMD",
                        help="with --onthrow/--onuncaught: run CMD with 'dt_socket HOST:PORT' appended once "
                             "debuggers can attach (the reference's launch=)")
    launch.add_argument("--agent-timeout", type=_seconds, default=30.0, metavar="SECONDS",
                        help="how long to wait for the JVM's agent to connect (default 30; not with --onthrow "
                             "or --onuncaught, whose agent connects at the exception)")
    launch.add_argument("--remote", metavar="ADDR:PORT",
                        help="remote debugging: serve no JDWP here; wait at ADDR:PORT for `jdwpd connect` (TLS 1.3, "
                             "both ends proving --secret-file; docs/remote.md)")
    launch.add_argument("--secret-file", metavar="FILE",
                        help="with --remote: the link's secret (created, mode 600, if missing; copy it to the near "
                             "side)")
    launch.add_argument("java", nargs=argparse.REMAINDER, help="-- java [ARGS...]")

    serve = sub.add_parser("serve", help="serve JVMs started on their own with the jdwpd agent, many at once",
                           description="Listen for agents on --link; every JVM that proves the secret is "
                                       "served at once, the first on --jdwp and each next on the next free "
                                       "port above it (port 0: one the system picks at start); `jdwpd list` shows "
                                       "which is where. A restarted daemon re-adopts running JVMs.")
    serve.add_argument("--link", required=True, metavar="unix:PATH|HOST:PORT", help="where agents connect")
    serve.add_argument("--secret-file", required=True, metavar="FILE",
                       help="the per-VM secret (64 hex chars, mode 600); created if missing")
    serve.add_argument("--jdwp", default=DEFAULT_JDWP, metavar="HOST:PORT")
    serve.add_argument("--allow", action="append", default=[], metavar="ADDR")
    serve.add_argument("--read-only", action="store_true")
    serve.add_argument("--remote", metavar="ADDR:PORT",
                       help="remote debugging: relay the one JVM that dials --link (unix:PATH) to `jdwpd connect` at "
                            "ADDR:PORT (TLS 1.3) instead of serving JDWP here (docs/remote.md)")

    attach = sub.add_parser("attach", help="debug a running JVM: load the agent by HotSpot dynamic attach")
    attach.add_argument("pid", type=int)
    attach.add_argument("--jdwp", default=DEFAULT_JDWP, metavar="HOST:PORT")
    attach.add_argument("--allow", action="append", default=[], metavar="ADDR")
    attach.add_argument("--read-only", action="store_true")
    attach.add_argument("--remote", metavar="ADDR:PORT", help="remote debugging, as launch --remote")
    attach.add_argument("--secret-file", metavar="FILE", help="with --remote: the link's secret (created if missing)")

    connect = sub.add_parser("connect", help="remote debugging, the debugger's side: serve JDWP here for the JVM of "
                                             "a `jdwpd launch --remote` far away (docs/remote.md)",
                             description="Dial the far side (TLS 1.3, both ends proving --secret-file) and serve "
                                         "JDWP for its JVM on --jdwp; reconnect when the link returns.")
    connect.add_argument("far", metavar="ADDR:PORT", help="where `jdwpd launch --remote` waits")
    connect.add_argument("--secret-file", required=True, metavar="FILE", help="a copy of the far side's secret file")
    connect.add_argument("--jdwp", default=DEFAULT_JDWP, metavar="HOST:PORT", help="where debuggers attach")
    connect.add_argument("--allow", action="append", default=[], metavar="ADDR")
    connect.add_argument("--read-only", action="store_true")
    connect.add_argument("--retry", type=_seconds, default=1.0, metavar="SECONDS",
                         help="how often to dial again once the link is lost (default 1)")

    listing = sub.add_parser("list", help="the VMs every `jdwpd serve` of this user serves now, with their JDWP "
                                          "addresses and labels (pid, parent pid, main class, directory)")
    listing.add_argument("--json", action="store_true", help="print JSON (one object per daemon)")

    sub.add_parser("agent-path", help="print the absolute path of the native agent library")
    sub.add_parser("java", help="a drop-in for java: -agentlib:jdwp=... (the reference's option, server=y or n) "
                               "served by jdwpd; `jdwpd java -agentlib:jdwp=help` lists what it takes",
                   add_help=False)

    home = sub.add_parser("java-home", help="make a JDK home whose java is `jdwpd java` (for IDEs and JDI's "
                                            "launching connector)")
    home.add_argument("directory", help="where to make it (new or empty)")
    home.add_argument("--jdk", metavar="HOME", help="the real JDK (default: JAVA_HOME, else java on PATH)")

    ci = sub.add_parser("ci", help="run a command (a build, a test run) with every JVM it starts debuggable; "
                                   "snapshots, logpoints, assertions, failures and hangs written to --out",
                        description="jdwpd ci [PROBES] [--out DIR] -- COMMAND: see docs/ci.md")
    from jdwpd.ci.args import add_arguments

    add_arguments(ci)
    sub.add_parser("doctor", help="what this machine offers jdwpd: java, its version, whether the agent loads, "
                                  "dynamic attach, virtual threads (one line each, for bug reports)")
    demo = sub.add_parser("demo", help="debug the bundled sample program end to end")
    demo.add_argument("--jdwp", default="127.0.0.1:0", metavar="HOST:PORT")

    record = sub.add_parser("record", help="a recording JDWP proxy: print a readable trace of a session")
    record.add_argument("--listen", required=True, metavar="HOST:PORT", help="where the debugger connects")
    record.add_argument("--to", required=True, metavar="HOST:PORT", help="the JDWP server to forward to")
    record.add_argument("--out", metavar="FILE", help="also write the raw packets to FILE (JSON lines)")
    record.add_argument("--once", action="store_true", help="stop after the first session")
    return p


def _launch_remote(args: argparse.Namespace, java: list[str]) -> int:
    """launch --remote: the far side; the daemon's options belong to `jdwpd connect`."""
    if not (args.remote and args.secret_file):
        raise UsageError("launch --remote needs --secret-file, and --secret-file needs --remote")
    for given, name in ((args.jdwp, "--jdwp"), (args.connect, "--connect"), (args.onthrow, "--onthrow"),
                        (args.onuncaught, "--onuncaught"), (args.allow, "--allow"), (args.read_only, "--read-only")):
        if given:
            raise UsageError(f"{name} does not go with --remote: debuggers attach to `jdwpd connect`, which takes "
                             "--jdwp, --allow and --read-only")
    from jdwpd.remote.far import run_launch_remote

    return run_launch_remote(java, remote=_parse_address(args.remote, what="--remote"),
                             secret_file=args.secret_file, suspend=args.suspend, profile=args.profile,
                             include_virtual_threads=args.include_virtual_threads)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["java"]:  # every argument after it is java's, whatever it looks like
        try:
            from .java_shim import run_java

            return run_java(argv[1:])
        except UsageError as e:
            print(f"jdwpd: {e}", file=sys.stderr)
            return 2
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        if getattr(args, "allow", None):
            from jdwpd.daemon.run import parse_allow

            try:
                args.allow = parse_allow(args.allow)
            except ValueError as e:
                raise UsageError(str(e)) from None
        if args.command == "agent-path":
            from jdwpd.daemon.link.launcher import agent_path

            print(agent_path())
            return 0
        if args.command == "launch":
            from .launching import run_launch

            java = list(args.java)
            if java and java[0] == "--":
                java = java[1:]
            if args.remote or args.secret_file:
                return _launch_remote(args, java)
            connect = _parse_address(args.connect, what="--connect") if args.connect else None
            if args.jdwp is None and connect is not None:
                host, port = None, 0
            else:
                host, port = _parse_address(args.jdwp or DEFAULT_JDWP, what="--jdwp")
            if connect is not None and (args.onthrow or args.onuncaught):
                raise UsageError("--connect dials the debugger at the JVM's start; it does not combine with "
                                 "--onthrow or --onuncaught (use --launch CMD to start a debugger at the exception)")
            if (args.onthrow or args.onuncaught) and args.profile != "full":
                raise UsageError("--onthrow and --onuncaught need --profile full (exception events)")
            if args.launch_command and not (args.onthrow or args.onuncaught):
                raise UsageError("--launch runs when the exception of --onthrow or --onuncaught starts debugging")
            if args.onthrow is not None and (not args.onthrow or any(c in args.onthrow for c in ",;[")):
                raise UsageError(f"--onthrow: '{args.onthrow}' is not a class name")
            return run_launch(java, host=host, port=port, suspend=args.suspend, profile=args.profile,
                              allow=args.allow, read_only=args.read_only, agent_timeout=args.agent_timeout,
                              include_virtual_threads=args.include_virtual_threads, onthrow=args.onthrow,
                              onuncaught=args.onuncaught, launch_command=args.launch_command, connect=connect)
        if args.command == "serve":
            from .launching import run_serve

            if args.remote:
                from jdwpd.remote.far import run_serve_remote

                return run_serve_remote(link=args.link, remote=_parse_address(args.remote, what="--remote"),
                                        secret_file=args.secret_file)
            host, port = _parse_address(args.jdwp, what="--jdwp")
            return run_serve(link=args.link, secret_file=args.secret_file, host=host, port=port, allow=args.allow,
                             read_only=args.read_only)
        if args.command == "attach":
            from .launching import run_attach

            if args.remote or args.secret_file:
                if not (args.remote and args.secret_file):
                    raise UsageError("attach --remote needs --secret-file, and --secret-file needs --remote")
                from jdwpd.remote.far import run_attach_remote

                return run_attach_remote(args.pid, remote=_parse_address(args.remote, what="--remote"),
                                         secret_file=args.secret_file)
            host, port = _parse_address(args.jdwp, what="--jdwp")
            return run_attach(args.pid, host=host, port=port, allow=args.allow, read_only=args.read_only)
        if args.command == "connect":
            from jdwpd.remote.near import run_connect

            return run_connect(_parse_address(args.far, what="ADDR:PORT"), secret_file=args.secret_file,
                               jdwp=_parse_address(args.jdwp, what="--jdwp"), allow=args.allow,
                               read_only=args.read_only, retry=args.retry)
        if args.command == "java-home":
            from .java_shim import make_java_home

            print(make_java_home(args.directory, args.jdk))
            return 0
        if args.command == "ci":
            from jdwpd.ci.options import settings_from
            from jdwpd.ci.runner import run_ci

            return run_ci(settings_from(args))
        if args.command == "list":
            from jdwpd.daemon.fleet import run_list

            return run_list(args.json)
        if args.command == "doctor":
            from .doctor import run_doctor

            return run_doctor()
        if args.command == "demo":
            from .demo import run_demo

            host, port = _parse_address(args.jdwp, what="--jdwp")
            return run_demo(host, port)
        if args.command == "record":
            from .record import run_record

            return run_record(_parse_address(args.listen, what="--listen"), _parse_address(args.to, what="--to"),
                              out=args.out, once=args.once)
        parser.print_help()
        return 2
    except UsageError as e:
        print(f"jdwpd: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except OSError as e:
        # the machine said no (a folder we cannot write, a file we cannot read): the user's to fix,
        # so one line, not a traceback
        where = f" {e.filename}" if getattr(e, "filename", None) else ""
        print(f"jdwpd: {args.command or 'jdwpd'}:{where}: {e.strerror or e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # stdout closed early (`jdwpd record | head`): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
