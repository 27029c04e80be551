"""The Python side of a generated program: expressions and statements that carry their Slang
text and how to evaluate them in double, so the generator knows each program's value and
every discrete decision it takes (branches, min/max/abs/clamp, int conversions, loop trip
counts) at a point.

Values: float for REAL, tuple of floats for vectors, tuple for fixed arrays, dict for
structs, int, bool. Aggregates are never changed in place (an element or field store makes
a new one), so sharing them between variables is safe.
"""

import math

# A value past this, or not finite, makes the program (or the point) unusable: finite
# differences at h = 1e-6 lose their digits well before.
MAX_MAGNITUDE = 1e5
# Loop iterations one evaluation of the entry function may take (lavapipe stops a kernel's
# loops after 65,535 in total, and the kernel calls the entry function many times).
MAX_STEPS = 600


class Reject(Exception):
    """The program is unusable at this point (too large a value, too many iterations)."""


class ReturnSignal(Exception):
    def __init__(self, value=None):
        Exception.__init__(self)
        self.value = value


class BreakSignal(Exception):
    pass


class ContinueSignal(Exception):
    pass


class Ctx:
    """One evaluation: the decisions taken, in order, and the smallest distance of a decided
    quantity from its boundary."""

    def __init__(self, functions):
        self.functions = functions
        self.trace = []
        self.margin = math.inf
        self.steps = 0

    def decide(self, margin, outcome):
        self.trace.append(outcome)
        self.margin = min(self.margin, margin)
        return outcome

    def step(self):
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Reject("too many loop iterations")


def check(v):
    """v, after checking that every component is finite and not too large."""
    if isinstance(v, float):
        if not math.isfinite(v) or abs(v) > MAX_MAGNITUDE:
            raise Reject("value out of range")
    elif isinstance(v, tuple):
        for c in v:
            check(c)
    elif isinstance(v, dict):
        for c in v.values():
            check(c)
    return v


class Expr:
    """An expression: its Slang text, its type name and how to evaluate it."""

    def __init__(self, text, ty, ev):
        self.text = text
        self.ty = ty
        self.ev = ev


class Stmt:
    """A statement: its Slang lines (without indentation, nested blocks as lists) and how
    to run it on an environment (a dict of local variables)."""

    __slots__ = ("lines", "run")

    def __init__(self, lines, run):
        self.lines = lines
        self.run = run


def render(lines, indent):
    out = []
    for line in lines:
        if isinstance(line, list):
            out.extend(render(line, indent + 1))
        else:
            out.append("  " * indent + line)
    return out


def run_block(stmts, env, ctx):
    for s in stmts:
        s.run(env, ctx)


def run_iteration(body, env, ctx):
    """Runs one iteration of a loop's body; False when it leaves the loop (`break`)."""
    try:
        run_block(body, env, ctx)
    except BreakSignal:
        return False
    except ContinueSignal:
        pass
    return True


def vec_map(f, *vs):
    return tuple(f(*cs) for cs in zip(*vs))


def splat(v, n):
    return v if isinstance(v, tuple) else (v,) * n


class Function:
    """A generated function. params: (name, type, mode) with mode '', 'inout', 'out' or
    'no_diff'; ret: a type name or 'void'. `call` returns the result and the final values
    of the inout and out parameters."""

    def __init__(self, name, params, ret, body, attrs="[Differentiable] ", text=None):
        self.name = name
        self.params = params
        self.ret = ret
        self.body = body
        self.attrs = attrs
        self.text = text

    def call(self, args, ctx, this=None):
        """`this`: a method's fields, seen as variables (and changed in place: the caller
        passes a copy and keeps it as the struct's new value)."""
        env = this if this is not None else {}
        for (name, _, mode), a in zip(self.params, args):
            if mode != "out":
                env[name] = a
        result = None
        try:
            run_block(self.body, env, ctx)
        except ReturnSignal as r:
            result = r.value
        outs = [env.get(name) for name, _, mode in self.params if mode in ("inout", "out")]
        return result, outs
