#!/usr/bin/env python3
"""The gradient fuzzer: random differentiable programs (generator.py), each checked on every
backend that runs here by tests/autodiff/gradcheck.py's kernel and comparisons.

For each seed: generate the program, choose check points where its Python model says it is
smooth, write `//GRADCHECK:` and `//BWDCHECK:` lines for the entry function f at them (REAL
is double), and run the kernel on each backend (Vulkan through the SPIR-V writer, Vulkan
through the GLSL writer and glslang, the CPU; CUDA where a device is present). A program
fails when

  - slope-run fails: the compiler rejects the program, reports an internal error, crashes
    or hangs;
  - forward mode differs from central finite differences, or reverse mode from forward
    mode through <ybar, J xdot> = <J^T ybar, xdot>, or from ybar times the finite
    difference (gradcheck.py's tolerances for double);
  - the primal values differ from the model's, or two backends print different values.

A failing program is written to OUT/seed-N/ as a gradcheck test file (program.slang) with
a report and the commands that reproduce it, and is reduced (min.slang) by dropping lines
and blocks while the same failure stays on the same backend.

  fuzz_grad.py --slope-run PATH [--seconds S | --count N] [--first-seed K] [--seeds 3,17]
               [--out DIR] [--no-minimize] [--jobs J] [--backends cpu,vulkan]

Exit status: 0 when every program passed, 1 when one failed, 77 when no backend has a
device.
"""

import argparse
import concurrent.futures
import io
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "autodiff"))
import gradcheck  # noqa: E402
import generator  # noqa: E402

# Each backend configuration: name, slope-run -backend, extra slope-run flags.
CONFIGS = [("vulkan", "vulkan", []), ("glsl", "vulkan", ["-via-glsl"]), ("cpu", "cpu", []),
           ("cuda", "cuda", [])]
# Check points per program: lavapipe's compile of the kernel, which grows with them,
# is most of a program's time.
POINTS = 1
CHECK_LINES = ("//GRADCHECK:", "//BWDCHECK:", "//HVPCHECK:")
RUN_TIMEOUT_S = 120
# How far the model's primal values and two backends' outputs may differ: the backends'
# transcendentals are not correctly rounded, and differences of them grow by 1/h.
MODEL_TOL = (1e-9, 1e-8)
BACKEND_TOL = (1e-9, 1e-7)
HEADER = """// REQUIRES: vulkan
// RUN: %gradcheck %s | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: gradcheck: all derivatives match
//GRADCHECK-REAL: double

typealias REAL3 = vector<REAL, 3>;
"""


def available_configs(slope_run):
    out = []
    probed = {}
    for name, backend, extra in CONFIGS:
        if backend not in probed:
            r = subprocess.run([slope_run, "-probe", "-backend=" + backend], capture_output=True)
            probed[backend] = r.returncode == 0
        if probed[backend]:
            out.append((name, backend, extra))
    return out


def test_text(program, points):
    checks = []
    for xs in points:
        args = ", ".join("x%d=%r" % (i, x) for i, x in enumerate(xs))
        checks.append("//GRADCHECK: f(%s)" % args)
        checks.append("//BWDCHECK: f(%s)" % args)
        # Second order on every third program that allows it (it doubles the kernel).
        if program.gen.second_order and program.seed % 3 == 0:
            checks.append("//HVPCHECK: f(%s)" % args)
    return HEADER + "\n" + program.source() + "\n" + "\n".join(checks) + "\n"


def close(a, b, tol):
    return abs(a - b) <= tol[0] + tol[1] * max(abs(a), abs(b))


def classify_run_failure(why):
    if why.startswith("timed out"):
        return "hang"
    m = re.match(r"slope-run failed \(exit (-?\d+)\)", why)
    rc = int(m.group(1)) if m else 1
    if rc < 0 or rc > 1 or re.search(r"internal (compiler )?error|Assertion|E0005", why):
        return "crash"
    return "rejected"


def signature(kind, detail):
    """What must stay the same while a failure is reduced: for a rejected or crashing run,
    its first diagnostic without the position."""
    if kind not in ("rejected", "crash"):
        return kind
    for line in detail.splitlines():
        m = re.search(r"(error E\d+:.*|internal (compiler )?error.*|Assertion.*)", line)
        if m:
            return kind + ": " + re.sub(r"'[^']*'|\d+", "_", m.group(1))
    return kind


