#!/usr/bin/env python3
"""Tests of the installed CMake package, slope_add_shaders and slope.pc (docs/cmake.md).

  package_test.py install    BUILD_DIR WORK_DIR       install BUILD_DIR into WORK_DIR/prefix
  package_test.py tools      WORK_DIR                 the installed slopec finds its plugin
  package_test.py package    WORK_DIR PROJECT_DIR     find_package + slope_add_shaders
  package_test.py pkg-config WORK_DIR SOURCE CXX      pkg-config --cflags --libs slope

`install` installs into a staging folder and then moves it to WORK_DIR/prefix, so every
later step also checks that the installed tree works from a prefix it was not installed
to. Each step prints what it checks and exits non-zero on the first failure.
"""
import os
import re
import shutil
import subprocess
import sys


# The cmake and C++ compiler of the build under test (tests/cmake/CMakeLists.txt sets
# them), so that the consumer is built with the same tools.
CMAKE = os.environ.get("SLOPE_CMAKE", "cmake")
CXX = os.environ.get("SLOPE_CXX")


def fail(message):
    print(f"FAILED: {message}", flush=True)
    sys.exit(1)


def ok(message):
    print(f"ok: {message}", flush=True)


def run(cmd, env=None, cwd=None, check=True):
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    if check and proc.returncode != 0:
        print(proc.stdout)
        fail(f"exit status {proc.returncode}: {' '.join(cmd)}")
    return proc


def tool(name):
    path = shutil.which(name)
    if path is None:
        fail(f"{name} is not installed (scripts/install-deps.sh installs it)")
    return path


def prefix_of(work):
    prefix = os.path.join(work, "prefix")
    if not os.path.isfile(os.path.join(prefix, "bin", "slopec")):
        fail(f"no installed tree in {prefix} (the cmake/install test makes it)")
    return prefix


# --- install ---------------------------------------------------------------------------

