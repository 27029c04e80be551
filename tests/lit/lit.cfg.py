# lit configuration for Slope's file tests (tests/lit/**).
import os
import subprocess

import json

import lit.formats

# The build directory comes from `--param site=DIR` (tests/lit/run_lit.py passes it);
# DIR/paths.json is written by CMake.
site_dir = lit_config.params.get("site")
if site_dir is None:
    lit_config.fatal("run lit with --param site=<build>/tests/lit (see tests/lit/run_lit.py)")
with open(os.path.join(site_dir, "paths.json")) as f:
    paths = json.load(f)
config.slope_bin_dir = paths["bin_dir"]
config.filecheck = paths["filecheck"]

config.name = "slope"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".slang", ".test", ".ir"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "paths.json.in", "run_lit.py"]
config.test_source_root = os.path.dirname(__file__)
# ctest runs one lit per test file, several at once: each gets its own execution folder
# (`--param run=NAME`), since lit rewrites a timing file there after every run.
config.test_exec_root = os.path.join(site_dir, "runs", lit_config.params.get("run", "all"))

tools = os.path.join(config.slope_bin_dir, "tools")
slopec = os.path.join(tools, "slopec", "slopec")
slope_run = os.path.join(tools, "slope-run", "slope-run")
config.substitutions.append(("%slopec", slopec))
# `--param via=glsl` (the lit-glsl/ ctest tests): kernels run through the GLSL writer and
# glslang instead of the SPIR-V writer, and must print what the SPIR-V path prints.
via_glsl = lit_config.params.get("via") == "glsl"
# `--param via=ptx` (scripts/gpu/check.sh, with backend=cuda): kernels run through the ptx
# target (LLVM's NVPTX backend) instead of the CUDA C++ target and NVRTC.
via_ptx = lit_config.params.get("via") == "ptx"
# `--param backend=cuda` (scripts/gpu/check.sh): every execution test runs on the CUDA
# backend instead of Vulkan and must print what the Vulkan run prints; the tests' REQUIRES
# lines then ask for a CUDA device where they name Vulkan (below).
run_backend = lit_config.params.get("backend")
config.substitutions.append(("%slope-run", slope_run + (" -via-glsl" if via_glsl else "") +
                              (" -via-ptx" if via_ptx else "")))
if run_backend is not None:
    config.substitutions.append(("-backend=vulkan", "-backend=" + run_backend))
config.substitutions.append(("%slope-opt", os.path.join(tools, "slope-opt", "slope-opt")))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("FileCheck", config.filecheck))
config.substitutions.append(("%not", os.path.join(os.path.dirname(config.filecheck), "not")))
config.substitutions.append(("%spirv-val", "spirv-val --target-env vulkan1.1"))
config.substitutions.append(("%spirv-dis", "spirv-dis"))
# GLSL output is compiled the way slope-run -via-glsl compiles it.
config.substitutions.append(("%glslang", "glslangValidator -V --target-env vulkan1.1"))
import sys
config.substitutions.append(("%python", sys.executable))

# CUDA C++ output is compiled with nvcc when the toolkit is here (feature `nvcc`; the
# tests needing it are reported unsupported otherwise): PTX for sm_90, the prelude taken
# from -I. tests/lit/cuda/nvcc_path.py finds it the way the runtime does.
sys.path.insert(0, os.path.join(config.test_source_root, "cuda"))
import nvcc_path
nvcc = nvcc_path.find_nvcc()
if nvcc is not None:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc + " --ptx -arch=sm_90"))
    ptxas = os.path.join(os.path.dirname(nvcc), "ptxas")
    if os.path.exists(ptxas):
        config.available_features.add("ptxas")
        config.substitutions.append(("%ptxas", ptxas + " -arch=sm_90"))
# Forward-mode derivatives against finite differences (tests/autodiff/gradcheck.py).
gradcheck = os.path.join(os.path.dirname(config.test_source_root), "autodiff", "gradcheck.py")
config.substitutions.append(
    ("%gradcheck", "%s %s --slope-run %s%s" % (sys.executable, gradcheck, slope_run,
                                              " --backend " + run_backend if run_backend else "")))