def fail_kinds(report):
    """The kinds of the FAIL lines of a gradcheck.judge report."""
    kinds = set()
    for line in report.splitlines():
        if not line.startswith("FAIL"):
            continue
        if "(H v)" in line or "u . (H v)" in line or " from fwd_diff(bwd_diff)" in line or \
                " from bwd_diff(fwd_diff)" in line:
            kinds.add("second-order")
        elif "<ybar, J xdot>" in line:
            kinds.add("identity")
        elif " reverse " in line:
            kinds.add("reverse-fd")
        else:
            kinds.add("forward-fd")
    return kinds


def check_text(text, slope_run, configs, seed):
    """Runs a test text on `configs`: {config name: output or None}, the failures as
    (config, kind, detail), and the Plan."""
    plan = gradcheck.prepare(text, seed)
    outs, failures = {}, []
    for name, backend, extra in configs:
        out, why = gradcheck.run_kernel(slope_run, plan.source, backend, extra, RUN_TIMEOUT_S)
        outs[name] = out
        if out is None:
            if why.startswith("slope-run failed (exit 77)"):
                continue
            failures.append((name, classify_run_failure(why), why.strip()))
            continue
        report = io.StringIO()
        if not gradcheck.judge(plan, out, report):
            lines = [l for l in report.getvalue().splitlines() if l.startswith("FAIL")]
            for kind in sorted(fail_kinds(report.getvalue())):
                failures.append((name, kind, "\n".join(lines)))
    ran = [(n, o) for n, o in outs.items() if o is not None]
    for (n1, o1), (n2, o2) in zip(ran, ran[1:]):
        bad = [i for i, (a, b) in enumerate(zip(o1, o2)) if not close(a, b, BACKEND_TOL)]
        if bad or len(o1) != len(o2):
            i = bad[0] if bad else 0
            failures.append((n2, "backends",
                             "%s and %s differ at gc_out[%d]: %.17g, %.17g (%d values differ)"
                             % (n1, n2, i, o1[i], o2[i], len(bad))))
    return outs, failures, plan


def check_model(program, plan, outs):
    """The primal values the kernel computed at x +- h e_i against the model's."""
    failures = []
    for e in plan.layout:
        xs = [v for _, v in e["args"]]
        for i in range(len(xs)):
            for sign, key in ((1, "plus"), (-1, "minus")):
                p = list(xs)
                p[i] += sign * plan.h
                r = program.evaluate(p)
                if r is None:
                    continue
                for name, out in outs.items():
                    if out is not None and not close(out[e[key][i]], r[0], MODEL_TOL):
                        failures.append((name, "model", "f(%s) = %.17g, model %.17g" %
                                         (", ".join(repr(x) for x in p), out[e[key][i]], r[0])))
                        return failures
    return failures


