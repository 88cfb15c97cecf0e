"""`jdwpd ci`'s command-line flags: kept apart from the rest (no attrs, no TOML) because every
`jdwpd` command builds the whole parser, and `jdwpd launch` pays for each import at start-up."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

#: Names whose values are secrets, matched by their words: "apiKey", "API_KEY" and "x-api-key" all
#: hold the words "api key"; "keys", "tokenizer" and "currentToken" hold neither "key" nor "auth token".
DEFAULT_REDACT_NAMES = ("password", "passwd", "passphrase", "secret", "credential", "credentials", "authorization",
                        "cookie", "api key", "apikey", "private key", "access key", "auth token", "access token",
                        "refresh token", "bearer token", "session token", "api token", "id token", "session id")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def duration(text: str) -> float:
    """'10m', '30s', '1.5h', '500ms' or plain seconds."""
    m = _DURATION.match(str(text))
    if not m:
        raise argparse.ArgumentTypeError(f"'{text}' is not a duration (e.g. 30s, 10m, 1h, 500ms)")
    return float(m.group(1)) * _UNITS[m.group(2)]


def _one_line_errors(p: argparse.ArgumentParser) -> None:
    """A mistake on `jdwpd ci`'s line is one line naming `jdwpd ci`, status 2: not argparse's
    usage block first, and not the top-level parser's usage for a flag it does not know (argparse
    hands a subcommand's leftovers up to the top parser)."""

    def error(message: str) -> NoReturn:
        sys.stderr.write(f"jdwpd ci: {message} (jdwpd ci --help lists the flags)\n")
        sys.exit(2)

    known = p.parse_known_args

    def parse_known_args(args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        ns, extra = known(args, namespace)
        if extra:
            error(f"unrecognized arguments: {' '.join(extra)}")
        return ns, extra

    # Replaced on the instance: `jdwpd ci`'s parser is a subparser argparse makes, which a subclass would not
    # reach; and typeshed declares parse_known_args overloaded, which one plain function cannot match.
    p.error = error  # type: ignore[method-assign]
    p.parse_known_args = parse_known_args  # type: ignore[method-assign, assignment]


def add_arguments(p: argparse.ArgumentParser) -> None:
    _one_line_errors(p)
    p.add_argument("--out", default="jdwpd-ci", metavar="DIR", help="where the evidence goes (default jdwpd-ci/)")
    p.add_argument("--config", metavar="FILE", help="probes and settings from a TOML file (docs/ci.md)")
    p.add_argument("--snapshot", action="append", default=[], metavar="LOC[@COND]",
                   help="capture stack and locals when LOC runs (and COND holds)")
    p.add_argument("--logpoint", action="append", default=[], metavar="LOC:TEMPLATE",
                   help="log TEMPLATE ({expr} parts) each time LOC runs, without stopping the program")
    p.add_argument("--assert", dest="asserts", action="append", default=[], metavar="LOC:EXPR",
                   help="EXPR must hold whenever LOC runs; a false one fails the run and leaves a snapshot")
    p.add_argument("--on-uncaught", action="store_true", help="snapshot every uncaught exception")
    p.add_argument("--on-throw", action="append", default=[], metavar="CLASS",
                   help="snapshot every throw of CLASS or a subclass, caught or not")
    p.add_argument("--on-test-failure", action="store_true",
                   help="snapshot each failing test's assertion (JUnit 4/5, TestNG), labelled with the test")
    p.add_argument("--on-timeout", metavar="DURATION", type=duration,
                   help="when the command runs longer: every thread of every VM (frames, locals, monitors, "
                        "deadlocks) is written down, then the command is ended")
    p.add_argument("--grace", metavar="DURATION", type=duration, default=10.0,
                   help="after --on-timeout: how long the command may take to end after SIGTERM (default 10s)")
    p.add_argument("--select", action="append", default=[], metavar="LABEL=VALUE",
                   help="probe only VMs whose label matches (main, pid, ppid, cwd, argv; VALUE may use * ?), "
                        "or hits in tests whose name (pkg.Class.method) matches: test=PATTERN")
    p.add_argument("--max-hits", type=int, default=None, metavar="N",
                   help="each probe stops after its first N hits per VM (default 50; logpoints 1000); one "
                        "probe's own cap goes after its location: --snapshot 'Foo.java:42#5@x > 0'")
    p.add_argument("--cpu-quota", default=None, metavar="SHARE",
                   help="the share of one CPU each probe's in-VM work may use (e.g. 1%%); past it the probe is "
                        "disabled (default: no quota, the job's own time limit is the budget)")
    p.add_argument("--expire", type=duration, default=None, metavar="DURATION",
                   help="probes are removed after this long")
    p.add_argument("--fail-on", action="append", default=[], choices=["assert", "exception", "probe"],
                   help="exit with status 3 when an assertion failed (assert), an exception or test failure was "
                        "captured (exception), or a probe could not be set or was disabled (probe), even if the "
                        "command succeeded")
    p.add_argument("--redact", action="append", default=[], metavar="REGEX",
                   help="also redact variables, fields and map keys whose name matches REGEX (besides names holding "
                        "the words of the default list: " + ", ".join(DEFAULT_REDACT_NAMES) + ")")
    p.add_argument("--no-default-redact", action="store_true",
                   help="leave the default list out: only --redact's patterns redact names")
    p.add_argument("--redact-value", action="append", default=[], metavar="REGEX",
                   help="redact string values that match")
    p.add_argument("--profile", choices=["full", "nothrow", "inspect"], default=None,
                   help="the agent's capability profile (default: the cheapest the probes allow)")
    p.add_argument("--junit-reports", action="append", default=[], metavar="DIR",
                   help="folders of JUnit XML reports to annotate with snapshots (default: target/surefire-"
                        "reports, build/test-results under the working directory)")
    p.add_argument("ci_command", nargs=argparse.REMAINDER, metavar="COMMAND", help="-- COMMAND [ARGS...]")
