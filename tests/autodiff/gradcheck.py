#!/usr/bin/env python3
"""Checks forward-mode derivatives against central finite differences of the primal, and reverse-mode gradients against forward mode.

A test file declares differentiable functions over the type macro REAL (scalar REAL
parameters, REAL result) and one line per check point:

    //GRADCHECK: f(x=0.3, y=1.2)

The function may be written with generic arguments (`cube<REAL>`) or as a static
method of a type (`Shape.area`): the kernel calls it and its fwd_diff as written.

For each point the harness appends a compute kernel to the file that evaluates the
primal at x +- h along each parameter and fwd_diff(f) with each unit tangent and with a
random tangent, runs it with slope-run, and compares in double on the host:

    |ad - fd| <= atol + rtol * |fd|,  fd = (f(x + h e_i) - f(x - h e_i)) / 2h

for the partial derivative along each parameter and for the directional derivative
along the random tangent (sum_i r_i fd_i). REAL is float unless the file says
`//GRADCHECK-REAL: double`; in double the settings are AUTODIFF.md's (h 1e-6, atol 1e-5,
rtol 1e-3), in float looser ones (h 1e-3, atol 2e-3, rtol 1e-2), since float rounding
alone makes a difference quotient with h 1e-6 meaningless. Double files may use the
transcendentals too: on Vulkan, GLSL.std.450 has sin, exp, ... for 32-bit floats only,
and the compiler writes double-precision versions (passes/expand_f64_math.cpp). Prints
one line per check and exits 1 when any fails.

Reverse mode: a line

    //BWDCHECK: f(x=0.3, y=1.2)

checks bwd_diff(f) at that point through the identity <ybar, J xdot> = <J^T ybar, xdot>
for a random tangent xdot and a random output gradient ybar: the left side from
fwd_diff(f), the right side from the gradients bwd_diff(f) writes into the pairs' `.d` (which
start at 0.25, so a gradient added to what `.d` held instead of written over shows), both in
one run; the identity holds up to rounding (atol 1e-5, rtol 1e-4 in float; 1e-12,
1e-10 in double). Each gradient component is also compared with ybar times the
central finite difference, with the forward-mode tolerances.

Second order: a line

    //HVPCHECK: f(x=0.3, y=1.2)

checks the Hessian-vector product H v for a random v two ways, forward over reverse
(fwd_diff(bwd_diff(f)): the tangent of the gradient) and reverse over forward
(bwd_diff(fwd_diff(f)): the gradient of the directional derivative), against each
other (the identity tolerances: both are exact up to rounding), and each component
against the central finite difference of the gradient bwd_diff(f) gives at x +- h v
(the forward-mode tolerances). The gradient both return is compared with bwd_diff(f)'s,
and the symmetry of H with u . (H v) = v . (H u) for a second random u. Every
gradient's `.d` starts at 0.25, so a value added to it instead of written over shows.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

CHECK_RE = re.compile(r"^\s*//GRADCHECK:\s*([\w.<>]+)\s*\((.*)\)\s*$")
BWD_RE = re.compile(r"^\s*//BWDCHECK:\s*([\w.<>]+)\s*\((.*)\)\s*$")
HVP_RE = re.compile(r"^\s*//HVPCHECK:\s*([\w.<>]+)\s*\((.*)\)\s*$")
# Tolerances of the reverse/forward identity per REAL: atol, rtol.
IDENTITY = {"float": (1e-5, 1e-4), "double": (1e-12, 1e-10)}
# What a gradient's `.d` holds before bwd_diff writes over it (as Slang's bwd_diff does).
START = 0.25
REAL_RE = re.compile(r"^\s*//GRADCHECK-REAL:\s*(float|double)\s*$", re.M)
# Settings per REAL: step h, atol, rtol, literal suffix.
SETTINGS = {"float": (1e-3, 2e-3, 1e-2, ""), "double": (1e-6, 1e-5, 1e-3, "L")}


def parse_checks(text, regex=CHECK_RE):
    checks = []
    for line in text.splitlines():
        m = regex.match(line)
        if not m:
            continue
        args = []
        for part in filter(None, (p.strip() for p in m.group(2).split(","))):
            name, value = part.split("=")
            args.append((name.strip(), float(value)))
        checks.append((m.group(1), args))
    return checks


def kernel(checks, h, rng, real_type, bwd_checks=(), hvp_checks=()):
    """The kernel source and, per check, where its values land and its random tangent."""
    body, layout, slot = [], [], 0
    bwd_layout, hvp_layout = [], []
    suffix = SETTINGS[real_type][3]

    def real(v):
        return "REAL(%r%s)" % (v, suffix)

    def emit(expr):
        nonlocal slot
        body.append("  gc_out[%d] = %s;" % (slot, expr))
        slot += 1
        return slot - 1

    for fn, args in checks:
        xs = [v for _, v in args]
        n = len(xs)
        entry = {"fn": fn, "args": args, "plus": [], "minus": [], "unit": []}
        for i in range(n):
            for sign, key in ((1, "plus"), (-1, "minus")):
                shifted = [real(x + sign * h if k == i else x) for k, x in enumerate(xs)]
                entry[key].append(emit("%s(%s)" % (fn, ", ".join(shifted))))
        for i in range(n):
            pairs = ["diffPair(%s, %s)" % (real(x), real(1.0 if k == i else 0.0))
                     for k, x in enumerate(xs)]
            entry["unit"].append(emit("fwd_diff(%s)(%s).d" % (fn, ", ".join(pairs))))
        entry["tangent"] = [rng.uniform(-1.0, 1.0) for _ in xs]
        pairs = ["diffPair(%s, %s)" % (real(x), real(t)) for x, t in zip(xs, entry["tangent"])]
        entry["random"] = emit("fwd_diff(%s)(%s).d" % (fn, ", ".join(pairs)))
        layout.append(entry)
    for fn, args in bwd_checks:
        xs = [v for _, v in args]
        n = len(xs)
        entry = {"fn": fn, "args": args, "plus": [], "minus": [], "grad": []}
        for i in range(n):
            for sign, key in ((1, "plus"), (-1, "minus")):
                shifted = [real(x + sign * h if k == i else x) for k, x in enumerate(xs)]
                entry[key].append(emit("%s(%s)" % (fn, ", ".join(shifted))))
        entry["tangent"] = [rng.uniform(-1.0, 1.0) for _ in xs]
        entry["ybar"] = rng.uniform(0.5, 1.5) * rng.choice((-1, 1))
        pairs = ["diffPair(%s, %s)" % (real(x), real(t)) for x, t in zip(xs, entry["tangent"])]
        entry["jvp"] = emit("fwd_diff(%s)(%s).d" % (fn, ", ".join(pairs)))
        body.append("  {")
        for i, x in enumerate(xs):
            body.append("    DifferentialPair<REAL> gc_p%d = diffPair(%s, %s);" % (i, real(x), real(START)))
        body.append("    bwd_diff(%s)(%s);" % (fn, ", ".join(["gc_p%d" % i for i in range(n)] + [real(entry["ybar"])])))
        for i in range(n):
            entry["grad"].append(emit("gc_p%d.d" % i))
        body.append("  }")
        bwd_layout.append(entry)
    def gradient(fn, xs, label):
        """Emits bwd_diff(fn) at xs with output gradient 1; the slots of the gradient."""
        body.append("  {")
        for i, x in enumerate(xs):
            body.append("    DifferentialPair<REAL> gc_%s%d = diffPair(%s, %s);" % (label, i, real(x), real(START)))
        body.append("    bwd_diff(%s)(%s);" % (fn, ", ".join(["gc_%s%d" % (label, i) for i in range(len(xs))] + [real(1.0)])))
        slots = [emit("gc_%s%d.d" % (label, i)) for i in range(len(xs))]
        body.append("  }")
        return slots

    def fwd_over_bwd(fn, xs, v):
        """fwd_diff(bwd_diff(fn)) along v: the slots of the gradient and of H v."""
        body.append("  {")
        for i, (x, t) in enumerate(zip(xs, v)):
            body.append("    DifferentialPair<DifferentialPair<REAL>> gc_h%d = diffPair(diffPair(%s, %s), diffPair(%s, %s));"
                        % (i, real(x), real(START), real(t), real(START)))
        one = "diffPair(%s, %s)" % (real(1.0), real(0.0))
        body.append("    fwd_diff(bwd_diff(%s))(%s);" % (fn, ", ".join(["gc_h%d" % i for i in range(len(xs))] + [one])))
        grad = [emit("gc_h%d.p.d" % i) for i in range(len(xs))]
        hv = [emit("gc_h%d.d.d" % i) for i in range(len(xs))]
        body.append("  }")
        return grad, hv

    for fn, args in hvp_checks:
        xs = [v for _, v in args]
        n = len(xs)
        entry = {"fn": fn, "args": args}
        entry["v"] = [rng.uniform(-1.0, 1.0) for _ in xs]
        entry["u"] = [rng.uniform(-1.0, 1.0) for _ in xs]
        entry["grad"] = gradient(fn, xs, "g")
        entry["plus"] = gradient(fn, [x + h * t for x, t in zip(xs, entry["v"])], "gp")
        entry["minus"] = gradient(fn, [x - h * t for x, t in zip(xs, entry["v"])], "gm")
        entry["fob_grad"], entry["fob_hv"] = fwd_over_bwd(fn, xs, entry["v"])
        _, entry["hu"] = fwd_over_bwd(fn, xs, entry["u"])
        body.append("  {")
        for i, (x, t) in enumerate(zip(xs, entry["v"])):
            body.append("    DifferentialPair<DifferentialPair<REAL>> gc_r%d = diffPair(diffPair(%s, %s), diffPair(%s, %s));"
                        % (i, real(x), real(t), real(START), real(START)))
        seed = "diffPair(%s, %s)" % (real(0.0), real(1.0))
        body.append("    bwd_diff(fwd_diff(%s))(%s);" % (fn, ", ".join(["gc_r%d" % i for i in range(n)] + [seed])))
        entry["bof_hv"] = [emit("gc_r%d.d.p" % i) for i in range(n)]
        entry["bof_grad"] = [emit("gc_r%d.d.d" % i) for i in range(n)]
        body.append("  }")
        hvp_layout.append(entry)
    src = ["", "//OUTPUT: buffer gc_out %s %d" % (real_type, slot),
           "RWStructuredBuffer<REAL> gc_out;",
           '[shader("compute")] [numthreads(1, 1, 1)]',
           "void gc_main(uint3 gc_tid : SV_DispatchThreadID) {"] + body + ["}"]
    return "\n".join(src) + "\n", layout, bwd_layout, hvp_layout


def run_kernel(slope_run, source, backend, extra_args=(), timeout=None):
    """Runs `source` (with its kernel) on `backend`: the values of gc_out, or None and why
    ("slope-run failed (exit N)" and its output, "timed out", or "no output")."""
    with tempfile.NamedTemporaryFile("w", suffix=".slang", delete=False) as f:
        f.write(source)
        path = f.name
    try:
        r = subprocess.run([slope_run, path, "-backend=" + backend, "-entry=gc_main"] + list(extra_args),
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %g s" % timeout
    finally:
        os.unlink(path)
    if r.returncode != 0:
        return None, "slope-run failed (exit %d)\n%s%s" % (r.returncode, r.stdout, r.stderr)
    for line in r.stdout.splitlines():
        if line.startswith("gc_out:"):
            return [float(v) for v in line.split()[1:]], ""
    return None, "no output from slope-run:\n" + r.stdout


def run(slope_run, source, backend, extra_args=()):
    out, why = run_kernel(slope_run, source, backend, extra_args)
    if out is None:
        sys.exit("gradcheck: " + why)
    return out


def compare(label, ad, fd, atol, rtol, stream=None):
    ok = abs(ad - fd) <= atol + rtol * abs(fd)
    print("%s %s: forward %.9g, finite difference %.9g" % ("ok  " if ok else "FAIL", label, ad, fd),
          file=stream)
    return ok


def check_hvp(e, out, h, atol, rtol, id_atol, id_rtol, stream=None):
    """The second-order checks of one //HVPCHECK: point (see the module comment)."""
    where = "%s(%s)" % (e["fn"], ", ".join("%s=%g" % kv for kv in e["args"]))
    good = True

    def close(a, b, at, rt):
        return abs(a - b) <= at + rt * abs(b)

    grad = [out[g] for g in e["grad"]]
    fob = [out[s] for s in e["fob_hv"]]
    bof = [out[s] for s in e["bof_hv"]]
    for (name, _), g, s1, s2 in zip(e["args"], grad, e["fob_grad"], e["bof_grad"]):
        for label, other in (("fwd_diff(bwd_diff)", out[s1]), ("bwd_diff(fwd_diff)", out[s2])):
            ok = close(other, g, id_atol, id_rtol)
            print("%s gradient d%s/d%s from %s at %s: %.9g, bwd_diff %.9g" %
                  ("ok  " if ok else "FAIL", e["fn"], name, label, where, other, g), file=stream)
            good &= ok
    for (name, _), a, b, pl, mi in zip(e["args"], fob, bof, e["plus"], e["minus"]):
        fd = (out[pl] - out[mi]) / (2 * h)
        ok = close(a, b, id_atol, id_rtol)
        print("%s (H v)[%s] at %s: forward over reverse %.9g, reverse over forward %.9g" %
              ("ok  " if ok else "FAIL", name, where, a, b), file=stream)
        good &= ok
        ok = close(a, fd, atol, rtol)
        print("%s (H v)[%s] at %s: forward over reverse %.9g, finite difference of the gradient %.9g" %
              ("ok  " if ok else "FAIL", name, where, a, fd), file=stream)
        good &= ok
    hu = [out[s] for s in e["hu"]]
    lhs = sum(u * x for u, x in zip(e["u"], fob))
    rhs = sum(v * x for v, x in zip(e["v"], hu))
    ok = close(lhs, rhs, id_atol, id_rtol)
    print("%s u . (H v) = v . (H u) at %s: %.9g, %.9g" % ("ok  " if ok else "FAIL", where, lhs, rhs), file=stream)
    return good and ok


