"""`jdwpd java ARGS...`: a drop-in for the `java` launcher that serves the reference's own debug
option, `-agentlib:jdwp=...` (or `-Xrunjdwp:...`), through jdwpd.

IDEs, JDI's launching connector (and so jdb launching a class) and build tools start debuggees
with that option, most often with server=n: the debugger listens, the JVM connects to it.  Put a
script that runs `jdwpd java "$@"` where they look for `java` (`jdwpd java-home DIR` makes a JDK
home of that kind) and they debug through jdwpd unchanged.

The process that runs `jdwpd java` becomes the JVM (exec): its pid, exit status, signals and
standard streams are the JVM's own, as the caller expects of `java`.  The daemon runs in a child
process of its own that ends with the JVM.  A command line without the option is exec'd as is.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any, NamedTuple

from jdwpd.own_command import jdwpd_shell_command
from jdwpd.usage import UsageError

HELP = """\
jdwpd java: the reference agent's options, served by jdwpd (-agentlib:jdwp=OPTIONS or -Xrunjdwp:OPTIONS)
  transport=dt_socket      the only transport (required)
  server=y|n               y: listen at address; n (default): connect to a debugger listening there
  address=[HOST:]PORT      server=y: where to listen (default 127.0.0.1, port 0 picks one); server=n: required
  suspend=y|n              hold the VM at start until the debugger resumes it (default y)
  timeout=MS               server=n: how long to try to connect
  quiet=y|n                server=y: do not print 'Listening for transport dt_socket at address: PORT'
  allow=ADDR[;ADDR...]     server=y: only these debugger addresses ('*': any)
  onthrow=CLASS, onuncaught=y, launch=CMD, includevirtualthreads=y   as the reference's (server=y)
  strict, stdalloc, logfile, logflags, mutf8: accepted and ignored
The option may also sit in JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS or _JAVA_OPTIONS: it is taken out of it.
The java that runs: $JDWPD_JAVA, else $JAVA_HOME/bin/java, else java on PATH.
"""

_BOOLEANS = ("server", "suspend", "quiet", "onuncaught", "includevirtualthreads", "strict", "stdalloc", "mutf8")
_IGNORED = ("strict", "stdalloc", "logfile", "logflags", "mutf8")


class OptionError(ValueError):
    """An option string the reference refuses: the JVM does not start.  ``says`` are the reference's
    lines for it ({option}: the whole option as given), ``status`` its exit status."""

    def __init__(self, why: str, says: tuple[str, ...] = ("ERROR: JDWP option syntax error: {option}",),
                 status: int = 1) -> None:
        super().__init__(why)
        self.says = says
        self.status = status

    def lines(self, option: str) -> list[str]:
        return [line.format(option=option) for line in self.says]


def transport_error(code: int, why: str, detail: str | None = None) -> OptionError:
    """The reference's socket transport failing to start (no port, no bind, no connection): status 2."""
    return OptionError(detail or why, (f"ERROR: transport error {code}: {why}",
                             "ERROR: JDWP Transport dt_socket failed to initialize, TRANSPORT_INIT(510)",
                             "JDWP exit error AGENT_ERROR_TRANSPORT_INIT(197): No transports initialized"), 2)


class JdwpOptions(NamedTuple):
    """The reference agent's options, as far as they mean something to jdwpd.

    A named tuple, not attrs: `jdwpd java` parses them before it starts the JVM, which would wait
    for attrs' import (~35 ms); the daemon, forked off, imports it while the JVM starts."""

    server: bool = False
    host: str | None = None  # None: the default (loopback)
    port: int | None = None  # None: none given (server=y picks one)
    suspend: bool = True
    timeout_ms: int | None = None
    quiet: bool = False
    allow: tuple[str, ...] = ()
    onthrow: str | None = None
    onuncaught: bool = False
    launch: str | None = None
    include_virtual_threads: bool = False
    help: bool = False


def _address(text: str) -> tuple[str | None, int]:
    host, sep, port = text.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise transport_error(103, "invalid port number specified")
    name = host.strip("[]") if sep else None
    if name == "*":
        name = "0.0.0.0"
    return name or None, int(port)


