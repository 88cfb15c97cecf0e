"""jdwpd's vendor command set (128, "Jdwpd"): conditions, budgets (and captures) run in the agent.

docs/extensions.md defines the commands.  A session enables the extension with
VirtualMachine.JdwpdHello (1, 100: jdwpd_probe.py; a probe that the reference answers safely); until then
every other command of the set answers NOT_IMPLEMENTED, as a server without the extension does,
and the session's Conditional modifiers are accepted and ignored, as the reference ignores them.
The ids this set hands out name objects (a compiled condition, a budget) that the session
attaches to an EventRequest.Set through JDWP's reserved Conditional modifier (modKind 2): the
daemon then sends the object's bytes to the agent with the request (protocol/link.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jdwpd.daemon.commands import Context
from jdwpd.daemon.fast.settings import FAST
from jdwpd.daemon.model.ext_objects import SessionObjects
from jdwpd.daemon.model.requests import Modifier
from jdwpd.errors import AgentError, JdwpError
from protocol.agent_code import BudgetFlag, ObjKind, encode_budget, encode_capture, encode_catch_filter
from protocol.constants import ErrorCode, JdwpdFeature, ModKind

if TYPE_CHECKING:  # the message classes are made at run time: their types are protocol/message_types.pyi's
    from jdwpd.expr.agent_code import FieldRef
    from protocol.messages import Jdwpd, VirtualMachine

# The expression compiler (jdwpd/expr, ~22 ms of imports) is imported at the first Compile* command,
# not with the command table: the table loads before a launched VM's port is announced, and most
# sessions (every plain JDWP debugger) never compile an expression.

SET_NAME = "Jdwpd"
# 2: DefineBudget's flags, the JdwpdConditionError event; 3: DefineCatchFilter; 4: PushStops (docs/extensions.md)
VERSION = 4
STATUS_OK, STATUS_ERROR, STATUS_NOT_IN_AGENT = 0, 1, 2
_MOD_STATIC = 0x0008


def _state(ctx: Context) -> SessionObjects:
    """The session's objects (the VM's registry, model/ext_objects.py); NOT_IMPLEMENTED before its hello."""
    st = ctx.vm.ext_objects.of(ctx.session)
    if st is None:
        raise JdwpError(ErrorCode.NOT_IMPLEMENTED, "send VirtualMachine.JdwpdHello first")
    return st


def _define(ctx: Context, data: bytes) -> int:
    return _state(ctx).define(data)


def conditional_modifiers(ctx: Context, mods: list[Modifier]) -> list[Modifier]:
    """EventRequest.Set's modifiers with each Conditional resolved: for a session with the extension,
    its id's object goes to the agent (an unknown id is ILLEGAL_ARGUMENT); without it, Conditional is
    dropped, as the reference ignores it."""
    st = ctx.vm.ext_objects.of(ctx.session)
    out = []
    for m in mods:
        if m.mod_kind != ModKind.CONDITIONAL:
            out.append(m)
        elif st is not None:
            data = st.get(m.args["expr_id"])
            if data is None:
                raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"no jdwpd expression or budget {m.args['expr_id']}")
            out.append(Modifier(int(ModKind.CONDITIONAL), {"expr_id": m.args["expr_id"], "program": data}))
    return out


class _Resolver:
    """The compiler's view of the VM (jdwpd/expr/agent_code.py Resolver) over the daemon's caches."""

    def __init__(self, vm: Any, method: Any, index: int) -> None:
        self.vm = vm
        self.method_id = method.method_id
        self.declaring = method.declaring
        self.static = bool(method.modifiers & _MOD_STATIC)
        self.index = index
        self._refs: dict[str, int | None] = {}

    async def variables(self) -> list[Any]:
        try:
            table = await self.vm.classes.variable_table(self.method_id)
        except AgentError:
            return []  # compiled without -g: names resolve as fields and classes only
        return [v for v in table.variables if v.start <= self.index < v.start + v.length]

    async def class_ref(self, signature: str) -> int | None:
        if signature not in self._refs:
            found = await self.vm.classes_by_signature(signature)
            self._refs[signature] = found[0]["ref"] if found else None
        return self._refs[signature]

    async def signature(self, ref: int) -> str:
        return (await self.vm.classes.signature(ref)).signature

    async def fields(self, ref: int) -> list[FieldRef]:
        from jdwpd.expr.agent_code import FieldRef

        return [FieldRef(f.field_id, f.name, f.signature, bool(f.modifiers & _MOD_STATIC), ref)
                for f in await self.vm.classes.fields(ref)]

    async def superclass(self, ref: int) -> int:
        return await self.vm.classes.superclass(ref)

    async def interfaces(self, ref: int) -> tuple[int, ...]:
        return await self.vm.classes.interfaces(ref)


async def hello(ctx: Context, cmd: VirtualMachine.JdwpdHello.Command) -> Any:
    ctx.vm.ext_objects.hello(ctx.session)
    features = (JdwpdFeature.CONDITIONS | JdwpdFeature.BUDGETS | JdwpdFeature.CAPTURES
                | JdwpdFeature.STOP_ON_ERROR | JdwpdFeature.CATCH_FILTERS)
    if _pushes_stops(ctx.vm):
        features |= JdwpdFeature.PUSHED_STOPS
    return {"version": VERSION, "features": int(features)}


def _pushes_stops(vm: Any) -> bool:
    """Whether this VM can push stops: it reads them ahead (not where the remote far side does)."""
    return bool(FAST.push_stops and getattr(vm, "reads_ahead", False))


async def push_stops(ctx: Context, cmd: Jdwpd.PushStops.Command) -> Any:
    if cmd.enabled and not _pushes_stops(ctx.vm):
        raise JdwpError(ErrorCode.NOT_IMPLEMENTED, "this daemon does not push stops (JdwpdHello's features say so)")
    _state(ctx).pushes_stops = bool(cmd.enabled)


async def _compile(ctx: Context, cmd: Jdwpd.CompileCondition.Command | Jdwpd.CompileExpression.Command,
                   compiler: Any) -> dict:
    from jdwpd.expr.agent_code import NotInAgent
    from jdwpd.expr.errors import ExpressionError

    _state(ctx)
    vm = ctx.vm
    try:
        method = await vm.classes.find_method(cmd.ref_type, cmd.method_id)
    except AgentError as e:
        raise JdwpError(ErrorCode.INVALID_METHODID, str(e)) from None
    try:
        program = await compiler(cmd.expression, _Resolver(vm, method, cmd.index))
    except NotInAgent as e:
        return {"expr_id": 0, "status": STATUS_NOT_IN_AGENT, "column": e.column or 0, "message": e.message,
                "signature": ""}
    except ExpressionError as e:
        return {"expr_id": 0, "status": STATUS_ERROR, "column": e.column or 0, "message": e.message, "signature": ""}
    except (JdwpError, AgentError) as e:
        if _code(e) != ErrorCode.CLASS_NOT_PREPARED:
            raise
        # A type the expression names is loaded (by the verifier, say) but not prepared: its fields
        # are not known yet. Like a name that does not resolve yet, the client may try again later.
        return {"expr_id": 0, "status": STATUS_ERROR, "column": 0, "signature": "",
                "message": "a class the expression uses is not prepared yet: try again once it is"}
    return {"expr_id": _define(ctx, program.program), "status": STATUS_OK, "column": 0, "message": "",
            "signature": program.signature}


def _code(e: JdwpError | AgentError) -> int:
    return e.code if isinstance(e, JdwpError) else e.status


async def compile_condition_cmd(ctx: Context, cmd: Jdwpd.CompileCondition.Command) -> Any:
    from jdwpd.expr.agent_code import compile_condition

    r = await _compile(ctx, cmd, compile_condition)
    del r["signature"]  # always boolean
    return r


async def compile_expression_cmd(ctx: Context, cmd: Jdwpd.CompileExpression.Command) -> Any:
    """A watch expression for a capture: any type, and its static type in the reply."""
    from jdwpd.expr.agent_code import compile_expression

    return await _compile(ctx, cmd, compile_expression)


_CAPTURE_MAX = {"frames": 256, "locals_frames": 256, "depth": 16, "max_string": 65535, "max_items": 65535,
                "max_bytes": 16 << 20, "max_micros": 10_000_000}


async def define_capture(ctx: Context, cmd: Jdwpd.DefineCapture.Command) -> Any:
    st = _state(ctx)
    for name, most in _CAPTURE_MAX.items():
        v = getattr(cmd, name)
        if not 0 <= v <= most:
            raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"{name} must be in 0..{most}")
    watches = []
    for w in cmd.watches:
        data = st.get(w.expr_id)
        if data is None or program_kind(data) != ObjKind.CONDITION:
            raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"no jdwpd expression {w.expr_id}")
        watches.append(data)
    data = encode_capture(cmd.frames, cmd.locals_frames, cmd.depth, cmd.max_string, cmd.max_items, cmd.max_bytes,
                          cmd.max_micros, cmd.this_object, watches, ids=cmd.object_ids)
    return {"capture_id": _define(ctx, data)}


async def define_budget(ctx: Context, cmd: Jdwpd.DefineBudget.Command) -> Any:
    _state(ctx)
    if cmd.hit_cap < 0 or cmd.expires_millis < 0 or cmd.rate_per_second < 0 or not 0 <= cmd.cpu_ppm <= 1_000_000:
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, "budget fields are >= 0, cpuPpm at most 1000000")
    if cmd.flags & ~int(BudgetFlag.STOP_ON_ERROR):
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, f"budget flags {cmd.flags:#x}: only 1 (STOP_ON_ERROR) is defined")
    data = encode_budget(cmd.hit_cap, cmd.expires_millis, cmd.rate_per_second, cmd.cpu_ppm, cmd.flags)
    return {"budget_id": _define(ctx, data)}


async def define_catch_filter(ctx: Context, cmd: Jdwpd.DefineCatchFilter.Command) -> Any:
    _state(ctx)
    try:
        data = encode_catch_filter([p.class_pattern for p in cmd.caught_in],
                                   [p.class_pattern for p in cmd.not_caught_in])
    except ValueError as e:
        raise JdwpError(ErrorCode.ILLEGAL_ARGUMENT, str(e)) from None
    return {"filter_id": _define(ctx, data)}


async def forget(ctx: Context, cmd: Jdwpd.Forget.Command) -> Any:
    _state(ctx).forget(cmd.id)  # requests set with it keep their copy


async def request_stats(ctx: Context, cmd: Jdwpd.RequestStats.Command) -> Any:
    _state(ctx)
    req = next((r for r in ctx.vm.requests.owned_by(ctx.session) if r.request_id == cmd.request_id), None)
    if req is None or not any(m.mod_kind == ModKind.CONDITIONAL and m.args.get("program") for m in req.modifiers):
        raise JdwpError(ErrorCode.INVALID_EVENT_TYPE, f"request {cmd.request_id} has no jdwpd condition or budget")
    c = await ctx.vm.request_counters(req)
    return {"evaluations": c["evaluations"], "trues": c["trues"], "null_errors": c["null"],
            "index_errors": c["index"], "arithmetic_errors": c["arithmetic"], "type_errors": c["type"],
            "other_errors": c["other"], "cost_nanos": c["cost_ns"], "hits": c["hits"],
            "disabled_reason": c["disabled"], "dropped_captures": c.get("dropped", 0),
            "locals_walked": c.get("locals_walked", 0), "locals_by_jvmti": c.get("locals_by_jvmti", 0),
            "locals_in_frame": c.get("locals_in_frame", 0)}


def program_kind(data: bytes) -> int:
    return data[0] if data else 0


assert int(ObjKind.CONDITION) == 1  # the agent's first byte (protocol/agent_code.py)

HANDLERS = {
    "CompileCondition": compile_condition_cmd,
    "DefineCapture": define_capture,
    "DefineBudget": define_budget,
    "Forget": forget,
    "RequestStats": request_stats,
    "CompileExpression": compile_expression_cmd,
    "DefineCatchFilter": define_catch_filter,
    "PushStops": push_stops,
}
