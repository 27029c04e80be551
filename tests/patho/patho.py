#!/usr/bin/env python3
"""The pathological-input matrix: every generator of generators.py at a ladder of sizes.

Each case is compiled by slopec as slangc users compile a kernel (`-entry computeMain
-stage compute -target spirv`) and must end in one of two ways:

  - exit status 0, or
  - exit status 1 with at least one positioned error (`file:line:col: error Ennnn:`) and
    no internal error (E0005, "internal error"),

never a signal, a time-out or another status; and within the budget: under 2 s of wall
time and 256 MiB of peak resident memory (the child's ru_maxrss). A case that breaks a
limit prints its kind, size, time, memory and the first lines of stderr.

  patho.py SLOPEC [--ci] [--max-size N] [--kinds a,b] [--truncate-step K] [--no-budget]

--max-size caps the ladder (10, 100, ..., 10^6). --ci runs each kind up to the size
generators.py gives it for CI (what fits the 2-core machine's test time, and what is
known to pass: the sizes past it are the open work that `make patho` shows). --no-budget keeps the outcome checks but
not the time and memory budget (sanitizer builds run several times slower).
"""

import argparse
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generators  # noqa: E402

TIME_BUDGET_S = 2.0
MEMORY_BUDGET_KIB = 256 * 1024
HANG_S = 20.0
# Address space for each compile when the budget applies: a runaway case fails alone
# instead of taking the machine's memory (the compile's own stack reserves 512 MiB).
ADDRESS_LIMIT = 4 << 30
LADDER = [10, 100, 1000, 10**4, 10**5, 10**6]
POSITIONED = re.compile(r"^[^\n:]+:\d+:\d+: error E\d{4}:", re.M)
INTERNAL = re.compile(r"E0005|internal error|Assertion|AddressSanitizer|runtime error|LeakSanitizer")


def run_case(slopec, case, workdir, budget=True):
    for name, text in case.files.items():
        with open(os.path.join(workdir, name), "w") as f:
            f.write(text)
    main = os.path.join(workdir, next(iter(case.files)))
    cmd = [slopec, main, "-entry", "computeMain", "-stage", "compute", "-target", "spirv",
           "-o", os.path.join(workdir, "out.spv")] + case.args
    start = time.monotonic()
    with open(os.path.join(workdir, "stderr"), "w+b") as err:
        def limit():
            if budget:
                resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=workdir,
                                preexec_fn=limit)
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid != 0:
                break
            if time.monotonic() - start > HANG_S:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                timed_out = True
                break
            time.sleep(0.005)
        elapsed = time.monotonic() - start
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    return status, elapsed, usage.ru_maxrss, timed_out, stderr


def judge(status, elapsed, maxrss_kib, timed_out, stderr, budget):
    """The reasons a case failed; empty when it passed."""
    problems = []
    if timed_out:
        problems.append("hang (killed after %.0f s)" % HANG_S)
    elif os.WIFSIGNALED(status):
        problems.append("killed by signal %s" % signal.Signals(os.WTERMSIG(status)).name)
    else:
        code = os.WEXITSTATUS(status)
        if code == 1:
            if not POSITIONED.search(stderr):
                problems.append("error without a position")
        elif code != 0:
            problems.append("exit status %d" % code)
        if INTERNAL.search(stderr):
            problems.append("internal error or sanitizer report")
    if budget and elapsed > TIME_BUDGET_S:
        problems.append("%.2f s, over the %.0f s budget" % (elapsed, TIME_BUDGET_S))
    if budget and maxrss_kib > MEMORY_BUDGET_KIB:
        problems.append("%d MiB, over the %d MiB budget" % (maxrss_kib // 1024, MEMORY_BUDGET_KIB // 1024))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slopec")
    parser.add_argument("--max-size", type=int, default=10**6)
    parser.add_argument("--kinds", default="", help="comma-separated generator names (default: all)")
    parser.add_argument("--truncate-step", type=int, default=1,
                        help="cut the real shader at every K-th byte (0: skip truncation)")
    parser.add_argument("--no-budget", action="store_true")
    parser.add_argument("--ci", action="store_true",
                        help="each kind up to the size it runs at in CI (generators.py)")
    args = parser.parse_args()
    args.slopec = os.path.abspath(args.slopec)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    wanted = [k for k in args.kinds.split(",") if k]
    for k in wanted:
        if k not in generators.GENERATORS and k != "truncation":
            parser.error("unknown kind '%s'; kinds: %s" % (k, ", ".join(sorted(generators.GENERATORS))))
    failures = 0
    cases = 0
    budget = not args.no_budget
    with tempfile.TemporaryDirectory(prefix="slope-patho-") as workdir:
        for kind, (make, max_size, ci_size) in generators.GENERATORS.items():
            if wanted and kind not in wanted:
                continue
            for n in LADDER:
                if n > min(ci_size if args.ci else max_size, args.max_size):
                    break
                result = run_case(args.slopec, make(n), workdir, budget)
                problems = judge(*result, budget)
                cases += 1
                status, elapsed, maxrss, _, stderr = result
                code = "sig" if os.WIFSIGNALED(status) else str(os.WEXITSTATUS(status))
                line = "%-24s n=%-8d exit=%-3s %6.2f s %5d MiB" % (kind, n, code, elapsed, maxrss // 1024)
                if problems:
                    failures += 1
                    print("FAIL " + line + "  " + "; ".join(problems))
                    for text in stderr.splitlines()[:4]:
                        print("     | " + text[:200])
                else:
                    print("ok   " + line)
                sys.stdout.flush()
        if args.truncate_step > 0 and (not wanted or "truncation" in wanted):
            bad = 0
            worst = 0.0
            count = 0
            for cut, case in generators.truncations(args.truncate_step):
                result = run_case(args.slopec, case, workdir, budget)
                problems = judge(*result, budget)
                count += 1
                worst = max(worst, result[1])
                if problems:
                    bad += 1
                    if bad <= 10:
                        print("FAIL truncation at byte %d: %s" % (cut, "; ".join(problems)))
                        for text in result[4].splitlines()[:3]:
                            print("     | " + text[:200])
            cases += count
            failures += bad
            print("%s truncation: %d cuts, every %d byte(s), %d failed, slowest %.2f s" %
                  ("FAIL" if bad else "ok  ", count, args.truncate_step, bad, worst))
    print("patho: %d cases, %d failed" % (cases, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