def parse_jdwp_options(text: str) -> JdwpOptions:
    """The text after '-agentlib:jdwp=' or '-Xrunjdwp:'."""
    if text == "help":
        return JdwpOptions(help=True)
    values: dict[str, str] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise OptionError(f"'{item}' is not NAME=VALUE")
        values[name] = value
    fields: dict[str, Any] = {}  # JdwpOptions' keyword arguments, each of its own type
    for name, value in values.items():
        if name in _BOOLEANS:
            if value not in ("y", "n"):
                raise OptionError(f"{name}={value}: y or n expected")
            flag = value == "y"
            if name == "includevirtualthreads":
                fields["include_virtual_threads"] = flag
            elif name not in _IGNORED:
                fields[name] = flag
        elif name == "timeout":
            # The reference reads the number's leading digits and takes anything else for 0 (none).
            digits = value[:len(value) - len(value.lstrip("0123456789"))]
            fields["timeout_ms"] = (int(digits) or None) if digits else None
        elif name == "allow":
            fields["allow"] = () if value == "*" else tuple(a for a in value.split(";") if a)
        elif name in ("onthrow", "launch"):
            if not value:
                raise OptionError(f"{name}= needs a value")
            fields[name] = value
        elif name not in _IGNORED and name not in ("transport", "address"):
            raise OptionError(f"unknown option '{name}'")
    if "transport" not in values:
        raise OptionError("transport=dt_socket is required", ("ERROR: JDWP no transport specified: {option}",))
    server = fields.get("server", False)
    if not server and "address" not in values:
        raise OptionError("server=n needs the debugger's address (address=[HOST:]PORT)",
                          (f"ERROR: JDWP Non-server transport {values['transport']} must have a connection address "
                           "specified through the 'address=' option", "ERROR: JDWP invalid option: {option}"))
    if (fields.get("onthrow") or fields.get("onuncaught")) and not fields.get("launch"):
        raise OptionError("onthrow= and onuncaught=y need launch=",
                          ("ERROR: JDWP Specify launch=<command line> when using onthrow or onuncaught suboption: "
                           "{option}",))
    # The options are well formed: now the transport starts, and fails as the reference's does.
    if values["transport"] != "dt_socket":  # (the reference's JVM aborts: status 134)
        name = values["transport"]
        raise OptionError(f"jdwpd speaks dt_socket only, not {name}", (
            f"ERROR: transport library not found: {name}",
            f"ERROR: JDWP Transport {name} failed to initialize, TRANSPORT_LOAD(509)",
            "JDWP exit error AGENT_ERROR_TRANSPORT_LOAD(196): No transports initialized"), 134)
    if "address" in values:
        fields["host"], fields["port"] = _address(values["address"])
    options = JdwpOptions(**fields)
    if not options.server and (options.onthrow or options.onuncaught or options.allow):
        raise OptionError("onthrow, onuncaught and allow go with server=y (jdwpd connects to a listening "
                          "debugger at the JVM's start)", ("ERROR: JDWP jdwpd: onthrow, onuncaught and allow go with "
                                                           "server=y: {option}",))
    if options.launch and not options.server and not (options.onthrow or options.onuncaught):
        raise OptionError("launch= without onthrow= or onuncaught=y goes with server=y",
                          ("ERROR: JDWP jdwpd: launch= without onthrow= or onuncaught=y goes with server=y: "
                           "{option}",))
    return options


# Launcher options whose value is the next argument: what follows them is no main class.
_TAKES_VALUE = frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path",
                          "--add-modules", "--limit-modules", "--add-reads", "--add-exports", "--add-opens",
                          "--patch-module", "--enable-native-access", "--source", "-d", "--describe-module"})
_ENDS_OPTIONS = frozenset({"-jar", "-m", "--module"})
_OBSOLETE = frozenset({"-Xdebug", "-Xnoagent"})  # the reference's old companions: no meaning for jdwpd


def _jdwp_text(arg: str) -> str | None:
    if arg.startswith("-agentlib:jdwp=") or arg.startswith("-Xrunjdwp:"):
        return arg.split("=", 1)[1] if arg.startswith("-agentlib:") else arg[len("-Xrunjdwp:"):]
    return "" if arg in ("-agentlib:jdwp", "-Xrunjdwp") else None


def split_java_args(args: list[str]) -> tuple[list[str], str | None]:
    """(args without the JDWP agent option and its old companions, the option's text or None).
    Only the launcher's options count: the same text after the main class is the program's."""
    found: str | None = None
    end = len(args)
    i = 0
    while i < len(args):
        arg = args[i]
        text = _jdwp_text(arg)
        if text is not None:
            found = text
        elif arg in _TAKES_VALUE:
            i += 2
            continue
        elif arg in _ENDS_OPTIONS or not arg.startswith("-") or arg.startswith("--module="):
            end = i
            break
        i += 1
    if found is None:
        return list(args), None
    options = [a for a in args[:end] if _jdwp_text(a) is None and a not in _OBSOLETE]
    return options + list(args[end:]), found


# Where else the JVM reads its options, in the order it reads them, and what it prints on finding one
# (the command line comes between JDK_JAVA_OPTIONS and _JAVA_OPTIONS).  Containers and CI often turn
# on debugging through JAVA_TOOL_OPTIONS.
_ENV_OPTIONS = (("JAVA_TOOL_OPTIONS", "Picked up JAVA_TOOL_OPTIONS: "),
                ("JDK_JAVA_OPTIONS", "NOTE: Picked up JDK_JAVA_OPTIONS: "),
                ("_JAVA_OPTIONS", "Picked up _JAVA_OPTIONS: "))
