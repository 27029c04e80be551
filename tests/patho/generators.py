"""Generators of pathological inputs, one per kind, for tests/patho/patho.py.

Each generator takes a size n and returns a Case: the files to write (the first is the
one compiled) and the extra slopec arguments. Sizes grow along a ladder (10, 100, ...,
10^6); a generator says how far its kind is meaningful (`max_size`): beyond it the input
itself is larger than any compiler should be asked to read in 2 s (a 10^6-deep include
chain is a million files).

Every program is written the way a user writes a compute kernel: a `computeMain` marked
only `[numthreads]`, compiled as slangc compiles it (`-entry computeMain -stage
compute`), reading an input buffer so nothing folds away, writing an output buffer.
"""

from dataclasses import dataclass, field

HEAD = "RWStructuredBuffer<int> outBuf;\nStructuredBuffer<int> inBuf;\n"
FHEAD = "RWStructuredBuffer<float> outBuf;\nStructuredBuffer<float> inBuf;\n"


def kernel(body):
    return "[numthreads(1, 1, 1)]\nvoid computeMain(uint3 tid : SV_DispatchThreadID) {\n" + body + "\n}\n"


@dataclass
class Case:
    files: dict
    args: list = field(default_factory=list)


def one(text, *args):
    return Case({"main.slang": text}, list(args))


GENERATORS = {}


def generator(name, max_size=10**6, ci_size=1000):
    """Registers a generator; `make patho` runs it up to max_size, CI up to ci_size."""
    def wrap(fn):
        GENERATORS[name] = (fn, max_size, ci_size)
        return fn
    return wrap


# ---- expressions ---------------------------------------------------------------------

