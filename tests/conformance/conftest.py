"""Fixtures of the conformance suite: its own debuggee compiled once, and scenario runs shared by tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jdwpd.testing import debuggees
from tests.conformance.classfile import add_source_debug_extension

CONF_SOURCES = Path(__file__).resolve().parent.parent / "java" / "conformance"


@pytest.fixture(scope="session")
def conf_classes(sample_classes) -> Path:
    return debuggees.compile_sources(CONF_SOURCES)


@pytest.fixture(scope="session")
def conf_markers() -> dict[str, int]:
    return debuggees.all_markers(CONF_SOURCES)


SMAP = "SMAP\nConfStrata.java\nFoo\n*S Foo\n*F\n1 Foo.foo\n*L\n1#1,5:6\n*E\n"


@pytest.fixture(scope="session")
def conf_sde_classes(conf_classes, tmp_path_factory) -> Path:
    """Conf's classes, ConfStrata's with a SourceDebugExtension (javac never writes one)."""
    out = tmp_path_factory.mktemp("conf-sde")
    shutil.copytree(conf_classes, out, dirs_exist_ok=True)
    strata = out / "ConfStrata.class"
    strata.write_bytes(add_source_debug_extension(strata.read_bytes(), SMAP))
    return out


@pytest.fixture(scope="session")
def nodebug_classes(sample_classes, tmp_path_factory) -> str:
    """A classpath whose main class NoDebug was compiled with -g:none, then Sample's classes."""
    from tests.commands.types_support import nodebug_classpath

    return nodebug_classpath(tmp_path_factory.mktemp("nodebug"), sample_classes)
