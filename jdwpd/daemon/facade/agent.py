"""Asking the agent, with its answer's status turned into the JDWP error the reference gives."""

from __future__ import annotations

from typing import Any, NoReturn

from jdwpd.errors import AgentError, JdwpError, jdwp_code_for


def raise_agent(e: AgentError) -> NoReturn:
    raise JdwpError(jdwp_code_for(e.status), str(e)) from e


async def ask(link: Any, name: str, **fields: Any) -> dict:
    """link.request, with an agent status turned into the JDWP error the reference gives."""
    try:
        return await link.request(name, **fields)
    except AgentError as e:
        raise_agent(e)


async def cached(coro: Any) -> Any:
    """Await a ClassCache call, turning agent statuses into JDWP errors."""
    try:
        return await coro
    except AgentError as e:
        raise_agent(e)