def unit_end(lines, i):
    """The end (exclusive) of the statement or block that starts at line i; None when line
    i closes a block."""
    depth = 0
    if lines[i].lstrip().startswith("}"):
        return None
    for j in range(i, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        if depth <= 0 and not (j + 1 < len(lines) and depth == 0 and
                               lines[j + 1].lstrip().startswith("} else")):
            return j + 1
    return None


def minimize(text, still_fails, budget_s):
    """Drops check lines, then lines and whole blocks of the program, while still_fails."""
    deadline = time.monotonic() + budget_s
    lines = text.split("\n")
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        i = 0
        while i < len(lines) and time.monotonic() < deadline:
            line = lines[i].strip()
            if line.startswith("//") and not line.startswith(CHECK_LINES):
                i += 1
                continue
            if not line:
                i += 1
                continue
            end = unit_end(lines, i)
            cands = []
            if end is not None:
                cands.append(lines[:i] + lines[end:])
            elif line.startswith("} else"):
                # Drop the else branch.
                depth, j = 0, i
                for j in range(i, len(lines)):
                    depth += lines[j].count("{") - lines[j].count("}")
                    if depth < 0 or (j > i and depth == 0 and lines[j].strip() == "}"):
                        break
                cands.append(lines[:i] + [lines[i].replace("} else {", "}")] + lines[j + 1:])
            for cand in cands:
                if any(l.startswith(CHECK_LINES) for l in cand) and \
                        still_fails("\n".join(cand)):
                    lines = cand
                    changed = True
                    break
            else:
                i += 1
    return "\n".join(lines)


def fuzz_one(seed, slope_run, configs):
    """(seed, status, failures, text): status 'ok', 'skipped' (no smooth point) or 'fail'."""
    program = generator.generate(seed)
    points = generator.check_points(program, POINTS)
    if not points:
        return seed, "skipped", [], None
    text = test_text(program, points)
    outs, failures, plan = check_text(text, slope_run, configs, seed)
    failures += check_model(program, plan, outs)
    return seed, ("fail" if failures else "ok"), failures, text


def record(seed, failures, text, slope_run, configs, out_dir, do_minimize, build_hint):
    folder = os.path.join(out_dir, "seed-%d" % seed)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "program.slang")
    with open(path, "w") as f:
        f.write(text)
    # Reduce on the fastest backend that shows the failure.
    speed = {"cpu": 0, "vulkan": 1, "cuda": 2, "glsl": 3}
    name, kind, _ = min(failures, key=lambda f: (f[1] == "model", speed.get(f[0], 9)))
    config = [c for c in configs if c[0] == name]
    flags = " --backend %s%s" % (config[0][1], " --via-glsl" if "-via-glsl" in config[0][2] else "")
    repro = ["python3 tests/autodiff/gradcheck.py %s --slope-run %s%s" % (path, build_hint, flags),
             "python3 tests/fuzz/grad/fuzz_grad.py --slope-run %s --seeds %d" % (build_hint, seed)]
    report = ["seed %d: %s on %s" % (seed, kind, name)]
    for n, k, detail in failures:
        report.append("--- %s: %s\n%s" % (n, k, detail))
    minimized = None
    if do_minimize and kind not in ("model", "hang"):
        wanted = [c for c in configs if c[0] == name]
        if kind == "backends":
            wanted = configs

        wanted_sig = signature(kind, [d for n, k, d in failures if (n, k) == (name, kind)][0])

        def still_fails(candidate):
            _, fs, _ = check_text(candidate, slope_run, wanted, seed)
            return any(n == name and signature(k, d) == wanted_sig for n, k, d in fs)
        minimized = minimize(text, still_fails, 240)
        with open(os.path.join(folder, "min.slang"), "w") as f:
            f.write(minimized)
        repro.append(repro[0].replace("program.slang", "min.slang"))
    with open(os.path.join(folder, "report.txt"), "w") as f:
        f.write("\n".join(report + ["", "reproduce:"] + repro) + "\n")
    return folder


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--slope-run", required=True)
    p.add_argument("--seconds", type=float, help="run for this long (default: --count)")
    p.add_argument("--count", type=int, default=20, help="programs to run without --seconds")
    p.add_argument("--first-seed", type=int, help="default 1, or the time with --seconds")
    p.add_argument("--seeds", help="comma-separated seeds to run instead")
    p.add_argument("--out", default="out/fuzz-grad", help="where failing programs go")
    p.add_argument("--no-minimize", action="store_true")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--backends", help="comma-separated subset of vulkan,glsl,cpu,cuda")
    a = p.parse_args()
    configs = available_configs(a.slope_run)
    if a.backends:
        configs = [c for c in configs if c[0] in a.backends.split(",")]
    if not configs:
        print("fuzz_grad: no backend has a usable device here")
        return 77
    if a.seeds:
        seeds = iter([int(s) for s in a.seeds.split(",")])
    else:
        first = a.first_seed
        if first is None:
            first = int(time.time()) % 1000000 if a.seconds else 1
        count = None if a.seconds else a.count
        seeds = iter(range(first, first + count) if count else _count_from(first))
        print("fuzz_grad: seeds from %d" % first)
    print("fuzz_grad: backends %s" % ", ".join(c[0] for c in configs))
    deadline = time.monotonic() + a.seconds if a.seconds else None
    tally = {"ok": 0, "skipped": 0, "fail": 0}
    found = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        pending = set()
        while True:
            while len(pending) < a.jobs and (deadline is None or time.monotonic() < deadline):
                seed = next(seeds, None)
                if seed is None:
                    break
                pending.add(pool.submit(fuzz_one, seed, a.slope_run, configs))
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when="FIRST_COMPLETED")
            for fut in sorted(done, key=lambda f: f.result()[0]):
                seed, status, failures, text = fut.result()
                tally[status] += 1
                if status == "fail":
                    kinds = sorted(set("%s on %s" % (k, n) for n, k, _ in failures))
                    print("seed %d: FAIL %s" % (seed, "; ".join(kinds)), flush=True)
                    folder = record(seed, failures, text, a.slope_run, configs, a.out,
                                    not a.no_minimize, a.slope_run)
                    print("  written to %s" % folder, flush=True)
                    found.append(seed)
                else:
                    print("seed %d: %s" % (seed, status), flush=True)
    print("fuzz_grad: %d programs passed, %d failed, %d skipped (no smooth point)" %
          (tally["ok"], tally["fail"], tally["skipped"]))
    return 1 if found else 0


def _count_from(n):
    while True:
        yield n
        n += 1


if __name__ == "__main__":
    sys.exit(main())
