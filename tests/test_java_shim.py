"""`jdwpd java`: the reference's -agentlib:jdwp options as jdwpd reads them, and which of java's
arguments are the launcher's (pure: no JVM)."""

from __future__ import annotations

import os

import pytest

from jdwpd.cli.java_shim import (
    JdwpOptions,
    OptionError,
    make_java_home,
    parse_jdwp_options,
    split_env_options,
    split_java_args,
)
from jdwpd.cli.main import UsageError


def test_the_reference_defaults():
    # server=n and suspend=y unless said otherwise, as the reference's
    assert parse_jdwp_options("transport=dt_socket,address=5005") == JdwpOptions(port=5005)


@pytest.mark.parametrize("text, expected", [
    ("transport=dt_socket,server=y,suspend=n,address=*:5005",
     JdwpOptions(server=True, suspend=False, host="0.0.0.0", port=5005)),
    ("transport=dt_socket,server=y", JdwpOptions(server=True)),
    ("transport=dt_socket,address=localhost:0,server=y,quiet=y", JdwpOptions(server=True, host="localhost", port=0,
                                                                             quiet=True)),
    ("transport=dt_socket,address=[::1]:7000", JdwpOptions(host="::1", port=7000)),
    ("transport=dt_socket,address=7000,timeout=2500", JdwpOptions(port=7000, timeout_ms=2500)),
    ("transport=dt_socket,server=y,allow=127.0.0.1;10.0.0.0/8", JdwpOptions(server=True,
                                                                           allow=("127.0.0.1", "10.0.0.0/8"))),
    ("transport=dt_socket,server=y,allow=*", JdwpOptions(server=True)),
    ("transport=dt_socket,server=y,onthrow=java.io.IOException,launch=/bin/echo",
     JdwpOptions(server=True, onthrow="java.io.IOException", launch="/bin/echo")),
    ("transport=dt_socket,server=y,onuncaught=y,launch=jdb,includevirtualthreads=y",
     JdwpOptions(server=True, onuncaught=True, launch="jdb", include_virtual_threads=True)),
    ("transport=dt_socket,server=y,strict=n,stdalloc=y,logfile=/tmp/x,logflags=255",
     JdwpOptions(server=True)),
    ("help", JdwpOptions(help=True)),
    # launch= alone runs at the start, with the port (the reference's launchOnInit).
    ("transport=dt_socket,server=y,launch=/bin/echo", JdwpOptions(server=True, launch="/bin/echo")),
    # A timeout that is no number is none, as the reference reads it.
    ("transport=dt_socket,server=y,timeout=soon", JdwpOptions(server=True)),
    ("transport=dt_socket,server=n,address=1,timeout=250ms", JdwpOptions(port=1, timeout_ms=250)),
])
def test_options(text, expected):
    assert parse_jdwp_options(text) == expected


@pytest.mark.parametrize("text, says", [
    ("transport=dt_socket,bogus=1", "unknown option 'bogus'"),
    ("transport=dt_socket,server=yes", "y or n"),
    ("server=y", "transport=dt_socket is required"),
    ("transport=dt_shmem,server=y", "dt_socket only"),
    ("transport=dt_socket", "needs the debugger's address"),
    ("transport=dt_socket,address=host:port", "invalid port number specified"),
    ("transport=dt_socket,address=70000", "invalid port number specified"),
    ("transport=dt_socket,address=1,onuncaught=y", "need launch="),
    ("transport=dt_socket,server=y,onthrow=java.io.IOException", "need launch="),
    ("transport=dt_socket,address=1,onuncaught=y,launch=/bin/echo", "go with server=y"),
    ("transport=dt_socket,address=1,launch=/bin/echo", "goes with server=y"),
    ("transport=dt_socket,,server=y", "is not NAME=VALUE"),
])
def test_malformed_options(text, says):
    with pytest.raises(OptionError, match=rf".*{says.replace('[', '.').replace(']', '.')}"):
        parse_jdwp_options(text)


