"""Random differentiable Slang programs, as Slang users write them, each with a Python model.

generate(seed) gives the same Program for the same seed: a source over the type macro REAL
(double, `//GRADCHECK-REAL: double`) with `[Differentiable]` helper functions (plain, with
`inout`/`out`/`no_diff` parameters, taking vectors, fixed arrays and a struct), a struct
that declares IDifferentiable with a `no_diff` field, an int field, a method and a
[mutating] method, a function with correct [ForwardDerivative]/[BackwardDerivative]
custom derivatives, and an entry function `f(REAL x0, ...)` built of declarations,
assignments, if/else, switch, for loops with constant bounds and with [MaxIters(n)],
while loops, break/continue, early returns and the intrinsics sin cos tanh atan exp log
sqrt pow min max clamp abs lerp mad dot.

The model (model.py) evaluates the program in double. The check points are chosen with
it: at each one, every discrete decision (branch, min/max/abs/clamp side, int conversion,
trip count) is taken the same way at every sampled point of a box around it, and is far
from its boundary, so f is smooth there and finite differences are meaningful. Arguments
of log and sqrt are positive by construction; `no_diff` arguments and fields get values
that do not depend on the inputs, so finite differences agree with the derivative.
"""

import math
import random
import re

from model import (Ctx, Expr, Function, Reject, ReturnSignal, BreakSignal, ContinueSignal,
                   Stmt, check, render, run_block, run_iteration, splat, vec_map)
import symbolic

SLANG_TYPE = {"real": "REAL", "vec3": "vector<REAL, 3>", "int": "int", "bool": "bool",
              "S": "Particle"}
ARRAY_LEN = 3


def decl(ty, name):
    if ty == "arr3":
        return "REAL %s[%d]" % (name, ARRAY_LEN)
    return "%s %s" % (SLANG_TYPE[ty], name)


def field_stores(var, field, value):
    """The statements that set one field: one store per element for an array."""
    if value.ty == "arr3":
        return ["%s.%s[%d] = %s;" % (var, field, i, p.text) for i, p in enumerate(value.parts)]
    return ["%s.%s = %s;" % (var, field, value.text)]


def const(rng, lo=-24, hi=24):
    """A constant exactly representable in float, so float literals mean what the model
    computes."""
    return rng.randint(lo, hi) / 8.0


def lit(c):
    return repr(float(c))