@generator("expr_parens_deep", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int a = inBuf[0];\n  outBuf[0] = " + "(" * n + "a" + ")" * n + ";"))


@generator("expr_add_long", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int a = inBuf[0];\n  outBuf[0] = " + " + ".join(["a"] * n) + ";"))


@generator("expr_mixed_long", ci_size=10**5)
def _(n):
    ops = ["+", "*", "-", "^", "|", "&"]
    terms = "a"
    for i in range(1, n):
        terms += " " + ops[i % len(ops)] + " a"
    return one(HEAD + kernel("  int a = inBuf[0];\n  outBuf[0] = " + terms + ";"))


@generator("expr_ternary_long")
def _(n):
    chain = "".join("a == %d ? %d : " % (i, i * 3) for i in range(n)) + "0"
    return one(HEAD + kernel("  int a = inBuf[0];\n  outBuf[0] = " + chain + ";"))


@generator("expr_calls_deep", ci_size=10**5)
def _(n):
    return one(HEAD + "int f(int x) { return x * 3 + 1; }\n" +
               kernel("  outBuf[0] = " + "f(" * n + "inBuf[0]" + ")" * n + ";"))


@generator("expr_unary_long", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int a = inBuf[0];\n  outBuf[0] = " + "- " * n + "a;"))


@generator("expr_members_long", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int2 v = int2(inBuf[0], 1);\n  outBuf[0] = v" + ".x" * n + ";"))


@generator("expr_index_deep", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  outBuf[0] = " + "inBuf[" * n + "0" + "]" * n + ";"))


# ---- statements ----------------------------------------------------------------------

@generator("stmt_blocks_deep", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int a = inBuf[0];\n  " + "{ " * n + "a = a + 1; " + "} " * n +
                             "\n  outBuf[0] = a;"))


@generator("stmt_ifs_deep", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int a = inBuf[0];\n  " +
                             "".join("if (a > %d) { " % (i - n) for i in range(n)) +
                             "a = a * 2; " + "} " * n + "\n  outBuf[0] = a;"))


@generator("stmt_else_if_long")
def _(n):
    chain = "  " + " else ".join("if (a == %d) { a = %d; }" % (i, 2 * i) for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n" + chain + "\n  outBuf[0] = a;"))


@generator("stmt_else_if_stores")
def _(n):
    # Arms with side effects: no OpSelect; the SPIR-V writer flattens the chain instead.
    chain = "  " + " else ".join("if (a == %d) { outBuf[%d] = %d; }" % (i, i % 7, 2 * i)
                                 for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n" + chain))


@generator("stmt_else_if_breaks")
def _(n):
    # Arms that break and continue the enclosing loop: the chain's loop leaves for a
    # dispatch block that takes their branches (else_chains.h).
    arms = " else ".join("if (a == %d) { outBuf[%d] = %d; %s }" % (i, i % 7, 2 * i,
                                                                ["break;", "continue;", ""][i % 3])
                         for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n  for (int j = 0; j < inBuf[1]; j++) {\n    " +
                             arms + "\n    a += j;\n  }\n  outBuf[0] = a;"))


@generator("stmt_loops_deep", ci_size=10**4)
def _(n):
    loops = "".join("for (int i%d = 0; i%d < 2; i%d++) { " % (i, i, i) for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n  " + loops + "a = a + 1; " + "} " * n +
                             "\n  outBuf[0] = a;"))


@generator("stmt_many", ci_size=10**5)
def _(n):
    body = "".join("  a = a * 3 + %d;\n" % (i % 7) for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n" + body + "  outBuf[0] = a;"))


@generator("stmt_loops_sequential", ci_size=100)
def _(n):
    body = "".join("  for (int i = 0; i < inBuf[1]; i++) { a += i * %d; }\n" % (i % 5)
                   for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n" + body + "  outBuf[0] = a;"))


@generator("switch_cases")
def _(n):
    cases = "".join("    case %d: a = a * 5 + %d; break;\n" % (i, i) for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n  switch (a) {\n" + cases +
                             "    default: a = 0; break;\n  }\n  outBuf[0] = a;"))


@generator("switch_fallthrough", ci_size=10**5)
def _(n):
    cases = "".join("    case %d:\n" % i for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n  switch (a) {\n" + cases +
                             "      a = 1; break;\n    default: a = 2; break;\n  }\n  outBuf[0] = a;"))


# ---- declarations --------------------------------------------------------------------

@generator("locals_many", ci_size=10**5)
def _(n):
    decls = "".join("  int v%d = a + %d;\n" % (i, i) for i in range(n))
    total = "  int s = 0;\n" + "".join("  s += v%d;\n" % i for i in range(n))
    return one(HEAD + kernel("  int a = inBuf[0];\n" + decls + total + "  outBuf[0] = s;"))


@generator("functions_many")
def _(n):
    funcs = "".join("int f%d(int x) { return x * %d + 1; }\n" % (i, i % 9) for i in range(n))
    calls = "".join("  a = f%d(a);\n" % i for i in range(n))
    return one(HEAD + funcs + kernel("  int a = inBuf[0];\n" + calls + "  outBuf[0] = a;"))


@generator("functions_unused", max_size=10**5, ci_size=10**4)
def _(n):
    funcs = "".join("float g%d(float x) { return x * %d.0 + sin(x); }\n" % (i, i % 9)
                    for i in range(n))
    return one(HEAD + funcs + kernel("  outBuf[0] = inBuf[0];"))


@generator("call_chain")
def _(n):
    funcs = "int f0(int x) { return x + 1; }\n" + "".join(
        "int f%d(int x) { return f%d(x) * 3 + 1; }\n" % (i, i - 1) for i in range(1, n))
    return one(HEAD + funcs + kernel("  outBuf[0] = f%d(inBuf[0]);" % (n - 1)))


@generator("params_many", max_size=10**5)
def _(n):
    params = ", ".join("int p%d" % i for i in range(n))
    body = " + ".join("p%d" % i for i in range(n))
    args = ", ".join("a + %d" % i for i in range(n))
    return one(HEAD + "int f(" + params + ") { return " + body + "; }\n" +
               kernel("  int a = inBuf[0];\n  outBuf[0] = f(" + args + ");"))


@generator("globals_many", ci_size=10**4)
def _(n):
    decls = "".join("static int g%d = %d;\n" % (i, i) for i in range(n))
    body = "".join("  g%d += a;\n" % i for i in range(0, n, max(1, n // 1000)))
    return one(HEAD + decls + kernel("  int a = inBuf[0];\n" + body + "  outBuf[0] = g0;"))


@generator("buffers_many", max_size=10**5, ci_size=10**4)
def _(n):
    decls = "".join("RWStructuredBuffer<int> buf%d;\n" % i for i in range(n))
    body = "".join("  buf%d[0] = a;\n" % i for i in range(n))
    return one(HEAD + decls + kernel("  int a = inBuf[0];\n" + body + "  outBuf[0] = a;"))


# ---- types ---------------------------------------------------------------------------

@generator("struct_fields_many", ci_size=10**4)
def _(n):
    fields = "".join("  int f%d;\n" % i for i in range(n))
    return one(HEAD + "struct Big {\n" + fields + "};\n" +
               kernel("  Big b;\n  b.f0 = inBuf[0];\n  b.f%d = 2;\n  Big c = b;\n  outBuf[0] = c.f0 + c.f%d;" % (n - 1, n - 1)))


@generator("struct_nesting")
def _(n):
    decls = "struct S0 { int v; };\n" + "".join(
        "struct S%d { S%d inner; int v; };\n" % (i, i - 1) for i in range(1, n))
    return one(HEAD + decls + kernel("  S%d s;\n  s.v = inBuf[0];\n  S%d t = s;\n  outBuf[0] = t.v;" % (n - 1, n - 1)))


@generator("struct_array_nesting")
def _(n):
    # Each level holds two of the level below: the type doubles in size per level.
    decls = "struct S0 { int v; };\n" + "".join(
        "struct S%d { S%d a[2]; int v; };\n" % (i, i - 1) for i in range(1, n))
    return one(HEAD + decls + kernel("  S%d s;\n  s.v = inBuf[0];\n  S%d t = s;\n  outBuf[0] = t.v;" % (n - 1, n - 1)))


@generator("generic_struct_nesting")
def _(n):
    t = "float"
    for _ in range(n):
        t = "W<" + t + ">"
    text = (FHEAD + "struct W<T> { T a; T b; };\n" +
            "T copy<T>(T x) { T y = x; return y; }\n" +
            kernel("  %s w;\n  %s u = copy(w);\n  outBuf[0] = inBuf[0];" % (t, t)))
    return one(text)


@generator("generic_instances_many", max_size=10**5, ci_size=10**4)
def _(n):
    calls = " + ".join("f<%d>()" % i for i in range(n))
    return one(HEAD + "int f<let N : int>() { return N * 2; }\n" +
               kernel("  outBuf[0] = inBuf[0] + " + calls + ";"))


@generator("generic_args_deep", ci_size=10**5)
def _(n):
    # Generic functions calling each other with a growing value argument.
    return one(HEAD + "int f<let N : int>(int x) { return x + N; }\n" +
               kernel("  outBuf[0] = " + "".join("f<%d>(" % i for i in range(n)) + "inBuf[0]" +
                      ")" * n + ";"))


@generator("interface_impls_many", max_size=10**5)
def _(n):
    decls = "interface IShape { int area(); };\n" + "".join(
        "struct T%d : IShape { int s; int area() { return s * %d; } };\n" % (i, i % 11)
        for i in range(n))
    calls = "".join("  { T%d t; t.s = a; a = sum(t); }\n" % i for i in range(n))
    return one(HEAD + decls + "int sum<S : IShape>(S s) { return s.area() + 1; }\n" +
               kernel("  int a = inBuf[0];\n" + calls + "  outBuf[0] = a;"))


@generator("typedef_chain", ci_size=10**4)
def _(n):
    decls = "typedef int T0;\n" + "".join("typedef T%d T%d;\n" % (i - 1, i) for i in range(1, n))
    return one(HEAD + decls + kernel("  T%d a = inBuf[0];\n  outBuf[0] = a;" % (n - 1)))


# ---- arrays and literals -------------------------------------------------------------

@generator("array_large", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int a[%d];\n  a[inBuf[1] %% %d] = inBuf[0];\n  outBuf[0] = a[inBuf[2] %% %d];" % (n, n, n)))


@generator("array_dims_many", ci_size=10**5)
def _(n):
    dims = "[2]" * n
    return one(HEAD + kernel("  int a%s;\n  outBuf[0] = inBuf[0];" % dims))


@generator("array_init_list", ci_size=10**5)
def _(n):
    values = ", ".join(str(i % 100) for i in range(n))
    return one(HEAD + kernel("  int a[%d] = { %s };\n  outBuf[0] = a[inBuf[0] %% %d];" % (n, values, n)))


@generator("const_array_init_list", ci_size=10**5)
def _(n):
    values = ", ".join(str(i % 100) for i in range(n))
    return one(HEAD + "static const int table[%d] = { %s };\n" % (n, values) +
               kernel("  outBuf[0] = table[inBuf[0] %% %d];" % n))


@generator("init_list_nested", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  int a[1] = " + "{" * n + "1" + "}" * n + ";\n  outBuf[0] = a[0];"))


@generator("literal_digits", ci_size=10**5)
def _(n):
    return one(HEAD + kernel("  outBuf[0] = inBuf[0] + " + "9" * n + ";"))


@generator("literal_float_digits", ci_size=10**5)
def _(n):
    return one(FHEAD + kernel("  outBuf[0] = inBuf[0] + 0." + "3" * n + "e" + "1" * min(n, 50) + ";"))


@generator("literal_string", max_size=10**5, ci_size=10**5)
def _(n):
    return one(HEAD + kernel('  printf("' + "x" * n + '%d\\n", inBuf[0]);\n  outBuf[0] = 1;'))


@generator("identifier_long", ci_size=10**5)
def _(n):
    name = "v" * n
    return one(HEAD + kernel("  int %s = inBuf[0];\n  outBuf[0] = %s;" % (name, name)))


@generator("comment_long", ci_size=10**5)
def _(n):
    return one(HEAD + "/*" + " c" * n + " */\n// " + "x" * n + "\n" + kernel("  outBuf[0] = inBuf[0];"))


# ---- preprocessor --------------------------------------------------------------------

@generator("macro_nested_args", ci_size=10**5)
def _(n):
    return one("#define ID(x) x\n" + HEAD + kernel("  outBuf[0] = " + "ID(" * n + "inBuf[0]" + ")" * n + ";"))


@generator("macro_chain", ci_size=10**4)
def _(n):
    defs = "#define M0 1\n" + "".join("#define M%d (M%d + 1)\n" % (i, i - 1) for i in range(1, n))
    return one(defs + HEAD + kernel("  outBuf[0] = inBuf[0] + M%d;" % (n - 1)))


@generator("macro_doubling")
def _(n):
    # Each macro expands to two copies of the one before: 2^n tokens.
    defs = "#define D0 x\n" + "".join("#define D%d D%d + D%d\n" % (i, i - 1, i - 1) for i in range(1, n))
    return one(defs + HEAD + kernel("  int x = inBuf[0];\n  outBuf[0] = D%d;" % (n - 1)))


@generator("macro_ifs_deep", ci_size=10**5)
def _(n):
    return one("#define A 1\n" + "#if A\n" * n + HEAD + "#endif\n" * n + kernel("  outBuf[0] = inBuf[0];"))


@generator("macro_defines_many", ci_size=10**4)
def _(n):
    defs = "".join("#define K%d %d\n" % (i, i) for i in range(n))
    return one(defs + HEAD + kernel("  outBuf[0] = inBuf[0] + K%d;" % (n - 1)))


@generator("macro_args_many", max_size=10**5, ci_size=10**5)
def _(n):
    params = ", ".join("p%d" % i for i in range(n))
    args = ", ".join(str(i) for i in range(n))
    return one("#define M(%s) (p0 + p%d)\n" % (params, n - 1) + HEAD +
               kernel("  outBuf[0] = inBuf[0] + M(%s);" % args))


@generator("include_chain", max_size=10**4)
def _(n):
    files = {"main.slang": '#include "inc0.h"\n' + HEAD + kernel("  outBuf[0] = inBuf[0] + V%d;" % (n - 1))}
    for i in range(n):
        nxt = '#include "inc%d.h"\n' % (i + 1) if i + 1 < n else ""
        files["inc%d.h" % i] = nxt + "static const int V%d = %d;\n" % (i, i)
    return Case(files)


@generator("include_repeated", max_size=10**5, ci_size=10**5)
def _(n):
    files = {"main.slang": '#include "once.h"\n' * n + HEAD + kernel("  outBuf[0] = inBuf[0] + K;"),
             "once.h": "#pragma once\nstatic const int K = 3;\n"}
    return Case(files)


@generator("include_self", ci_size=10**5)
def _(n):
    # A file that includes itself: the depth limit, not a hang.
    return Case({"main.slang": '#include "main.slang"\n' * min(n, 3) + HEAD + kernel("  outBuf[0] = inBuf[0];")})


# ---- autodiff ------------------------------------------------------------------------

@generator("autodiff_fwd_nesting", max_size=10**3)
def _(n):
    op = "fwd_diff(" * n + "sq" + ")" * n
    arg = "x"
    for _ in range(n):
        arg = "diffPair(" + arg + ")"
    return one(FHEAD + "[Differentiable] float sq(float x) { return x * x; }\n" +
               kernel("  float x = inBuf[0];\n  let r = %s(%s);\n  outBuf[0] = x;" % (op, arg)))


@generator("autodiff_long_body")
def _(n):
    body = "".join("  y = y * x + sin(y) * %d.0;\n" % (i % 5) for i in range(n))
    return one(FHEAD + "[Differentiable] float f(float x) {\n  float y = x;\n" + body +
               "  return y;\n}\n" +
               kernel("  var p = diffPair(inBuf[0]);\n  bwd_diff(f)(p, 1.0);\n"
                      "  outBuf[0] = p.d + fwd_diff(f)(diffPair(inBuf[0], 1.0)).d;"))


@generator("autodiff_call_chain", max_size=10**4)
def _(n):
    funcs = "[Differentiable] float f0(float x) { return sin(x); }\n" + "".join(
        "[Differentiable] float f%d(float x) { return f%d(x) * x; }\n" % (i, i - 1) for i in range(1, n))
    return one(FHEAD + funcs +
               kernel("  var p = diffPair(inBuf[0]);\n  bwd_diff(f%d)(p, 1.0);\n  outBuf[0] = p.d;" % (n - 1)))


@generator("autodiff_loop_bound", ci_size=10**5)
def _(n):
    return one(FHEAD + "[Differentiable] float f(float x) {\n  float y = x;\n"
               "  [MaxIters(%d)]\n  for (int i = 0; i < int(x); i++) { y = y * x + 1.0; }\n  return y;\n}\n" % n +
               kernel("  var p = diffPair(inBuf[0]);\n  bwd_diff(f)(p, 1.0);\n  outBuf[0] = p.d;"))


# ---- truncation ----------------------------------------------------------------------

REAL_SHADER = r"""// A box filter with a custom backward derivative, as the seed writes it.
StructuredBuffer<float> input;
RWStructuredBuffer<float> output;
RWStructuredBuffer<float> inputGrad;

struct Settings { int count; float scale; };
interface IFilter { float apply(float a, float b, float c); };
struct Box : IFilter { float apply(float a, float b, float c) { return (a + b + c) / 3.0; } };

[BackwardDerivative(loadInput_bwd)]
float loadInput(int i, int count) { return input[clamp(i, 0, count - 1)]; }

void loadInput_bwd(int i, int count, float dOut) {
    float previous;
    InterlockedAdd(inputGrad[clamp(i, 0, count - 1)], dOut, previous);
}

[Differentiable]
float boxFilter3(int i, int count) {
    float sum = 0.0;
    [MaxIters(3)]
    for (int k = -1; k <= 1; k++) { sum += loadInput(i + k, count); }
    return sum / 3.0;
}

#define COUNT 64
[numthreads(64, 1, 1)]
void computeMain(uint3 tid : SV_DispatchThreadID) {
    int i = int(tid.x);
    if (i >= COUNT) return;
    Box box;
    output[i] = box.apply(input[max(i - 1, 0)], input[i], input[min(i + 1, COUNT - 1)]);
    bwd_diff(boxFilter3)(i, COUNT, 1.0);
    switch (i % 3) { case 0: output[i] *= 2.0; break; default: break; }
}
"""


def truncations(step):
    """The real shader cut at every `step`-th byte."""
    for cut in range(0, len(REAL_SHADER), step):
        yield cut, one(REAL_SHADER[:cut])