@pytest.mark.parametrize("text, status, first", [
    ("transport=dt_socket,bogus=1", 1, "ERROR: JDWP option syntax error: -agentlib:jdwp=transport=dt_socket,bogus=1"),
    ("server=y", 1, "ERROR: JDWP no transport specified: -agentlib:jdwp=server=y"),
    ("transport=dt_socket,server=y,address=localhost:65F", 2,
     "ERROR: transport error 103: invalid port number specified"),
    ("transport=dt_socket,server=y,onuncaught=y", 1,
     "ERROR: JDWP Specify launch=<command line> when using onthrow or onuncaught suboption: "
     "-agentlib:jdwp=transport=dt_socket,server=y,onuncaught=y"),
    ("transport=dt_shmem,server=y", 134, "ERROR: transport library not found: dt_shmem"),
])
def test_refusals_say_what_the_reference_says(text, status, first):
    with pytest.raises(OptionError) as caught:
        parse_jdwp_options(text)
    assert caught.value.status == status
    assert caught.value.lines(f"-agentlib:jdwp={text}")[0] == first


@pytest.mark.parametrize("args, kept, text", [
    (["-Xdebug", "-Xrunjdwp:transport=dt_socket,address=1", "-cp", "x", "Main", "a"],
     ["-cp", "x", "Main", "a"], "transport=dt_socket,address=1"),
    (["-cp", "-agentlib:jdwp=not-an-option", "Main"], ["-cp", "-agentlib:jdwp=not-an-option", "Main"], None),
    (["-agentlib:jdwp=server=y", "-jar", "app.jar", "-agentlib:jdwp=x", "-Xdebug"],
     ["-jar", "app.jar", "-agentlib:jdwp=x", "-Xdebug"], "server=y"),
    (["-Xdebug", "Main", "-agentlib:jdwp=x"], ["-Xdebug", "Main", "-agentlib:jdwp=x"], None),
    (["--module-path", "m", "-agentlib:jdwp=a=b", "--module=mod/Main"], ["--module-path", "m", "--module=mod/Main"],
     "a=b"),
    (["-version"], ["-version"], None),
])
def test_only_the_launchers_options_count(args, kept, text):
    assert split_java_args(args) == (kept, text)


@pytest.mark.parametrize("value, rest, texts", [
    ("-agentlib:jdwp=transport=dt_socket,server=y,address=*:5005", "",
     ["transport=dt_socket,server=y,address=*:5005"]),
    ("-Xmx1g -agentlib:jdwp=transport=dt_socket,server=y  -Dx=1", "-Xmx1g -Dx=1", ["transport=dt_socket,server=y"]),
    # Quoted as the JVM reads them: quotes group and are removed, the rest keeps its quotes.
    ("'-agentlib:jdwp=transport=dt_socket,server=y' -Xdebug -D\"a b\"=c", '-D"a b"=c',
     ["transport=dt_socket,server=y"]),
    ("-Dp=-agentlib:jdwp=x -Xdebug", "-Dp=-agentlib:jdwp=x -Xdebug", []),  # a property's value; no agent
    ("-Xrunjdwp:transport=dt_socket -agentlib:jdwp=transport=dt_socket,server=y", "",
     ["transport=dt_socket", "transport=dt_socket,server=y"]),  # twice: the JVM refuses that
    ("-Dunclosed='a b", "-Dunclosed='a b", []),
])
def test_the_option_found_in_an_environment_variable(value, rest, texts):
    assert split_env_options(value) == (rest, texts)


def test_java_home_links_the_real_jdk_but_java(tmp_path):
    real = tmp_path / "jdk"
    (real / "bin").mkdir(parents=True)
    (real / "lib").mkdir()
    for tool in ("java", "javac"):
        (real / "bin" / tool).write_text("#!/bin/sh\n")
        (real / "bin" / tool).chmod(0o755)
    home = tmp_path / "home"
    make_java_home(str(home), str(real))
    assert os.readlink(home / "lib") == str(real / "lib")
    assert os.readlink(home / "bin" / "javac") == str(real / "bin" / "javac")
    script = (home / "bin" / "java").read_text()
    assert f"JDWPD_JAVA='{real}/bin/java'" in script and "-m jdwpd java" in script
    with pytest.raises(UsageError, match="not empty"):
        make_java_home(str(home), str(real))
    with pytest.raises(UsageError, match="not a JDK home"):
        make_java_home(str(tmp_path / "other"), str(tmp_path))