class Struct:
    """The program's IDifferentiable struct: field a always, the others by chance."""

    def __init__(self, rng):
        self.fields = [("a", "real", "")]
        if rng.random() < 0.7:
            self.fields.append(("v", "vec3", ""))
        if rng.random() < 0.6:
            self.fields.append(("w", "arr3", ""))
        if rng.random() < 0.6:
            self.fields.append(("c", "real", "no_diff"))
        if rng.random() < 0.5:
            self.fields.append(("k", "int", ""))
        self.methods = {}

    def lines(self):
        out = ["struct Particle : IDifferentiable {"]
        for name, ty, mode in self.fields:
            out.append("  %s%s;" % ("no_diff " if mode else "", decl(ty, name)))
        for m in self.methods.values():
            out.extend("  " + l for l in m.text)
        out.append("};")
        return out


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.counter = 0
        self.functions = {}
        self.order = []
        self.struct = None
        self.scopes = []
        # Per function being generated: the return type, whether a loop encloses.
        self.ret = None
        self.loop_depth = 0
        # Whether second-order checks apply: every custom derivative is [Differentiable].
        self.second_order = True

    # Names and scopes.

    def fresh(self, prefix):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def declare(self, name, ty, writable=True):
        self.scopes[-1][name] = (ty, writable)

    def vars_of(self, ty, writable=False):
        out = []
        for scope in self.scopes:
            for name, (t, w) in scope.items():
                if t == ty and (w or not writable):
                    out.append(name)
        return out

    def push(self):
        self.scopes.append({})

    def pop(self):
        self.scopes.pop()

    # Expressions.

    def real(self, d):
        rng = self.rng
        if d <= 0 or rng.random() < 0.2:
            return self.real_leaf()
        kinds = ["bin", "bin", "bin", "div", "neg", "unary", "exp", "log", "sqrt", "pow",
                 "minmax", "clamp", "abs", "lerp", "select", "mad", "dot", "comp", "call",
                 "call", "custom", "method", "elem", "intreal"]
        k = rng.choice(kinds)
        r = getattr(self, "real_" + k)(d - 1)
        return r if r is not None else self.real_leaf()

    def real_leaf(self):
        rng = self.rng
        names = self.vars_of("real")
        if names and rng.random() < 0.85:
            n = rng.choice(names)
            return Expr(n, "real", lambda env, ctx, n=n: env[n])
        vecs = self.vars_of("vec3")
        if vecs and rng.random() < 0.5:
            return self.component(Expr(rng.choice(vecs), "vec3", None))
        # REAL(c): an expression of float literals alone would be float, not double.
        c = const(rng)
        return Expr("REAL(%s)" % lit(c), "real", lambda env, ctx: c)

    def component(self, v):
        i = self.rng.randrange(3)
        name = v.text if v.ev is None else "(%s)" % v.text
        ev = v.ev or (lambda env, ctx, n=v.text: env[n])
        return Expr("%s.%s" % (name, "xyz"[i]), "real", lambda env, ctx: ev(env, ctx)[i])

    def real_bin(self, d):
        a, b = self.real(d), self.real(d)
        op = self.rng.choice("+-*")
        f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op]
        return Expr("(%s %s %s)" % (a.text, op, b.text), "real",
                    lambda env, ctx: check(f(a.ev(env, ctx), b.ev(env, ctx))))

    def real_div(self, d):
        a, b = self.real(d), self.real(d)
        c = self.rng.choice([0.5, 1.0, 2.0])
        return Expr("(%s / (%s * %s + %s))" % (a.text, b.text, b.text, lit(c)), "real",
                    lambda env, ctx: a.ev(env, ctx) / (b.ev(env, ctx) ** 2 + c))

    def real_neg(self, d):
        a = self.real(d)
        return Expr("-%s" % a.text if a.text.startswith("(") else "-(%s)" % a.text, "real",
                    lambda env, ctx: -a.ev(env, ctx))

    def real_unary(self, d):
        a = self.real(d)
        fn = self.rng.choice(["sin", "cos", "tanh", "atan"])
        f = getattr(math, fn)
        return Expr("%s(%s)" % (fn, a.text), "real", lambda env, ctx: f(a.ev(env, ctx)))

    def real_exp(self, d):
        a = self.real(d)
        form = self.rng.randrange(3)
        if form == 0:
            return Expr("exp(sin(%s))" % a.text, "real",
                        lambda env, ctx: math.exp(math.sin(a.ev(env, ctx))))
        if form == 1:
            return Expr("exp(-(%s * %s))" % (a.text, a.text), "real",
                        lambda env, ctx: math.exp(-a.ev(env, ctx) ** 2))
        return Expr("exp(%s * 0.25)" % a.text, "real",
                    lambda env, ctx: check(math.exp(a.ev(env, ctx) * 0.25)))

    def positive(self, d):
        """An expression that is positive by construction: a * a + c, c > 0."""
        a = self.real(d)
        c = self.rng.choice([0.25, 0.5, 1.0, 1.5])
        return Expr("(%s * %s + %s)" % (a.text, a.text, lit(c)), "real",
                    lambda env, ctx: a.ev(env, ctx) ** 2 + c)

    def real_log(self, d):
        p = self.positive(d)
        return Expr("log%s" % p.text, "real", lambda env, ctx: math.log(p.ev(env, ctx)))

    def real_sqrt(self, d):
        p = self.positive(d)
        return Expr("sqrt%s" % p.text, "real", lambda env, ctx: math.sqrt(p.ev(env, ctx)))

    def real_pow(self, d):
        p = self.positive(d)
        if self.rng.random() < 0.6:
            k = self.rng.choice([0.5, 1.5, 2.0, -0.5, 2.5, 3.0])
            return Expr("pow(%s, %s)" % (p.text, lit(k)), "real",
                        lambda env, ctx: check(p.ev(env, ctx) ** k))
        e = self.real(d)
        return Expr("pow(%s, sin(%s))" % (p.text, e.text), "real",
                    lambda env, ctx: check(p.ev(env, ctx) ** math.sin(e.ev(env, ctx))))

    def real_minmax(self, d):
        a, b = self.real(d), self.real(d)
        if a.text == b.text:
            return None
        fn = self.rng.choice(["min", "max"])

        def ev(env, ctx):
            x, y = a.ev(env, ctx), b.ev(env, ctx)
            ctx.decide(abs(x - y), (fn, x < y))
            return min(x, y) if fn == "min" else max(x, y)
        return Expr("%s(%s, %s)" % (fn, a.text, b.text), "real", ev)

    def real_clamp(self, d):
        a = self.real(d)
        lo = const(self.rng, -16, 4)
        hi = lo + self.rng.randint(2, 24) / 8.0

        def ev(env, ctx):
            x = a.ev(env, ctx)
            ctx.decide(min(abs(x - lo), abs(x - hi)), ("clamp", x < lo, x > hi))
            return min(max(x, lo), hi)
        return Expr("clamp(%s, %s, %s)" % (a.text, lit(lo), lit(hi)), "real", ev)

    def real_abs(self, d):
        a = self.real(d)

        def ev(env, ctx):
            x = a.ev(env, ctx)
            ctx.decide(abs(x), ("abs", x < 0))
            return abs(x)
        return Expr("abs(%s)" % a.text, "real", ev)

    def real_lerp(self, d):
        a, b, t = self.real(d), self.real(d), self.real(d)

        def ev(env, ctx):
            x, y, s = a.ev(env, ctx), b.ev(env, ctx), t.ev(env, ctx)
            return check(x + (y - x) * s)
        return Expr("lerp(%s, %s, %s)" % (a.text, b.text, t.text), "real", ev)

    def real_select(self, d):
        c, a, b = self.cond(d), self.real(d), self.real(d)

        def ev(env, ctx):
            k, x, y = c.ev(env, ctx), a.ev(env, ctx), b.ev(env, ctx)
            return x if k else y
        return Expr("(%s ? %s : %s)" % (c.text, a.text, b.text), "real", ev)

    def real_mad(self, d):
        a, b, c = self.real(d), self.real(d), self.real(d)
        return Expr("mad(%s, %s, %s)" % (a.text, b.text, c.text), "real",
                    lambda env, ctx: check(a.ev(env, ctx) * b.ev(env, ctx) + c.ev(env, ctx)))

    def real_dot(self, d):
        a, b = self.vec(d), self.vec(d)
        return Expr("dot(%s, %s)" % (a.text, b.text), "real",
                    lambda env, ctx: check(sum(x * y for x, y in zip(a.ev(env, ctx), b.ev(env, ctx)))))

    def real_comp(self, d):
        return self.component(self.vec(d))

    def real_intreal(self, d):
        k = self.int_expr(d)
        return Expr("REAL(%s)" % k.text, "real", lambda env, ctx: float(k.ev(env, ctx)))

    def real_elem(self, d):
        arrays = self.vars_of("arr3")
        structs = [s for s in self.vars_of("S") if self.struct_has("w")]
        if not arrays and not structs:
            return None
        base = self.rng.choice(arrays + [s + ".w" for s in structs])
        idx = self.index(d)
        if "." in base:
            s = base.split(".")[0]
            get = lambda env, ctx: env[s]["w"]
        else:
            get = lambda env, ctx: env[base]
        return Expr("%s[%s]" % (base, idx.text), "real",
                    lambda env, ctx: get(env, ctx)[idx.ev(env, ctx)])

    def index(self, d):
        """An int expression in [0, ARRAY_LEN): a constant, or a clamped dynamic index."""
        if self.rng.random() < 0.5:
            i = self.rng.randrange(ARRAY_LEN)
            return Expr(str(i), "int", lambda env, ctx: i)
        k = self.int_expr(d)
        return Expr("clamp(%s, 0, %d)" % (k.text, ARRAY_LEN - 1), "int",
                    lambda env, ctx: min(max(k.ev(env, ctx), 0), ARRAY_LEN - 1))

    def struct_has(self, field):
        return self.struct is not None and any(f == field for f, _, _ in self.struct.fields)

    def real_method(self, d):
        structs = self.vars_of("S")
        if not structs or "energy" not in self.struct.methods:
            return None
        s = self.rng.choice(structs)
        m = self.struct.methods["energy"]
        t = self.real(d)

        def ev(env, ctx):
            return m.call([t.ev(env, ctx)], ctx, dict(env[s]))[0]
        return Expr("%s.energy(%s)" % (s, t.text), "real", ev)

    def args_for(self, fn, d):
        args = []
        for name, ty, mode in fn.params:
            if mode == "no_diff":
                args.append(self.inert(d))
            else:
                args.append(self.expr_of(ty, d))
        return None if None in args else args

    def expr_of(self, ty, d):
        if ty == "real":
            return self.real(d)
        if ty == "vec3":
            return self.vec(d)
        if ty == "arr3":
            return self.array(d)
        if ty == "S":
            names = self.vars_of("S")
            if names:
                n = self.rng.choice(names)
                return Expr(n, "S", lambda env, ctx: env[n])
            return self.make_struct(d)
        raise ValueError(ty)

    def inert(self, d):
        """A REAL that does not depend on the inputs: what a no_diff argument gets."""
        c = const(self.rng, 1, 16)
        ints = self.vars_of("int")
        if ints and self.rng.random() < 0.5:
            k = self.rng.choice(ints)
            return Expr("(REAL(%s) * 0.5 + %s)" % (k, lit(c)), "real",
                        lambda env, ctx: env[k] * 0.5 + c)
        return Expr(lit(c), "real", lambda env, ctx: c)

    def call_candidates(self, ret):
        return [f for f in self.functions.values()
                if f.ret == ret and not any(m in ("inout", "out") for _, _, m in f.params)]

    def real_call(self, d):
        cands = [f for f in self.call_candidates("real") if not f.name.startswith("custom")]
        if not cands:
            return None
        fn = self.rng.choice(cands)
        args = self.args_for(fn, d)
        if args is None:
            return None

        def ev(env, ctx):
            return check(fn.call([a.ev(env, ctx) for a in args], ctx)[0])
        return Expr("%s(%s)" % (fn.name, ", ".join(a.text for a in args)), "real", ev)

    def real_custom(self, d):
        cands = [f for f in self.functions.values() if f.name.startswith("custom")]
        if not cands:
            return None
        fn = self.rng.choice(cands)
        args = [self.real(d) for _ in fn.params]

        def ev(env, ctx):
            return check(fn.sym.eval({p[0]: a.ev(env, ctx) for p, a in zip(fn.params, args)}))
        return Expr("%s(%s)" % (fn.name, ", ".join(a.text for a in args)), "real", ev)

    def vec(self, d):
        rng = self.rng
        names = self.vars_of("vec3")
        structs = [s for s in self.vars_of("S") if self.struct_has("v")]
        if d <= 0 or rng.random() < 0.3:
            if names and rng.random() < 0.7:
                n = rng.choice(names)
                return Expr(n, "vec3", lambda env, ctx: env[n])
            if structs and rng.random() < 0.5:
                s = rng.choice(structs)
                return Expr(s + ".v", "vec3", lambda env, ctx: env[s]["v"])
        k = rng.randrange(5)
        if k <= 1 or d <= 0:
            parts = [self.real(d - 1) for _ in range(3)]
            return Expr("REAL3(%s)" % ", ".join(p.text for p in parts), "vec3",
                        lambda env, ctx: tuple(p.ev(env, ctx) for p in parts))
        if k == 2:
            a, s = self.vec(d - 1), self.real(d - 1)
            return Expr("(%s * %s)" % (a.text, s.text), "vec3",
                        lambda env, ctx: check(vec_map(lambda x: x * s.ev(env, ctx), a.ev(env, ctx))))
        if k == 3:
            a, b = self.vec(d - 1), self.vec(d - 1)
            op = rng.choice("+-*")
            f = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op]
            return Expr("(%s %s %s)" % (a.text, op, b.text), "vec3",
                        lambda env, ctx: check(vec_map(f, a.ev(env, ctx), b.ev(env, ctx))))
        a = self.vec(d - 1)
        fn = rng.choice(["sin", "cos", "tanh"])
        f = getattr(math, fn)
        return Expr("%s(%s)" % (fn, a.text), "vec3", lambda env, ctx: vec_map(f, a.ev(env, ctx)))

    def array(self, d):
        names = self.vars_of("arr3")
        if names and self.rng.random() < 0.7:
            n = self.rng.choice(names)
            return Expr(n, "arr3", lambda env, ctx: env[n])
        return None

    def make_struct(self, d):
        if "makeParticle" in self.functions:
            fn = self.functions["makeParticle"]
            args = self.args_for(fn, d)
            if args is None:
                return None
            return Expr("makeParticle(%s)" % ", ".join(a.text for a in args), "S",
                        lambda env, ctx: fn.call([a.ev(env, ctx) for a in args], ctx)[0])
        return None

    def int_expr(self, d):
        rng = self.rng
        ints = self.vars_of("int")
        if ints and rng.random() < 0.5:
            n = rng.choice(ints)
            return Expr(n, "int", lambda env, ctx: env[n])
        structs = [s for s in self.vars_of("S") if self.struct_has("k")]
        if structs and rng.random() < 0.3:
            s = rng.choice(structs)
            return Expr(s + ".k", "int", lambda env, ctx: env[s]["k"])
        if rng.random() < 0.3:
            i = rng.randint(0, 3)
            return Expr(str(i), "int", lambda env, ctx: i)
        a = self.real(max(d - 1, 0))
        scale = rng.choice([1.0, 2.0, 3.0])

        def ev(env, ctx):
            x = a.ev(env, ctx) * scale
            n = int(x)
            ctx.decide(abs(x - round(x)), ("int", n))
            return min(max(n, -1), 4)
        return Expr("clamp(int(%s * %s), -1, 4)" % (a.text, lit(scale)), "int", ev)

    def cond(self, d):
        rng = self.rng
        k = rng.randrange(6)
        if k == 0:
            a = self.int_expr(d)
            c = rng.randint(0, 2)
            op = rng.choice([">", "==", "<"])
            f = {">": lambda x: x > c, "==": lambda x: x == c, "<": lambda x: x < c}[op]
            return Expr("%s %s %d" % (a.text, op, c), "bool", lambda env, ctx: f(a.ev(env, ctx)))
        if k == 1 and d > 0:
            a, b = self.cond(d - 1), self.cond(d - 1)
            op = rng.choice(["&&", "||"])

            def ev(env, ctx):
                x, y = a.ev(env, ctx), b.ev(env, ctx)
                return (x and y) if op == "&&" else (x or y)
            return Expr("(%s) %s (%s)" % (a.text, op, b.text), "bool", ev)
        a = self.real(d)
        b = self.real(max(d - 1, 0)) if rng.random() < 0.5 else None
        if b is not None and b.text == a.text:
            b = None
        c = const(rng, -8, 12)
        op = rng.choice([">", "<"])

        def ev(env, ctx):
            x = a.ev(env, ctx)
            y = b.ev(env, ctx) if b is not None else c
            return ctx.decide(abs(x - y), (x > y) if op == ">" else (x < y))
        return Expr("%s %s %s" % (a.text, op, b.text if b is not None else lit(c)), "bool", ev)

    # Statements.

    def block(self, n, d):
        self.push()
        out = []
        for _ in range(n):
            s = self.stmt(d)
            if s is not None:
                out.extend(s if isinstance(s, list) else [s])
        self.pop()
        return out

    def stmt(self, d):
        rng = self.rng
        kinds = ["decl", "decl", "assign", "assign", "vecdecl", "vecassign", "arrdecl",
                 "arrstore", "structdecl", "fieldstore", "mutate", "intdecl", "inoutcall",
                 "outcall"]
        if d > 0:
            kinds += ["if", "if", "switch", "for", "maxiters", "while"]
        if self.loop_depth > 0:
            kinds += ["breakcont", "breakcont"]
        if self.ret is not None:
            kinds += ["ret"]
        return getattr(self, "stmt_" + rng.choice(kinds))(d)

    def declared(self, e, prefix, kind, type_text):
        """A new local of `kind` (spelled `type_text`) holding `e`."""
        n = self.fresh(prefix)
        self.declare(n, kind)

        def run(env, ctx):
            env[n] = check(e.ev(env, ctx))
        return Stmt(["%s %s = %s;" % (type_text, n, e.text)], run)

    def writable(self, kind):
        """A writable variable of `kind` in scope, or None."""
        names = self.vars_of(kind, writable=True)
        return self.rng.choice(names) if names else None

    def stmt_decl(self, d):
        return self.declared(self.real(2 + (d > 0)), "r", "real", "REAL")

    def stmt_assign(self, d):
        n = self.writable("real")
        if n is None:
            return self.stmt_decl(d)
        e = self.real(2)
        op = self.rng.choice(["=", "+=", "-=", "*="])
        if op == "*=":
            # A factor near 1 keeps repeated updates in loops bounded.
            e = Expr("(1.0 + 0.25 * sin(%s))" % e.text, "real",
                     lambda env, ctx, a=e: 1.0 + 0.25 * math.sin(a.ev(env, ctx)))
        f = {"=": lambda x, y: y, "+=": lambda x, y: x + y, "-=": lambda x, y: x - y,
             "*=": lambda x, y: x * y}[op]

        def run(env, ctx):
            env[n] = check(f(env[n], e.ev(env, ctx)))
        return Stmt(["%s %s %s;" % (n, op, e.text)], run)

    def stmt_vecdecl(self, d):
        return self.declared(self.vec(2), "v", "vec3", "vector<REAL, 3>")

    def stmt_vecassign(self, d):
        n = self.writable("vec3")
        if n is None:
            return self.stmt_vecdecl(d)
        if self.rng.random() < 0.5:
            i = self.rng.randrange(3)
            e = self.real(2)

            def run(env, ctx):
                v = list(env[n])
                v[i] = check(e.ev(env, ctx))
                env[n] = tuple(v)
            return Stmt(["%s.%s = %s;" % (n, "xyz"[i], e.text)], run)
        e = self.vec(1)

        def run2(env, ctx):
            env[n] = check(vec_map(lambda x, y: x + y, env[n], e.ev(env, ctx)))
        return Stmt(["%s += %s;" % (n, e.text)], run2)

    def stmt_arrdecl(self, d):
        parts = [self.real(2) for _ in range(ARRAY_LEN)]
        n = self.fresh("a")
        self.declare(n, "arr3")

        def run(env, ctx):
            env[n] = tuple(check(p.ev(env, ctx)) for p in parts)
        return Stmt(["REAL %s[%d] = { %s };" % (n, ARRAY_LEN, ", ".join(p.text for p in parts))], run)

    def stmt_arrstore(self, d):
        n = self.writable("arr3")
        if n is None:
            return self.stmt_arrdecl(d)
        idx = self.index(1)
        e = self.real(2)
        op = self.rng.choice(["=", "+="])

        def run(env, ctx):
            a = list(env[n])
            i = idx.ev(env, ctx)
            x = e.ev(env, ctx)
            a[i] = check(x if op == "=" else a[i] + x)
            env[n] = tuple(a)
        return Stmt(["%s[%s] %s %s;" % (n, idx.text, op, e.text)], run)

    def field_value(self, ty, mode, d):
        if mode == "no_diff":
            return self.inert(d)
        if ty == "int":
            return self.int_expr(d)
        if ty == "arr3":
            parts = [self.real(d) for _ in range(ARRAY_LEN)]
            e = Expr("{ %s }" % ", ".join(p.text for p in parts), "arr3",
                     lambda env, ctx: tuple(p.ev(env, ctx) for p in parts))
            e.parts = parts
            return e
        return self.expr_of(ty, d)

    def stmt_structdecl(self, d):
        if self.struct is None:
            return self.stmt_decl(d)
        n = self.fresh("s")
        made = self.make_struct(2) if self.rng.random() < 0.5 else None
        if made is not None:
            self.declare(n, "S")

            def run(env, ctx):
                env[n] = made.ev(env, ctx)
            return Stmt(["Particle %s = %s;" % (n, made.text)], run)
        values = [(f, self.field_value(ty, mode, 2)) for f, ty, mode in self.struct.fields]
        self.declare(n, "S")
        lines = ["Particle %s;" % n]
        for f, v in values:
            lines.extend(field_stores(n, f, v))
        # An initializer list instead of field stores, now and then.
        if self.rng.random() < 0.4:
            lines = ["Particle %s = { %s };" % (n, ", ".join(v.text for _, v in values))]

        def run(env, ctx):
            env[n] = {f: check(v.ev(env, ctx)) for f, v in values}
        return Stmt(lines, run)

    def stmt_fieldstore(self, d):
        names = self.vars_of("S", writable=True)
        if not names:
            return self.stmt_structdecl(d)
        n = self.rng.choice(names)
        f, ty, mode = self.rng.choice(self.struct.fields)
        if ty == "arr3":
            idx = self.index(1)
            e = self.real(2)

            def run(env, ctx):
                s = dict(env[n])
                a = list(s[f])
                a[idx.ev(env, ctx)] = check(e.ev(env, ctx))
                s[f] = tuple(a)
                env[n] = s
            return Stmt(["%s.%s[%s] = %s;" % (n, f, idx.text, e.text)], run)
        v = self.field_value(ty, mode, 2)

        def run2(env, ctx):
            s = dict(env[n])
            s[f] = check(v.ev(env, ctx))
            env[n] = s
        return Stmt(["%s.%s = %s;" % (n, f, v.text)], run2)

    def stmt_mutate(self, d):
        names = self.vars_of("S", writable=True)
        if not names or "bump" not in self.struct.methods:
            return self.stmt_assign(d)
        n = self.rng.choice(names)
        m = self.struct.methods["bump"]
        t = self.real(2)

        def run(env, ctx):
            fields = dict(env[n])
            m.call([t.ev(env, ctx)], ctx, fields)
            env[n] = fields
        return Stmt(["%s.bump(%s);" % (n, t.text)], run)

    def stmt_intdecl(self, d):
        e = self.int_expr(2)
        n = self.fresh("k")
        self.declare(n, "int", writable=False)

        def run(env, ctx):
            env[n] = e.ev(env, ctx)
        return Stmt(["int %s = %s;" % (n, e.text)], run)

    def stmt_inoutcall(self, d):
        cands = [f for f in self.functions.values()
                 if any(m == "inout" for _, _, m in f.params)]
        names = self.vars_of("real", writable=True)
        if not cands or not names:
            return self.stmt_assign(d)
        fn = self.rng.choice(cands)
        target = self.rng.choice(names)
        args = [None if m == "inout" else self.real(2) for _, _, m in fn.params]

        def run(env, ctx):
            vals = [env[target] if a is None else a.ev(env, ctx) for a in args]
            _, outs = fn.call(vals, ctx)
            env[target] = check(outs[0])
        return Stmt(["%s(%s);" % (fn.name, ", ".join(target if a is None else a.text for a in args))], run)

    def stmt_outcall(self, d):
        cands = [f for f in self.functions.values() if any(m == "out" for _, _, m in f.params)]
        if not cands:
            return self.stmt_decl(d)
        fn = self.rng.choice(cands)
        n = self.fresh("o")
        args = [None if m == "out" else self.real(2) for _, _, m in fn.params]
        self.declare(n, "real")

        def run(env, ctx):
            _, outs = fn.call([None if a is None else a.ev(env, ctx) for a in args], ctx)
            env[n] = check(outs[0])
        return Stmt(["REAL %s;" % n, "%s(%s);" % (fn.name, ", ".join(n if a is None else a.text for a in args))], run)

    def stmt_if(self, d):
        c = self.cond(2)
        then = self.block(self.rng.randint(1, 3), d - 1)
        other = self.block(self.rng.randint(1, 3), d - 1) if self.rng.random() < 0.6 else None
        lines = ["if (%s) {" % c.text, [l for s in then for l in s.lines]]
        if other is not None:
            lines += ["} else {", [l for s in other for l in s.lines]]
        lines.append("}")

        def run(env, ctx):
            if c.ev(env, ctx):
                run_block(then, env, ctx)
            elif other is not None:
                run_block(other, env, ctx)
        return Stmt(lines, run)

    def stmt_switch(self, d):
        k = self.int_expr(2)
        cases = self.rng.sample(range(-1, 4), self.rng.randint(1, 3))
        bodies = []
        lines = ["switch (%s) {" % k.text]
        # A break in a case leaves the switch, not an enclosing loop: none are generated.
        saved, self.loop_depth = self.loop_depth, 0
        for c in cases + ["default"]:
            body = self.block(self.rng.randint(1, 2), d - 1)
            bodies.append((c, body))
            lines.append(("case %d: {" % c) if c != "default" else "default: {")
            lines.append([l for s in body for l in s.lines] + ["break;"])
            lines.append("}")
        lines.append("}")
        self.loop_depth = saved

        def run(env, ctx):
            v = k.ev(env, ctx)
            for c, body in bodies:
                if c == v or c == "default":
                    run_block(body, env, ctx)
                    return
        return Stmt(lines, run)

    def loop_body(self, d, counter):
        self.push()
        self.declare(counter, "int", writable=False)
        self.loop_depth += 1
        body = self.block(self.rng.randint(1, 3), d - 1)
        self.loop_depth -= 1
        self.pop()
        return body

    def run_loop(self, body, env, ctx, counter, values):
        for i in values:
            ctx.step()
            env[counter] = i
            if not run_iteration(body, env, ctx):
                break

    def stmt_for(self, d):
        i = self.fresh("i")
        n = self.rng.randint(1, 5)
        body = self.loop_body(d, i)
        attr = self.rng.choice(["", "", "[ForceUnroll] ", "[unroll] "])
        inner = render([l for s in body for l in s.lines], 0)
        if attr == "[ForceUnroll] " and any(re.search(r"\bif \(|\bswitch\b|\?|\bwhile\b|\breturn\b|\bbreak\b|\bcontinue\b", l)
                                            for l in inner):
            # The unroller runs the loop at compile time and needs every branch in it to
            # be known then (findings/README.md).
            attr = "[unroll] "
        lines = ["%sfor (int %s = 0; %s < %d; %s++) {" % (attr, i, i, n, i),
                 [l for s in body for l in s.lines], "}"]
        return Stmt(lines, lambda env, ctx: self.run_loop(body, env, ctx, i, range(n)))

    def stmt_maxiters(self, d):
        k = self.int_expr(2)
        bound = self.fresh("n")
        i = self.fresh("i")
        cap = self.rng.randint(4, 6)
        body = self.loop_body(d, i)
        lines = ["int %s = %s + 1;" % (bound, k.text), "[MaxIters(%d)]" % cap,
                 "for (int %s = 0; %s < %s; %s++) {" % (i, i, bound, i),
                 [l for s in body for l in s.lines], "}"]

        def run(env, ctx):
            n = k.ev(env, ctx) + 1
            if n > cap:
                raise Reject("trip count past MaxIters")
            env[bound] = n
            self.run_loop(body, env, ctx, i, range(n))
        return Stmt(lines, run)

    def stmt_while(self, d):
        w = self.fresh("w")
        i = self.fresh("i")
        start = self.real(2)
        step = self.real(1)
        limit = self.rng.choice([1.0, 1.5, 2.0, 2.5])
        self.declare(w, "real", writable=False)
        body = self.loop_body(d, i)
        lines = ["REAL %s = sin(%s);" % (w, start.text), "int %s = 0;" % i, "[MaxIters(16)]",
                 "while (%s < %s) {" % (w, lit(limit)),
                 ["%s += 0.5 + 0.25 * cos(%s);" % (w, step.text), "%s++;" % i]
                 + [l for s in body for l in s.lines], "}"]

        def run(env, ctx):
            env[w] = math.sin(start.ev(env, ctx))
            env[i] = 0
            n = 0
            while ctx.decide(abs(env[w] - limit), env[w] < limit):
                n += 1
                if n > 16:
                    raise Reject("trip count past MaxIters")
                ctx.step()
                env[w] += 0.5 + 0.25 * math.cos(step.ev(env, ctx))
                env[i] += 1
                if not run_iteration(body, env, ctx):
                    break
        return Stmt(lines, run)

    def stmt_breakcont(self, d):
        c = self.cond(1)
        word = self.rng.choice(["break", "continue"])
        sig = BreakSignal if word == "break" else ContinueSignal

        def run(env, ctx):
            if c.ev(env, ctx):
                raise sig()
        return Stmt(["if (%s) %s;" % (c.text, word)], run)

    def stmt_ret(self, d):
        c = self.cond(1)
        if self.ret == "void":
            def run(env, ctx):
                if c.ev(env, ctx):
                    raise ReturnSignal()
            return Stmt(["if (%s) return;" % c.text], run)
        e = self.real(2)

        def run2(env, ctx):
            if c.ev(env, ctx):
                raise ReturnSignal(check(e.ev(env, ctx)))
        return Stmt(["if (%s) return %s;" % (c.text, e.text)], run2)

    # Functions.

    def function(self, name, params, ret, n_stmts, depth, tail=None):
        """Generates a function whose parameters are in scope; `tail` makes the final
        statements (by default `return <expr>;`)."""
        self.scopes = [{}]
        for pname, ty, mode in params:
            self.declare(pname, ty, writable=mode in ("inout", "out"))
        self.ret = ret
        self.loop_depth = 0
        body = []
        if ret == "real":
            # Most statements update one accumulator, and the result sums every variable,
            # so what the statements compute reaches the result.
            init = self.real(2)

            def run0(env, ctx):
                env["acc"] = check(init.ev(env, ctx))
            body.append(Stmt(["REAL acc = %s;" % init.text], run0))
            self.declare("acc", "real")
        for _ in range(n_stmts):
            s = self.stmt(depth)
            if s is not None:
                body.append(s)
        if tail is not None:
            body.extend(tail())
        elif ret == "real":
            result = self.summary()

            def run(env, ctx):
                raise ReturnSignal(check(result.ev(env, ctx)))
            body.append(Stmt(["return %s;" % result.text], run))
        self.ret = None
        return body

    def summary(self):
        """A sum over the variables in scope: every REAL, a dot product of every vector, the
        elements of every array and the energy (or field a) of every struct."""
        rng = self.rng
        terms = []
        for n in self.vars_of("real"):
            c = rng.choice([1.0, 0.5, -0.75, 0.25])
            terms.append(Expr("%s * %s" % (lit(c), n), "real", lambda env, ctx, n=n, c=c: c * env[n]))
        for n in self.vars_of("vec3"):
            w = [const(rng, -8, 8) for _ in range(3)]
            terms.append(Expr("dot(%s, REAL3(%s))" % (n, ", ".join(lit(x) for x in w)), "real",
                              lambda env, ctx, n=n, w=w: sum(a * b for a, b in zip(env[n], w))))
        for n in self.vars_of("arr3"):
            terms.append(Expr("%s[0] - %s[2]" % (n, n), "real", lambda env, ctx, n=n: env[n][0] - env[n][2]))
        for n in self.vars_of("S"):
            if rng.random() < 0.5:
                terms.append(Expr("%s.energy(0.5)" % n, "real",
                                  lambda env, ctx, n=n: self.struct.methods["energy"].call(
                                      [0.5], ctx, dict(env[n]))[0]))
            else:
                terms.append(Expr("%s.a" % n, "real", lambda env, ctx, n=n: env[n]["a"]))
        if not terms:
            return self.real(2)
        return Expr(" + ".join(t.text for t in terms), "real",
                    lambda env, ctx: check(sum(t.ev(env, ctx) for t in terms)))

    def add_function(self, fn):
        self.functions[fn.name] = fn
        self.order.append(fn)

    def signature(self, fn):
        ps = []
        for pname, ty, mode in fn.params:
            ps.append(("%s " % mode if mode else "") + decl(ty, pname))
        ret = {"real": "REAL", "void": "void", "S": "Particle"}[fn.ret]
        return "%s%s %s(%s)" % (fn.attrs, ret, fn.name, ", ".join(ps))

    def helper(self, idx):
        rng = self.rng
        kinds = ["plain", "plain", "vec", "inout", "out", "nodiff", "array"]
        if self.struct is not None:
            kinds += ["struct", "struct"]
        kind = rng.choice(kinds)
        name = "h%d" % idx
        if kind == "plain":
            params = [("p%d" % i, "real", "") for i in range(rng.randint(1, 3))]
        elif kind == "vec":
            params = [("u", "vec3", ""), ("t", "real", "")]
        elif kind == "inout":
            params = [("acc", "real", "inout"), ("t", "real", "")]
        elif kind == "out":
            params = [("t", "real", ""), ("res", "real", "out")]
        elif kind == "nodiff":
            params = [("t", "real", ""), ("scale", "real", "no_diff")]
        elif kind == "array":
            params = [("arr", "arr3", ""), ("t", "real", "")]
        else:
            params = [("q", "S", ""), ("t", "real", "")]
        ret = "void" if kind in ("inout", "out") else "real"
        tail = None
        if kind == "inout":
            def tail():
                e = self.real(2)

                def run(env, ctx):
                    env["acc"] = check(env["acc"] + e.ev(env, ctx))
                return [Stmt(["acc += %s;" % e.text], run)]
        body_first = []
        if kind == "out":
            # The out parameter is written first, so an early return leaves it set.
            self.scopes = [{"t": ("real", True)}]
            e = self.real(2)

            def run0(env, ctx):
                env["res"] = check(e.ev(env, ctx))
            body_first = [Stmt(["res = %s;" % e.text], run0)]
        body = body_first + self.function(name, params, ret, rng.randint(1, 5), 1, tail)
        self.add_function(Function(name, params, ret, body))

    def make_particle(self):
        params = [("p0", "real", ""), ("p1", "real", "")]

        def tail():
            values = [(f, self.field_value(ty, mode, 2)) for f, ty, mode in self.struct.fields]
            lines = ["Particle r;"]
            for f, v in values:
                lines.extend(field_stores("r", f, v))
            lines.append("return r;")

            def run(env, ctx):
                raise ReturnSignal({f: check(v.ev(env, ctx)) for f, v in values})
            return [Stmt(lines, run)]
        body = self.function("makeParticle", params, "S", 0, 0, tail)
        self.add_function(Function("makeParticle", params, "S", body))

    def methods(self):
        """energy (read-only) and bump ([mutating]) over the struct's fields."""
        fields = self.struct.fields
        self.scopes = [{f: (ty, False) for f, ty, _ in fields}]
        self.scopes[0]["t"] = ("real", False)
        e = self.real(3)

        def run(env, ctx):
            raise ReturnSignal(check(e.ev(env, ctx)))
        energy = Function("energy", [("t", "real", "")], "real", [Stmt(["return %s;" % e.text], run)])
        energy.text = ["[Differentiable] REAL energy(REAL t) { return %s; }" % e.text]
        self.struct.methods["energy"] = energy
        if self.rng.random() < 0.7:
            self.scopes = [{f: (ty, mode != "no_diff" and ty in ("real", "vec3")) for f, ty, mode in fields}]
            self.scopes[0]["t"] = ("real", False)
            self.ret = None
            stmts = []
            for _ in range(self.rng.randint(1, 2)):
                stmts.append(self.stmt_assign(0))
            if self.struct_has("v") and self.rng.random() < 0.5:
                stmts.append(self.stmt_vecassign(0))
            bump = Function("bump", [("t", "real", "")], "void", stmts)
            bump.text = ["[Differentiable] [mutating] void bump(REAL t) {"] + \
                ["  " + l for l in render([l for s in stmts for l in s.lines], 1)] + ["}"]
            self.struct.methods["bump"] = bump

    def custom(self, idx):
        name = "custom%d" % idx
        nargs = self.rng.randint(1, 2)
        names = ["a", "b"][:nargs]
        sym = symbolic.random_sym(self.rng, names, 3)
        primal = {n: n for n in names}
        inner = {n: n + ".p" for n in names}
        ds = [sym.derivative(n) for n in names]
        # A [Differentiable] custom derivative can itself be differentiated, which second
        # order (fwd_diff(bwd_diff(f)), bwd_diff(fwd_diff(f))) needs.
        diff = self.rng.random() < 0.5
        self.second_order &= diff
        pre = "[Differentiable] " if diff else ""
        lines = [pre + "DifferentialPair<REAL> %s_fwd(%s) {" % (name, ", ".join("DifferentialPair<REAL> %s" % n for n in names)),
                 "  return diffPair(%s(%s), %s);" % (name, ", ".join(inner[n] for n in names),
                                                    " + ".join("%s * %s.d" % (dd.text(inner), n) for dd, n in zip(ds, names))),
                 "}",
                 pre + "void %s_bwd(%s, REAL dOut) {" % (name, ", ".join("inout DifferentialPair<REAL> %s" % n for n in names))]
        for dd, n in zip(ds, names):
            lines.append("  %s = diffPair(%s.p, %s.d + %s * dOut);" % (n, n, n, dd.text(inner)))
        lines.append("}")
        attrs = "[ForwardDerivative(%s_fwd)] [BackwardDerivative(%s_bwd)] " % (name, name)
        lines.append("%sREAL %s(%s) { return %s; }" % (attrs, name, ", ".join("REAL " + n for n in names), sym.text(primal)))
        fn = Function(name, [(n, "real", "") for n in names], "real", [], attrs, lines)
        fn.sym = sym
        self.add_function(fn)

    def program(self, n_inputs):
        rng = self.rng
        if rng.random() < 0.7:
            self.struct = Struct(rng)
            self.methods()
            if rng.random() < 0.6:
                self.make_particle()
        for i in range(rng.randint(0, 2)):
            self.custom(i)
        for i in range(rng.randint(1, 4)):
            self.helper(i)
        params = [("x%d" % i, "real", "") for i in range(n_inputs)]
        body = self.function("f", params, "real", rng.randint(4, 10), 2)
        self.add_function(Function("f", params, "real", body))


