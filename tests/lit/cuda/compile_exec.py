#!/usr/bin/env python3
"""Compiles the CUDA C++ that `slopec -target cuda` writes for one execution test with
nvcc (PTX for sm_90), as the ctest tests cuda-nvcc/exec/* do: exit 0 when both succeed,
1 when either fails, 77 (ctest's skip) when no CUDA toolkit is installed. The test is
compiled once for each matrix layout its slope-run RUN lines choose.

Usage: compile_exec.py SLOPEC TEST.slang"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nvcc_path

slopec, test = sys.argv[1], sys.argv[2]
nvcc = nvcc_path.find_nvcc()
if nvcc is None:
    print("UNSUPPORTED: no CUDA toolkit (nvcc) here")
    sys.exit(77)
with open(test) as f:
    source = f.read()
if re.search(r"^//\s*REQUIRES:.*\btextures\b", source, re.M):
    # The cuda target refuses textures so far (E5300; tests/lit/cuda/textures_unsupported.slang).
    print("UNSUPPORTED: the cuda target has no textures yet")
    sys.exit(77)
sizes = re.findall(r"^\s*\[WaveSize\((\d+)\)\]", source, re.M)
if any(int(n) != 32 for n in sizes):
    # Warps are 32 threads: the cuda target refuses other sizes (E5302;
    # tests/lit/cuda/wave_size_unsupported.slang).
    print("UNSUPPORTED: the cuda target runs waves of 32 lanes only")
    sys.exit(77)
args = []
# The entry point as the test names it: //ENTRY:, else `-entry NAME` on its first
# slope-run RUN line (kernels marked only [numthreads] need it).
entry = re.search(r"^\s*//ENTRY:\s*(\S+)", source, re.M) or \
    re.search(r"^//\s*RUN:.*%slope-run\b.*?-entry[= ](\S+)", source, re.M)
if entry:
    args = ["-entry", entry.group(1), "-stage", "compute"]
# Each distinct matrix-layout choice of the slope-run lines (none = the default).
layouts = []
for line in re.findall(r"^//\s*RUN:.*%slope-run\b(.*)$", source, re.M):
    flags = sorted(set(re.findall(r"-matrix-layout-(?:row|column)-major", line)))
    if flags not in layouts:
        layouts.append(flags)
if not layouts:
    layouts = [[]]
with tempfile.TemporaryDirectory(prefix="slope-cuda-") as tmp:
    kernel = os.path.join(tmp, "kernel.cu")
    prelude = [slopec, "-emit-cuda-prelude", os.path.join(tmp, "slope_cuda_prelude.h")]
    steps = [prelude]
    for flags in layouts:
        steps.append([slopec, test, "-target", "cuda", "-o", kernel] + args + flags)
        steps.append([nvcc, "--ptx", "-arch=sm_90", "-I" + tmp, kernel, "-o",
                      os.path.join(tmp, "kernel.ptx")])
    for step in steps:
        proc = subprocess.run(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            print("FAILED: " + " ".join(step))
            print(proc.stdout)
            if step[0] == nvcc:
                with open(kernel) as k:
                    print("--- CUDA C++ ---\n" + k.read())
            sys.exit(1)
print("PASS: the CUDA C++ of %s compiles with %s (%d matrix layouts)" %
      (os.path.basename(test), nvcc, len(layouts)))
