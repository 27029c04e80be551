"""Small expression trees over named REAL arguments with their exact derivatives: the bodies
of the generated functions that carry [ForwardDerivative]/[BackwardDerivative]."""

import math


class Sym:
    """op is 'var', 'const', 'add', 'sub', 'mul', 'div', 'sin', 'cos', 'exp', 'log', 'sqrt'
    or 'tanh'; log and sqrt are of (x * x + k) with a constant k > 0, so always defined, and
    only derivatives divide (by such a positive quantity)."""

    def __init__(self, op, *args):
        self.op = op
        self.args = args

    def text(self, names):
        op, a = self.op, self.args
        if op == "var":
            return names[a[0]]
        if op == "const":
            # REAL(c): an expression of float literals alone would be float, not double.
            return "REAL(%r)" % a[0]
        if op in ("add", "sub", "mul", "div"):
            sign = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[op]
            return "(%s %s %s)" % (a[0].text(names), sign, a[1].text(names))
        if op in ("log", "sqrt"):
            x = a[0].text(names)
            return "%s(%s * %s + %r)" % (op, x, x, a[1])
        return "%s(%s)" % (op, a[0].text(names))

    def eval(self, env):
        op, a = self.op, self.args
        if op == "var":
            return env[a[0]]
        if op == "const":
            return a[0]
        if op == "add":
            return a[0].eval(env) + a[1].eval(env)
        if op == "sub":
            return a[0].eval(env) - a[1].eval(env)
        if op == "mul":
            return a[0].eval(env) * a[1].eval(env)
        if op == "div":
            return a[0].eval(env) / a[1].eval(env)
        x = a[0].eval(env)
        if op == "log":
            return math.log(x * x + a[1])
        if op == "sqrt":
            return math.sqrt(x * x + a[1])
        return getattr(math, op)(x)

    def derivative(self, var):
        """d self / d var, as a tree."""
        op, a = self.op, self.args
        if op == "var":
            return Sym("const", 1.0 if a[0] == var else 0.0)
        if op == "const":
            return Sym("const", 0.0)
        if op in ("add", "sub"):
            return Sym(op, a[0].derivative(var), a[1].derivative(var))
        if op == "mul":
            return Sym("add", Sym("mul", a[0].derivative(var), a[1]),
                       Sym("mul", a[0], a[1].derivative(var)))
        dx = a[0].derivative(var)
        x = a[0]
        if op == "sin":
            outer = Sym("cos", x)
        elif op == "cos":
            outer = Sym("sub", Sym("const", 0.0), Sym("sin", x))
        elif op == "exp":
            outer = self
        elif op == "tanh":
            outer = Sym("sub", Sym("const", 1.0), Sym("mul", self, self))
        elif op == "log":
            outer = Sym("div", Sym("mul", Sym("const", 2.0), x),
                        Sym("add", Sym("mul", x, x), Sym("const", a[1])))
        else:
            outer = Sym("div", x, self)
        return Sym("mul", outer, dx)


def random_sym(rng, names, depth):
    """A random tree over `names` (each a REAL argument) of at most `depth` levels."""
    if depth <= 0 or rng.random() < 0.2:
        if rng.random() < 0.8:
            return Sym("var", rng.choice(names))
        return Sym("const", rng.randint(-24, 24) / 8.0)
    op = rng.choice(["add", "sub", "mul", "mul", "sin", "cos", "exp", "log", "sqrt", "tanh"])
    if op in ("add", "sub", "mul"):
        return Sym(op, random_sym(rng, names, depth - 1), random_sym(rng, names, depth - 1))
    inner = random_sym(rng, names, depth - 1)
    if op in ("log", "sqrt"):
        return Sym(op, inner, rng.choice([0.25, 0.5, 1.0, 2.0]))
    if op == "exp":
        # exp of a sine stays within [1/e, e].
        return Sym("exp", Sym("sin", inner))
    return Sym(op, inner)