def cmd_install(build_dir, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    staging = os.path.join(work, "staging")
    run([CMAKE, "--install", build_dir, "--prefix", staging])
    prefix = os.path.join(work, "prefix")
    os.rename(staging, prefix)
    # Relocatable: no installed text file names the prefix it was installed to, or the
    # build tree.
    for root, _, files in os.walk(prefix):
        for name in files:
            if not name.endswith((".cmake", ".pc", ".h")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for absolute in (staging, os.path.realpath(build_dir)):
                if absolute in text:
                    fail(f"{path} names {absolute}: the package is not relocatable")
    for rel in ("bin/slopec", "lib/cmake/Slope/SlopeConfig.cmake",
                "lib/cmake/Slope/SlopeConfigVersion.cmake", "lib/cmake/Slope/SlopeShaders.cmake",
                "lib/pkgconfig/slope.pc", "include/slope/compiler/driver/compile.h",
                "include/slope/runtime/core/device.h"):
        if not os.path.exists(os.path.join(prefix, rel)):
            fail(f"{rel} is not installed")
    ok("installed, moved to another prefix, and no file names the old one")


# --- tools -----------------------------------------------------------------------------

SHADER = """RWStructuredBuffer<float> output;
[shader("compute")] [numthreads(4, 1, 1)]
void computeMain(uint3 id : SV_DispatchThreadID) { output[id.x] = 2.0 * float(id.x); }
"""


def cmd_tools(work):
    prefix = prefix_of(work)
    slopec = os.path.join(prefix, "bin", "slopec")
    tmp = os.path.join(work, "tools")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    source = os.path.join(tmp, "k.slang")
    with open(source, "w") as f:
        f.write(SHADER)
    version = run([slopec, "-version"]).stdout
    if "slopec version" not in version:
        fail(f"slopec -version printed {version!r}")
    ok("the installed slopec runs")
    # The llvm-ir target needs the LLVM plugin: the dynamic loader's trace says which
    # file it opened, and it must be the installed one, found from bin/ (not the build
    # tree's, which the program also knows).
    env = dict(os.environ)
    env.pop("SLOPE_LLVM_PLUGIN", None)
    env["LD_DEBUG"] = "files"
    out = os.path.join(tmp, "k.ll")
    proc = run([slopec, source, "-target", "llvm-ir", "-o", out], env=env)
    loaded = re.findall(r"file=(\S*libslope_llvm\.so)\s.*dynamically loaded", proc.stdout)
    if not loaded:
        fail("slopec -target llvm-ir did not load libslope_llvm.so")
    plugin = os.path.realpath(loaded[0])
    if not plugin.startswith(os.path.realpath(prefix) + os.sep):
        fail(f"the installed slopec loaded {plugin}, not the plugin installed in {prefix}")
    with open(out) as f:
        if "define" not in f.read():
            fail("the llvm-ir output defines no function")
    ok(f"the installed slopec loads the installed plugin ({os.path.relpath(plugin, prefix)})")


# --- package ---------------------------------------------------------------------------

def snapshot(folder):
    """Modification times of every file below folder, by path relative to it."""
    times = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            times[os.path.relpath(path, folder)] = os.stat(path).st_mtime_ns
    return times


def changed(before, after):
    return sorted(p for p in after if before.get(p) != after[p])


def shader_files(paths):
    """The outputs and embedded headers among paths (not the depfiles)."""
    return sorted(p for p in paths if not p.endswith(".d"))


def edit(path, newest_output_ns):
    """Appends a comment to path and makes sure its time is after every output's."""
    with open(path, "a") as f:
        f.write("// edited by package_test.py\n")
    mtime = os.stat(path).st_mtime_ns
    if mtime <= newest_output_ns:
        stamp = newest_output_ns + 1_000_000
        os.utime(path, ns=(stamp, stamp))


class Build:
    def __init__(self, name, source, binary, prefix, generator, target):
        self.name = name
        self.binary = binary
        self.target = target
        self.outputs = os.path.join(binary, "shaders-out")
        cmd = [CMAKE, "-S", source, "-B", binary, "-G", generator,
               f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"]
        if CXX:
            cmd.append(f"-DCMAKE_CXX_COMPILER={CXX}")
        run(cmd)

    def build(self, target=None):
        cmd = [CMAKE, "--build", self.binary]
        if target or self.target:
            cmd += ["--target", target or self.target]
        return run(cmd).stdout

    def rebuild_changes(self, target=None):
        before = snapshot(self.outputs)
        log = self.build(target)
        return shader_files(changed(before, snapshot(self.outputs))), log

    def newest_output(self):
        return max(snapshot(self.outputs).values())


def cmd_package(work, project):
    prefix = prefix_of(work)
    tool("ninja")
    tmp = os.path.join(work, "package")
    shutil.rmtree(tmp, ignore_errors=True)
    source = os.path.join(tmp, "src")
    # A copy of the project, since the test edits its shaders.
    shutil.copytree(project, source)

    ninja = Build("Ninja", source, os.path.join(tmp, "ninja"), prefix, "Ninja", None)
    first = ninja.build()
    every = ["blur.cu", "blur.spv", "include/test_shaders/blur.cu.h",
             "include/test_shaders/blur.spv.h", "include/test_shaders/scale.cu.h",
             "include/test_shaders/scale.spv.h", "scale.cu", "scale.spv"]
    built = shader_files(snapshot(ninja.outputs))
    if built != every:
        fail(f"the first build wrote {built}, expected {every}")
    ok("the first build compiled both shaders for both targets and embedded them")
    consumer = os.path.join(ninja.binary, "consumer")
    # The program finds the LLVM plugin next to itself, where the project copied it.
    plain_env = dict(os.environ)
    plain_env.pop("SLOPE_LLVM_PLUGIN", None)
    print(run([consumer], env=plain_env).stdout, end="")
    ok("the consumer program passes its checks")

    # The same project with the Makefile generator: only the shaders are built there.
    make = Build("Unix Makefiles", source, os.path.join(tmp, "make"), prefix,
                 "Unix Makefiles", "test_shaders_build")
    make.build()
    built = shader_files(snapshot(make.outputs))
    if built != every:
        fail(f"the Makefile build wrote {built}, expected {every}")

    for build in (ninja, make):
        files, log = build.rebuild_changes()
        if files:
            fail(f"{build.name}: a build with nothing edited rewrote {files}")
        if build is ninja and "ninja: no work to do" not in log:
            print(log)
            fail("a second Ninja build did work")
    ok("a second build does nothing (\"ninja: no work to do\"; no output rewritten)")

    # Editing the imported module rebuilds blur's outputs and nothing else; editing the
    # #included header (found through INCLUDE_DIRS), scale's. Only the shaders are built
    # here: the program is relinked once, at the end.
    shaders = "test_shaders_build"
    cases = [("shaders/common.slang", "blur"), ("shaders/include/consts.h", "scale")]
    for edited, stem in cases:
        edit(os.path.join(source, edited), max(ninja.newest_output(), make.newest_output()))
        expected = sorted(p for p in every if os.path.basename(p).startswith(stem + "."))
        plan = run(["ninja", "-C", ninja.binary, "-n", "-v", shaders]).stdout
        compiles = sorted(os.path.basename(o)
                          for o in re.findall(r"slopec \S+ -target \S+ -o (\S+)", plan))
        if compiles != [stem + ".cu", stem + ".spv"]:
            print(plan)
            fail(f"after editing {edited}, Ninja plans to compile {compiles}, "
                 f"expected {stem}.cu and {stem}.spv")
        for build in (ninja, make):
            files, log = build.rebuild_changes(shaders)
            if files != expected:
                print(log)
                fail(f"{build.name}: editing {edited} rewrote {files}, expected {expected}")
        ok(f"editing {edited} rebuilds exactly {', '.join(expected)} (Ninja and Makefiles)")
        files, log = ninja.rebuild_changes(shaders)
        if files or "ninja: no work to do" not in log:
            print(log)
            fail(f"after the rebuild for {edited}, another build still did work")
        ok("and the next build does nothing")

    # The program, rebuilt with the new headers, still passes; then nothing is left to do.
    ninja.build()
    print(run([consumer], env=plain_env).stdout.splitlines()[-1])
    files, log = ninja.rebuild_changes()
    if files or "ninja: no work to do" not in log:
        print(log)
        fail("after the final build, another build still did work")
    ok("the rebuilt program passes, and a further build does nothing")


# --- pkg-config ------------------------------------------------------------------------

def cmd_pkg_config(work, source, cxx):
    prefix = prefix_of(work)
    pkg_config = tool("pkg-config")
    tmp = os.path.join(work, "pkg-config")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.join(prefix, "lib", "pkgconfig")
    flags = run([pkg_config, "--cflags", "--libs", "slope"], env=env).stdout.split()
    include = [f for f in flags if f.startswith("-I") and f.endswith("/include/slope")]
    if not include or os.path.realpath(include[0][2:]) != os.path.realpath(
            os.path.join(prefix, "include", "slope")):
        fail(f"pkg-config's flags {flags} do not name {prefix}/include/slope")
    version = run([pkg_config, "--modversion", "slope"], env=env).stdout.strip()
    if not re.fullmatch(r"\d+\.\d+\.\d+", version):
        fail(f"pkg-config --modversion slope printed {version!r}")
    ok(f"pkg-config finds slope {version} in the moved prefix")
    program = os.path.join(tmp, "pc_program")
    run([cxx, "-std=c++20", source, "-o", program] + flags, env=env)
    print(run([program]).stdout, end="")
    ok("a program built with pkg-config's flags compiles a shader through the library")


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    step, args = argv[1], argv[2:]
    steps = {"install": (cmd_install, 2), "tools": (cmd_tools, 1),
             "package": (cmd_package, 2), "pkg-config": (cmd_pkg_config, 3)}
    if step not in steps or len(args) != steps[step][1]:
        fail(__doc__)
    steps[step][0](*args)


if __name__ == "__main__":
    main(sys.argv)