class Plan:
    """One test's kernel and how to read its output: what prepare() returns."""

    def __init__(self, source, real_type, h, atol, rtol, layout, bwd_layout, hvp_layout):
        self.source = source
        self.real_type = real_type
        self.h, self.atol, self.rtol = h, atol, rtol
        self.layout, self.bwd_layout, self.hvp_layout = layout, bwd_layout, hvp_layout


def prepare(text, seed=1, h=None, atol=None, rtol=None):
    """The Plan of a test's text (its check lines and REAL), or None when it has no checks."""
    checks = parse_checks(text)
    bwd_checks = parse_checks(text, BWD_RE)
    hvp_checks = parse_checks(text, HVP_RE)
    if not checks and not bwd_checks and not hvp_checks:
        return None
    m = REAL_RE.search(text)
    real_type = m.group(1) if m else "float"
    dh, datol, drtol, _ = SETTINGS[real_type]
    h, atol, rtol = h or dh, atol or datol, rtol or drtol
    prelude = "#define REAL %s\n#line 1\n" % real_type
    # The test's own RUN/CHECK lines are no directives for slope-run.
    body = "\n".join("" if re.match(r"^\s*//\s*(RUN|CHECK|REQUIRES)", l) else l
                     for l in text.splitlines())
    src, layout, bwd_layout, hvp_layout = kernel(checks, h, random.Random(seed), real_type,
                                                 bwd_checks, hvp_checks)
    return Plan(prelude + body + "\n" + src, real_type, h, atol, rtol, layout, bwd_layout,
                hvp_layout)