class Program:
    """A generated program: its Slang source (without check lines) and its model."""

    def __init__(self, seed, gen, n_inputs):
        self.seed = seed
        self.gen = gen
        self.n_inputs = n_inputs
        self.entry = gen.functions["f"]

    def source(self):
        g = self.gen
        out = []
        if g.struct is not None:
            out.extend(g.struct.lines())
            out.append("")
        for fn in g.order:
            if fn.text is not None:
                out.extend(fn.text)
            else:
                out.append(g.signature(fn) + " {")
                out.extend(render([l for s in fn.body for l in s.lines], 1))
                out.append("}")
            out.append("")
        return "\n".join(out)

    def evaluate(self, xs):
        """f(xs) in double and the decisions taken, or None when the model rejects xs."""
        ctx = Ctx(self.gen.functions)
        try:
            value, _ = self.entry.call(list(xs), ctx)
            check(value)
        except Reject:
            return None
        except (OverflowError, ValueError, ZeroDivisionError):
            return None
        return value, ctx.trace, ctx.margin


def generate(seed):
    n_inputs = random.Random(seed * 7919 + 1).randint(1, 3)
    gen = Generator(seed)
    gen.program(n_inputs)
    return Program(seed, gen, n_inputs)


# How far from a decision's boundary a check point must be, and the box around it whose
# sampled points must all decide the same way.
MIN_MARGIN = 1e-4
BOX = 1e-3


