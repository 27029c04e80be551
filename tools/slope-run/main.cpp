// slope-run: runs an execution test. Compiles FILE, fills the buffers its //INPUT: and
// //OUTPUT: directives describe, dispatches it on the chosen backend and prints each
// output buffer as "NAME: v0 v1 ...". Exit codes: 0 ran, 1 error, 77 backend
// unavailable (the test is unsupported here, not passed).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/driver/args.h"
#include "compiler/driver/compile.h"
#include "compiler/targets/cuda/kernel_symbol.h"
#include "compiler/targets/cuda/prelude.h"
#include "runtime/core/device.h"
#include "runtime/cuda/cuda_device.h"
#include "tools/common/codegen_flags.h"
#include "tools/common/tool_main.h"
#include "tools/slope-run/compare.h"
#include "tools/slope-run/run_spec.h"
#include "tools/slope-run/test_spec.h"
#include "tools/slope-run/via_glsl.h"

namespace {

constexpr int kExitUnsupported = 77;
// The kernel calls printf but nothing here can capture its output (no validation layer).
constexpr int kExitNoPrintf = 78;

/// Whether the SPIR-V module imports NonSemantic.DebugPrintf (the kernel calls printf).
bool UsesPrintf(const std::vector<uint32_t>& spirv) {
  static const char kImport[] = "NonSemantic.DebugPrintf";
  for (size_t i = 5; i < spirv.size();) {
    uint32_t count = spirv[i] >> 16;
    if (count == 0) return false;
    if ((spirv[i] & 0xFFFFu) == 11 /* OpExtInstImport */ && count >= 3 &&
        i + count <= spirv.size()) {
      const char* name = reinterpret_cast<const char*>(&spirv[i + 2]);
      size_t size = (count - 2) * 4;
      if (strnlen(name, size) == sizeof(kImport) - 1 &&
          std::memcmp(name, kImport, sizeof(kImport) - 1) == 0) {
        return true;
      }
    }
    i += count;
  }
  return false;
}

bool ReadFile(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream contents;
  contents << in.rdbuf();
  *text = contents.str();
  return static_cast<bool>(in) || in.eof();
}

/// What one run prints: the output buffers' lines, the kernel's printf messages (after
/// the buffers, one a line) and the -time line.
struct Printed {
  std::string buffers;
  std::vector<std::string> messages;
  std::string time;
  std::string Text() const {
    std::string text = buffers;
    for (const std::string& m : messages) text += m + "\n";
    return text + time;
  }
};

/// `lines`, sorted, one a line.
std::string SortedLines(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

/// Applies `-specialize=ID=VALUE` settings to `reflection`'s specialization constants
/// (the value read as the constant's type); false with `*error` set on a malformed
/// setting or an id no constant has.
bool ApplySpecializations(const std::vector<std::string>& settings,
                          slope::driver::Reflection* reflection, std::string* error) {
  for (const std::string& setting : settings) {
    size_t eq = setting.find('=');
    std::string id_text = setting.substr(0, eq);
    std::string value = eq == std::string::npos ? std::string() : setting.substr(eq + 1);
    char* end = nullptr;
    unsigned long id = std::strtoul(id_text.c_str(), &end, 10);
    if (eq == std::string::npos || id_text.empty() || *end != '\0' || value.empty()) {
      *error = "-specialize expects ID=VALUE (a constant_id and a value), not '" + setting + "'";
      return false;
    }
    slope::driver::SpecConstantInfo* found = nullptr;
    for (slope::driver::SpecConstantInfo& s : reflection->spec_constants) {
      if (s.id == id) found = &s;
    }
    if (found == nullptr) {
      *error = "-specialize: no specialization constant has constant_id " + id_text;
      return false;
    }
    bool ok = true;
    uint32_t bits = 0;
    errno = 0;
    switch (found->type) {
      case slope::driver::ScalarKind::Bool:
        ok = value == "true" || value == "false" || value == "0" || value == "1";
        bits = value == "true" || value == "1" ? 1 : 0;
        break;
      case slope::driver::ScalarKind::Float32: {
        float f = std::strtof(value.c_str(), &end);
        ok = *end == '\0';
        std::memcpy(&bits, &f, sizeof(bits));
        break;
      }
      case slope::driver::ScalarKind::Int32: {
        long long v = std::strtoll(value.c_str(), &end, 0);
        ok = *end == '\0' && errno == 0 && v >= INT32_MIN && v <= INT32_MAX;
        bits = static_cast<uint32_t>(v);
        break;
      }
      default: {
        unsigned long long v = std::strtoull(value.c_str(), &end, 0);
        ok = *end == '\0' && errno == 0 && value[0] != '-' && v <= UINT32_MAX;
        bits = static_cast<uint32_t>(v);
        break;
      }
    }
    if (!ok) {
      *error = "-specialize: '" + value + "' is not a value of type '" +
               slope::driver::ScalarKindName(found->type) + "' for '" + found->name + "'";
      return false;
    }
    found->overridden = true;
    found->value_bits = bits;
    // `[numthreads(kX, ...)]`: the workgroup the pipeline makes has the new size.
    for (slope::driver::EntryPointInfo& e : reflection->entry_points) {
      for (size_t d = 0; d < 3; ++d) {
        if (e.numthreads_spec_ids[d] == static_cast<int64_t>(id)) e.numthreads[d] = bits;
      }
    }
  }
  return true;
}

/// Runs the compiled test on `chosen` (the default device when none) and puts what it
/// prints into `*printed`: 0, or the exit code of a failure with its message on stderr.
/// `options` and `compiled` are the SPIR-V compile's; the CUDA and CPU backends compile
/// again for their targets.
int RunOn(std::optional<slope::runtime::Backend> chosen, int device_index, bool via_ptx, bool time,
          const std::string& file, const slope::run::TestSpec& spec, const std::string& entry,
          slope::driver::CompileOptions& run_options, slope::driver::CompileResult& run_compiled,
          const std::vector<std::string>& specialize, Printed* printed) {
  slope::run::SpecError spec_error;
  std::string error;
  slope::runtime::DeviceOptions device_options;
  device_options.debug_printf = UsesPrintf(run_compiled.spirv);
  if (device_options.debug_printf) {
    // Without a backend named, a kernel that prints runs on Vulkan, whose layer prints.
    if (!chosen) chosen = slope::runtime::Backend::Vulkan;
    std::string why;
    if (!slope::runtime::PrintfAvailable(*chosen, &why)) {
      std::cerr << "slope-run: the kernel calls printf, which needs what is missing here: " << why
                << "\n";
      return kExitNoPrintf;
    }
  }
  std::unique_ptr<slope::runtime::Device> device =
      chosen ? slope::runtime::CreateDevice(*chosen, device_index, &error, device_options)
              : slope::runtime::CreateDefaultDevice(&error);
  if (device == nullptr) {
    if (chosen) {
      std::cerr << "slope-run: backend '" << slope::runtime::BackendName(*chosen)
                << "' unavailable: " << error << "\n";
    } else {
      std::cerr << "slope-run: " << error << "\n";
    }
    return kExitUnsupported;
  }

  slope::runtime::KernelCode code{run_compiled.spirv, {}};
  std::string ptx;
  if (device->GetBackend() == slope::runtime::Backend::Cuda) {
    // The CUDA backend runs the CUDA C++ target's output, run_compiled to PTX for the device
    // (NVRTC, else nvcc); its reflection (scalar layout) replaces the SPIR-V one.
    run_options.target = via_ptx ? slope::driver::Target::Ptx : slope::driver::Target::Cuda;
    int sm = slope::runtime::cuda::CudaComputeCapability(device_index);
    if (sm > 0) run_options.gpu_arch = "sm_" + std::to_string(sm);
    run_compiled = slope::driver::Compile(run_options);
    if (!run_compiled.ok) return 1;
    if (!slope::run::CheckSpecAgainstReflection(spec, run_compiled.reflection, &spec_error)) {
      std::cerr << file << ":" << spec_error.line << ": error: " << spec_error.message << "\n";
      return 1;
    }
    if (via_ptx) {
      ptx = run_compiled.text;
    } else if (!slope::runtime::cuda::CompileCudaToPtx(run_compiled.text,
                                                 slope::targets::cuda::kPreludeName,
                                                 slope::targets::cuda::PreludeText(), sm, &ptx,
                                                 &error)) {
      std::cerr << "slope-run: error: " << error << "\n--- CUDA C++ ---\n" << run_compiled.text;
      return 1;
    }
    code = slope::runtime::KernelCode{{}, ptx};
  }
  if (device->GetBackend() == slope::runtime::Backend::Cpu) {
    // The CPU backend JIT-compiles the host target's bitcode; its reflection (scalar
    // layout) replaces the SPIR-V one.
    run_options.target = slope::driver::Target::Host;
    run_compiled = slope::driver::Compile(run_options);
    if (!run_compiled.ok) return 1;
    if (!slope::run::CheckSpecAgainstReflection(spec, run_compiled.reflection, &spec_error)) {
      std::cerr << file << ":" << spec_error.line << ": error: " << spec_error.message << "\n";
      return 1;
    }
    code = slope::runtime::KernelCode{{}, {}, run_compiled.binary};
  }
  if (!ApplySpecializations(specialize, &run_compiled.reflection, &error)) {
    std::cerr << "slope-run: error: " << error << "\n";
    return 1;
  }
  std::ostringstream out;
  slope::runtime::DispatchStats stats;
  if (!slope::run::RunTestSpec(spec, *device, code, run_compiled.reflection, entry, out, &error,
                               time ? &stats : nullptr)) {
    std::cerr << "slope-run: error: " << error << "\n";
    return 1;
  }
  printed->buffers = out.str();
  printed->messages = device->TakePrintfMessages();
  if (time) {
    if (stats.kernel_ms >= 0) {
      printed->time = "kernel time: " + std::to_string(stats.kernel_ms) + " ms\n";
    } else {
      printed->time = "kernel time: unavailable (the device's queue has no timestamps)\n";
    }
  }
  return 0;
}

using RunFn = std::function<int(std::optional<slope::runtime::Backend>, Printed*)>;

/// -backend=all: runs on every backend that has a device, prints the first one's output
/// (and each one's -time line), and fails when another's disagrees with it.
int RunEverywhere(const RunFn& run_on, double tolerance) {
  using slope::runtime::Backend;
  using slope::runtime::BackendName;
  std::vector<std::pair<Backend, Printed>> ran;
  for (Backend b : {Backend::Vulkan, Backend::Cuda, Backend::Cpu}) {
    Printed out;
    int rc = run_on(b, &out);
    if (rc == kExitUnsupported || rc == kExitNoPrintf) continue;  // said why on stderr
    if (rc != 0) {
      std::cerr << "slope-run: error: -backend=all: the " << BackendName(b)
                << " backend failed\n";
      return rc;
    }
    ran.emplace_back(b, out);
  }
  if (ran.empty()) {
    std::cerr << "slope-run: no backend has a usable device here\n";
    return kExitUnsupported;
  }
  std::cout << ran.front().second.buffers;
  for (const std::string& m : ran.front().second.messages) std::cout << m << "\n";
  int rc = 0;
  std::string names = BackendName(ran.front().first);
  for (size_t i = 1; i < ran.size(); ++i) {
    names += std::string(", ") + BackendName(ran[i].first);
    // Buffers line by line; printf messages as a set (threads print in no fixed order).
    std::string diff =
        slope::run::FirstDifference(ran.front().second.buffers, ran[i].second.buffers, tolerance);
    if (diff.empty()) {
      diff = slope::run::FirstDifference(SortedLines(ran.front().second.messages),
                                         SortedLines(ran[i].second.messages), tolerance);
      if (!diff.empty()) diff = "the printf messages (sorted): " + diff;
    }
    if (!diff.empty()) {
      std::cerr << "slope-run: error: the " << BackendName(ran[i].first) << " and "
                << BackendName(ran.front().first) << " backends disagree at " << diff << "\n";
      rc = 1;
    }
  }
  for (const auto& [b, out] : ran) {
    if (!out.time.empty()) std::cout << BackendName(b) << " " << out.time;
  }
  if (rc == 0) std::cerr << "slope-run: " << names << ": the outputs agree\n";
  std::cout << std::flush;
  return rc;
}

int SlopeRunMain(int argc, char** argv) {
  CLI::App app{"Runs a Slope execution test and prints its output buffers."};
  app.name("slope-run");
  app.footer("Options may also be spelled with one dash: -backend=vulkan, -entry main.");
  std::string file;
  std::string backend_text;
  std::string entry;
  int device_index = -1;
  bool probe = false;
  app.add_option("file", file, "the test source file");
  app.add_flag("--probe", probe,
               "only check that the backend has a usable device (exit 0, else 77)");
  app.add_option("--backend", backend_text,
                 "vulkan, cuda or cpu (default: the first that works); all: every backend "
                 "that has a device, failing when their outputs disagree");
  double tolerance = 1e-5;
  app.add_option("--tolerance", tolerance,
                 "with -backend=all, how far floats of two backends may differ, relative to "
                 "the larger magnitude (at least 1); integers must be equal");
  app.add_option("--entry", entry,
                 "the entry point to run, which needs only [numthreads] (default: //ENTRY:, "
                 "else the first function marked [shader])");
  std::string stage = "compute";
  app.add_option("--stage", stage, "the stage of an -entry function without [shader] (compute)");
  app.add_option("--device", device_index, "the device number within the backend");
  bool time = false;
  app.add_flag("--time", time,
               "print the kernel's device time (timestamps around the dispatch) after the "
               "outputs");
  slope::tools::CodegenFlags codegen;
  codegen.AddTo(app);
  bool via_glsl = false;
  app.add_flag("--via-glsl", via_glsl,
               "compile through the GLSL writer and glslang instead of the SPIR-V writer");
  std::vector<std::string> specialize;
  app.add_option("--specialize", specialize,
                 "ID=VALUE: create the pipeline with specialization constant ID set to VALUE "
                 "(repeatable; Vulkan only: the CPU and CUDA backends compile the default in)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  bool via_ptx = false;
  app.add_flag("--via-ptx", via_ptx,
               "on the CUDA backend, run the ptx target's output (LLVM's NVPTX backend) "
               "instead of the CUDA C++ target's compiled with NVRTC");
  std::vector<std::string> args = slope::driver::NormalizeArgs(argc, argv);
  // CLI11 takes the arguments last-first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;  // --help is not an error
  }

  std::optional<slope::runtime::Backend> backend;
  bool all_backends = backend_text == "all";
  if (!backend_text.empty() && !all_backends) {
    backend = slope::runtime::ParseBackend(backend_text);
    if (!backend) {
      std::cerr << "slope-run: error: unknown backend '" << backend_text
                << "' (expected vulkan, cuda, cpu or all)\n";
      return 1;
    }
  }

  if (device_index >= 0 && !backend) {
    std::cerr << "slope-run: error: -device needs -backend=vulkan, cuda or cpu\n";
    return 1;
  }
  if (all_backends && (probe || via_ptx)) {
    std::cerr << "slope-run: error: -backend=all does not combine with "
              << (probe ? "-probe" : "-via-ptx") << "\n";
    return 1;
  }

  if (probe) {
    std::string why;
    auto device = backend ? slope::runtime::CreateDevice(*backend, device_index, &why)
                          : slope::runtime::CreateDefaultDevice(&why);
    if (device == nullptr) {
      std::cerr << "slope-run: unavailable: " << why << "\n";
      return kExitUnsupported;
    }
    std::cout << slope::runtime::BackendName(device->GetBackend()) << ": " << device->Name()
              << "\n";
    return 0;
  }
  if (file.empty()) {
    std::cerr << "slope-run: error: no input file\n";
    return 1;
  }

  std::string source;
  if (!ReadFile(file, &source)) {
    std::cerr << "slope-run: error: cannot read '" << file << "'\n";
    return 1;
  }
  slope::run::TestSpec spec;
  slope::run::SpecError spec_error;
  if (!slope::run::ParseTestSpec(source, &spec, &spec_error)) {
    std::cerr << file << ":" << spec_error.line << ": error: " << spec_error.message << "\n";
    return 1;
  }
  if (entry.empty()) entry = spec.entry;

  slope::driver::CompileOptions options;
  options.verify_each_pass = slope::tools::VerifyEachFromEnvironment();
  options.input_path = file;
  options.source_text = source;
  if (!entry.empty()) options.entries = {entry};
  options.stage = stage;
  options.target = slope::driver::Target::SpirV;
  if (via_glsl) {
    options.target = slope::driver::Target::Glsl;
    if (options.entries.empty()) {
      // GLSL holds one entry point: the first, as the SPIR-V path runs by default.
      slope::driver::CompileOptions names = options;
      names.stop_after = slope::driver::StopAfter::Ir;
      slope::driver::CompileResult lowered = slope::driver::Compile(names);
      if (!lowered.ok) return 1;
      if (!lowered.reflection.entry_points.empty()) {
        options.entries = {lowered.reflection.entry_points.front().name};
      }
    }
  }
  codegen.ApplyTo(options);
  slope::driver::CompileResult compiled = slope::driver::Compile(options);
  if (!compiled.ok) return 1;  // the compiler has printed its diagnostics

  if (!slope::run::CheckSpecAgainstReflection(spec, compiled.reflection, &spec_error)) {
    std::cerr << file << ":" << spec_error.line << ": error: " << spec_error.message << "\n";
    return 1;
  }
  // The entry point and module the backends other than Vulkan compile and run.
  std::string source_entry = entry;
  slope::driver::CompileResult source_compiled;
  if (via_glsl) {
    std::string why;
    entry = options.entries.empty() ? std::string() : options.entries.front();
    source_entry = entry;
    source_compiled = compiled;
    // glslang miscounts the words of a non-ASCII entry-point name in the SPIR-V it
    // writes: in glslang's SPIR-V (which only Vulkan runs) such an entry point gets an
    // ASCII name (`_xHH` per byte).
    bool non_ascii = std::any_of(entry.begin(), entry.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    if (non_ascii) {
      std::string ascii = slope::targets::cuda::KernelSymbol(entry);
      for (auto& info : compiled.reflection.entry_points) {
        if (info.name == entry) info.name = ascii;
      }
      entry = ascii;
    }
    if (!slope::run::CompileGlslToSpirv(compiled.text, entry, codegen.scalar_layout,
                                        &compiled.spirv, &why)) {
      std::cerr << "slope-run: error: " << why << "\n";
      return 1;
    }
  }

  // Runs on `chosen` (the default device when none), the outputs into `out`: 0, or the
  // exit code of a failure, with its message on stderr.
  auto run_on = [&](std::optional<slope::runtime::Backend> chosen, Printed* out) -> int {
    slope::driver::CompileOptions run_options = options;
    bool glslang_spirv =
        via_glsl && chosen.value_or(slope::runtime::Backend::Vulkan) == slope::runtime::Backend::Vulkan;
    slope::driver::CompileResult run_compiled = !via_glsl || glslang_spirv ? compiled : source_compiled;
    return RunOn(chosen, device_index, via_ptx, time, file, spec,
                 !via_glsl || glslang_spirv ? entry : source_entry, run_options, run_compiled,
                 specialize, out);
  };
  if (!all_backends) {
    Printed out;
    int rc = run_on(backend, &out);
    std::cout << out.Text() << std::flush;
    return rc;
  }
  return RunEverywhere(run_on, tolerance);
}

}  // namespace

int main(int argc, char** argv) { return slope::tools::RunToolMain(argc, argv, SlopeRunMain); }