_DUPLICATE = ("ERROR: Cannot load this JVM TI agent twice, check your java command line for duplicate jdwp "
              "options.\nError occurred during initialization of VM\nagent library failed to init: jdwp")


def _option_spans(text: str) -> list[tuple[int, int, str]]:
    """The options of an environment variable as the JVM splits them: on white space, quotes ('' or "")
    grouping and removed, no escapes.  (start, end, option) each; an unmatched quote runs to the end."""
    spans = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start, value = i, []
        while i < n and not text[i].isspace():
            if text[i] in "'\"":
                close = text.find(text[i], i + 1)
                close = n if close < 0 else close
                value.append(text[i + 1:close])
                i = close + 1
            else:
                value.append(text[i])
                i += 1
        spans.append((start, min(i, n), "".join(value)))
    return spans


def split_env_options(text: str) -> tuple[str, list[str]]:
    """(the variable without the JDWP agent options and their old companions, the options' texts).
    The other options stay as they were written."""
    spans = _option_spans(text)
    found = [t for t in (_jdwp_text(option) for _, _, option in spans) if t is not None]
    if not found:
        return text, []
    kept, at = [], 0
    for start, end, option in spans:
        if _jdwp_text(option) is not None or option in _OBSOLETE:
            kept.append(text[at:start])
            at = end
            while at < len(text) and text[at].isspace():
                at += 1
    kept.append(text[at:])
    return "".join(kept).strip(), found


def real_java() -> str:
    for candidate in (os.environ.get("JDWPD_JAVA"),
                      os.path.join(os.environ["JAVA_HOME"], "bin", "java") if os.environ.get("JAVA_HOME") else None,
                      shutil.which("java")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError("cannot find java: set JDWPD_JAVA or JAVA_HOME")


def run_java(args: list[str]) -> int:
    """Never returns on success: this process becomes the JVM."""
    java = real_java()
    kept, text = split_java_args(args)
    found = [] if text is None else [text]
    from_env: list[tuple[str, str, str]] = []  # (variable, what stays of it, its banner)
    for name, banner in _ENV_OPTIONS:
        value = os.environ.get(name)
        if value:
            rest, texts = split_env_options(value)
            if texts:
                found.extend(texts)
                from_env.append((name, rest, banner + value))
    if not found:
        os.execv(java, [java, *args])
    for name, rest, banner in from_env:
        # The option leaves the variable (the JVM must not load the reference agent); a variable left
        # empty is unset and its banner printed here, as the JVM would have, else the JVM prints it.
        if rest:
            os.environ[name] = rest
        else:
            del os.environ[name]
            print(banner, file=sys.stderr)
    if len(found) > 1:
        print(_DUPLICATE, file=sys.stderr)
        return 1
    text = found[0]
    from jdwpd.daemon.endpoints import EndpointError

    from .launching import exec_launch

    try:
        options = parse_jdwp_options(text)
        if options.help:
            print(HELP, end="")
            return 0
        try:
            return exec_launch(java, kept, options)
        except EndpointError as e:
            raise transport_error(202, e.reason, str(e)) from None
    except OptionError as e:
        # The reference's words first (tools read them), then what jdwpd has to say.
        for line in e.lines(f"-agentlib:jdwp={text}"):
            print(line, file=sys.stderr)
        print(f"jdwpd: {e}", file=sys.stderr)
        return e.status


def jdk_home_of(java: str) -> str:
    """The JDK home a java executable belongs to (bin/java's grandparent, links resolved)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(java)))


def make_java_home(directory: str, jdk: str | None = None) -> str:
    """A JDK home whose bin/java is `jdwpd java` over the real one, and everything else the real JDK's
    (links): point an IDE, JDI's launching connector (home=) or a build tool at it, and the debuggees
    they start with -agentlib:jdwp are served by jdwpd."""
    real = os.path.realpath(jdk) if jdk else jdk_home_of(real_java())
    java = os.path.join(real, "bin", "java")
    if not os.access(java, os.X_OK):
        raise UsageError(f"{real} is not a JDK home (no bin/java)")
    if os.path.exists(directory) and os.listdir(directory):
        raise UsageError(f"{directory} exists and is not empty")
    os.makedirs(os.path.join(directory, "bin"), exist_ok=True)
    for entry in os.listdir(real):
        if entry != "bin":
            os.symlink(os.path.join(real, entry), os.path.join(directory, entry))
    for entry in os.listdir(os.path.join(real, "bin")):
        if entry != "java":
            os.symlink(os.path.join(real, "bin", entry), os.path.join(directory, "bin", entry))
    script = os.path.join(directory, "bin", "java")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n# jdwpd: the reference's -agentlib:jdwp served by jdwpd (jdwpd java-home)\n"
                f"JDWPD_JAVA='{java}' exec {jdwpd_shell_command()} java \"$@\"\n")
    os.chmod(script, 0o755)
    return directory