def smooth_at(program, xs, rng):
    """True when the model says f is smooth and tame at xs: every decision the same at the
    box's sampled points and far from its boundary, the values in range, and central
    differences with two steps agreeing (no steep curvature)."""
    base = program.evaluate(xs)
    # Exact ties are refused too: a backend may compute a tied quantity another way (lerp
    # as a fused a * (1 - t) + b * t), so the tie may not hold there.
    if base is None or base[2] < MIN_MARGIN:
        return False
    value, trace, _ = base
    n = len(xs)
    dirs = [[1.0 if k == i else 0.0 for k in range(n)] for i in range(n)]
    dirs.append([rng.uniform(-1, 1) for _ in range(n)])
    for dvec in dirs:
        fds = []
        for h in (BOX, BOX / 10):
            vals = []
            for sign in (1, -1):
                r = program.evaluate([x + sign * h * t for x, t in zip(xs, dvec)])
                if r is None or r[1] != trace:
                    return False
                vals.append(r[0])
            fds.append((vals[0] - vals[1]) / (2 * h))
        if abs(fds[0]) > 1e4 or abs(fds[0] - fds[1]) > 1e-4 * (1 + abs(fds[1])):
            return False
    return True


def check_points(program, count, tries=40):
    """Up to `count` points where the model says f is smooth, chosen from the seed."""
    rng = random.Random(program.seed * 104729 + 7)
    points = []
    for _ in range(tries):
        xs = [round(rng.uniform(-2.0, 2.0), 3) for _ in range(program.n_inputs)]
        if smooth_at(program, xs, rng):
            points.append(xs)
            if len(points) == count:
                break
    return points
