#!/usr/bin/env python3
"""Runs lit on one test file for ctest; exit 77 (ctest's skip) when lit says UNSUPPORTED.

Usage: run_lit.py LIT SITE_DIR TEST [NAME=VALUE ...] (the rest are lit parameters)."""
import subprocess
import sys

lit, site_dir, test = sys.argv[1], sys.argv[2], sys.argv[3]
# Further arguments are lit parameters (NAME=VALUE), e.g. via=glsl.
params = sys.argv[4:]
run = "".join(c if c.isalnum() else "_" for c in (test + "".join(params))[-120:])
extra = [arg for param in params for arg in ("--param", param)]
proc = subprocess.run([sys.executable, lit, "-v", "--param", "site=" + site_dir,
                       "--param", "run=" + run] + extra + [test],
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
sys.stdout.write(proc.stdout)
if proc.returncode == 0 and "UNSUPPORTED:" in proc.stdout and "PASS:" not in proc.stdout:
    sys.exit(77)
sys.exit(proc.returncode)