def judge(plan, out, stream=None):
    """Prints one line per check of `plan` on the kernel's output `out`; True when all pass."""
    h, atol, rtol = plan.h, plan.atol, plan.rtol
    good = True
    for e in plan.layout:
        where = "%s(%s)" % (e["fn"], ", ".join("%s=%g" % kv for kv in e["args"]))
        fds = [(out[pl] - out[mi]) / (2 * h) for pl, mi in zip(e["plus"], e["minus"])]
        for (name, _), fd, slot in zip(e["args"], fds, e["unit"]):
            good &= compare("d%s/d%s at %s" % (e["fn"], name, where), out[slot], fd, atol, rtol,
                            stream)
        fd_dir = sum(t * fd for t, fd in zip(e["tangent"], fds))
        good &= compare("random direction at %s" % where, out[e["random"]], fd_dir, atol, rtol,
                        stream)
    id_atol, id_rtol = IDENTITY[plan.real_type]
    for e in plan.bwd_layout:
        where = "%s(%s)" % (e["fn"], ", ".join("%s=%g" % kv for kv in e["args"]))
        grads = [out[g] for g in e["grad"]]
        fds = [(out[pl] - out[mi]) / (2 * h) for pl, mi in zip(e["plus"], e["minus"])]
        for (name, _), g, fd in zip(e["args"], grads, fds):
            ok = abs(g - e["ybar"] * fd) <= atol + rtol * abs(e["ybar"] * fd)
            print("%s reverse d%s/d%s at %s: gradient %.9g, ybar * finite difference %.9g" %
                  ("ok  " if ok else "FAIL", e["fn"], name, where, g, e["ybar"] * fd), file=stream)
            good &= ok
        lhs = e["ybar"] * out[e["jvp"]]
        rhs = sum(g * t for g, t in zip(grads, e["tangent"]))
        ok = abs(lhs - rhs) <= id_atol + id_rtol * abs(lhs)
        print("%s <ybar, J xdot> = <J^T ybar, xdot> at %s: %.9g, %.9g" %
              ("ok  " if ok else "FAIL", where, lhs, rhs), file=stream)
        good &= ok
    for e in plan.hvp_layout:
        good &= check_hvp(e, out, h, atol, rtol, id_atol, id_rtol, stream)
    return good


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("test")
    p.add_argument("--slope-run", required=True)
    p.add_argument("--backend", default="vulkan")
    p.add_argument("--via-glsl", action="store_true",
                   help="run through the GLSL writer and glslang (slope-run -via-glsl)")
    p.add_argument("--h", type=float, help="finite-difference step (default by REAL)")
    p.add_argument("--atol", type=float, help="absolute tolerance (default by REAL)")
    p.add_argument("--rtol", type=float, help="relative tolerance (default by REAL)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    plan = prepare(open(a.test).read(), a.seed, a.h, a.atol, a.rtol)
    if plan is None:
        sys.exit("gradcheck: no //GRADCHECK:, //BWDCHECK: or //HVPCHECK: lines in " + a.test)
    good = judge(plan, run(a.slope_run, plan.source, a.backend, ["-via-glsl"] if a.via_glsl else []))
    print("gradcheck: %s" % ("all derivatives match" if good else "derivatives differ"))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