# Keep the environment small and deterministic.
for var in ["HOME", "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "XDG_RUNTIME_DIR", "SLOPE_LLVM_PLUGIN",
            "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# The compiler verifies the IR after every pass of a target's list, not only at the end.
config.environment["SLOPE_VERIFY_EACH"] = "1"

# Execution tests need a device: probe each backend, and the optional features of the
# Vulkan device (a small kernel that needs the feature runs, or the device refuses it naming
# the feature: exec/Inputs/probe_*.slang). ctest starts one lit per file: the answers are
# kept next to the build, for as long as slope-run is the same binary and the driver
# environment is the same.
def slope_run_ok(args):
    try:
        r = subprocess.run([slope_run] + args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60, env=dict(os.environ))
        return r.returncode == 0
    except Exception:
        return False

def probe_devices():
    if not os.path.exists(slope_run):
        return {"backends": [], "features": []}
    cache = os.path.join(site_dir, "device_features.json")
    key = [os.path.getmtime(slope_run)] + [os.environ.get(var, "") for var in
        ["VK_ICD_FILENAMES", "VK_DRIVER_FILES", "CUDA_VISIBLE_DEVICES", "SLOPE_LLVM_PLUGIN"]]
    try:
        with open(cache) as f:
            saved = json.load(f)
        if saved.get("key") == key:
            return saved
    except Exception:
        pass
    backends = [name for name in ["vulkan", "cuda", "cpu"]
                if slope_run_ok(["-probe", "-backend=" + name])]
    features = []
    if "vulkan" in backends:
        features = [feature for feature, probe in
                    [("vulkan-int64-atomics", "probe_int64_atomics.slang"),
                     ("vulkan-float-atomics", "probe_float_atomics.slang"),
                     ("vulkan-waves", "probe_waves.slang"),
                     ("wave-size-8", "probe_wave_size_8.slang"),
                     ("vulkan-printf", "probe_printf.slang")]
                    if slope_run_ok([os.path.join(config.test_source_root, "exec", "Inputs", probe),
                                     "-backend=vulkan"])]
    saved = {"key": key, "backends": backends, "features": features}
    temp = "%s.%d" % (cache, os.getpid())
    with open(temp, "w") as f:
        json.dump(saved, f)
    os.replace(temp, cache)
    return saved

devices = probe_devices()

def backend_available(name):
    return name in devices["backends"]

# `structured-waves`: a wave operation acts only on the lanes at the same dynamic instance
# of it (the same loop iteration), as SPIR-V says and the CPU scheduler does. The CUDA
# targets take the warp's converged lanes (__activemask), which a GPU compiler may merge
# where lanes leave a loop at different iterations (docs/cuda.md).
if run_backend is None:
    config.available_features.add("structured-waves")
    for backend in ["vulkan", "cuda", "cpu"]:
        if backend_available(backend):
            config.available_features.add(backend)
elif backend_available(run_backend):
    # The tests say `REQUIRES: vulkan` and the features of a Vulkan device; a CUDA device
    # (sm_70 or later) has each of them (printf: the runtime reads device printf from
    # standard output while the kernel runs).
    config.available_features.add("vulkan")
    config.available_features.add(run_backend)
    if run_backend == "cpu":
        config.available_features.add("structured-waves")
    if run_backend == "cuda":
        for feature in ["vulkan-int64-atomics", "vulkan-float-atomics", "vulkan-waves",
                        "vulkan-printf"]:
            config.available_features.add(feature)
    if run_backend == "cpu":
        # The host has every feature, and the CPU runtime captures printf itself.
        for feature in ["vulkan-int64-atomics", "vulkan-float-atomics", "vulkan-waves",
                        "vulkan-printf"]:
            config.available_features.add(feature)
        # [WaveSize(n)] for n up to 32: the CPU runtime's waves take that width.
        config.available_features.add("wave-size-8")

# `runs-on-vulkan`: `-backend=vulkan` runs on Vulkan itself, not on a backend standing in
# for it (lit parameter backend=cpu or cuda); what only Vulkan does (setting
# specialization constants at pipeline creation) needs it.
if run_backend is None or run_backend == "vulkan":
    config.available_features.add("runs-on-vulkan")

if "vulkan" in config.available_features and run_backend in (None, "vulkan"):
    for feature in devices["features"]:
        config.available_features.add(feature)
# `textures`: kernels with textures and samplers run here. The Vulkan backend (through the
# SPIR-V or the GLSL writer) and the CPU backend (the host target) have them; the CUDA
# targets refuse them with a positioned error, so those runs report the tests unsupported.
if ("vulkan" in config.available_features and run_backend in (None, "vulkan")) or \
        ("cpu" in config.available_features and run_backend == "cpu"):
    config.available_features.add("textures")
