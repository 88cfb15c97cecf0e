"""Session fixtures of tests/agent: the agent built from the tree, the debuggees compiled once."""

from __future__ import annotations

import shutil

import pytest
from agent_support import build_agent, compile_agent_objects, compile_java, markers

HAVE_JDK = shutil.which("javac") is not None and shutil.which("gcc") is not None


@pytest.fixture(scope="session")
def agent_objects(tmp_path_factory):
    """agent/*.c compiled once a session, each file alone: module name -> object file."""
    if not HAVE_JDK:
        pytest.skip("needs gcc and a JDK")
    return compile_agent_objects(tmp_path_factory.mktemp("agent-objects"))


@pytest.fixture(scope="session")
def agent_so(tmp_path_factory, agent_objects):
    return build_agent(tmp_path_factory.mktemp("agent"), agent_objects)


@pytest.fixture(scope="session")
def classes(tmp_path_factory):
    if not HAVE_JDK:
        pytest.skip("needs a JDK")
    return compile_java(tmp_path_factory.mktemp("classes"))


@pytest.fixture(scope="session")
def lines():
    return markers()
