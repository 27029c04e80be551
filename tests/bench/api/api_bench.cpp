// The embedded API's speed next to the command lines, in one run: Session creation, a
// module load and a warm in-process compile of the compile_small benchmark's small shader
// to SPIR-V (tests/bench/inputs/small.slang), then, alternating, a cold `slopec` and
// `glslangValidator -V` on the same shader in GLSL (small.comp). Not run by ctest.
//
// Usage: api_bench [RUNS] [SLOPEC] [INPUTS_DIR]
// (defaults: 40 runs, this build's slopec, the source tree's tests/bench/inputs).

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "slope/slope.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// Runs `args` as a child process with its output discarded; the wall time in ms, or -1
/// when it cannot run or fails. `*cpu_ms` gets the child's user plus system time, which
/// a loaded machine inflates far less than the wall time.
double TimeProcess(const std::vector<std::string>& args, double* cpu_ms) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  Clock::time_point start = Clock::now();
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  double ms = Ms(Clock::now() - start);
  *cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
            (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ms : -1;
}

/// The median of `runs` timings of `f`.
template <typename F>
double MedianOf(int runs, F f) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    Clock::time_point start = Clock::now();
    f();
    times.push_back(Ms(Clock::now() - start));
  }
  return Median(times);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--warm-only") {
    // For a profiler: only the warm in-process compile, repeated.
    slope::Session session;
    slope::Module module = session.LoadModule(std::string(SLOPE_BENCH_INPUTS) + "/small.slang");
    for (int i = std::atoi(argv[2]); i > 0; --i)
      slope::Artifact a = module.Compile(slope::Target::SpirV);
    return 0;
  }
  int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 40;
  std::string slopec = argc > 2 ? argv[2] : SLOPE_BENCH_SLOPEC;
  std::string inputs = argc > 3 ? argv[3] : SLOPE_BENCH_INPUTS;
  std::string slang = inputs + "/small.slang";
  std::string glsl = inputs + "/small.comp";
  std::string out = "/tmp/slope-api-bench-" + std::to_string(getpid()) + ".spv";

  // In process.
  double session_ms = MedianOf(runs, [] { slope::Session session; });
  slope::Session session;
  double load_ms = MedianOf(runs, [&] { slope::Module m = session.LoadModule(slang); });
  slope::Module module = session.LoadModule(slang);
  slope::Artifact first = module.Compile(slope::Target::SpirV);
  if (!first.Ok()) {
    std::fprintf(stderr, "api_bench: %s does not compile:\n%s%s\n", slang.c_str(),
                 slope::Render(first.diagnostics).c_str(), first.internal_error.c_str());
    return 1;
  }
  double compile_ms = MedianOf(runs, [&] { slope::Artifact a = module.Compile(slope::Target::SpirV); });
  // The same at -O0: what the SPIRV-Tools optimizer's share is.
  slope::SessionOptions o0;
  o0.optimization_level = 0;
  slope::Module module_o0 = slope::Session(o0).LoadModule(slang);
  double compile_o0_ms =
      MedianOf(runs, [&] { slope::Artifact a = module_o0.Compile(slope::Target::SpirV); });

  // Cold processes, alternating so both see the same machine load.
  std::vector<double> cold_slopec, cold_glslang, cpu_slopec, cpu_glslang;
  for (int i = 0; i < runs; ++i) {
    double s_cpu = 0, g_cpu = 0;
    double s = TimeProcess({slopec, slang, "-target", "spirv", "-o", out}, &s_cpu);
    double g = TimeProcess({"glslangValidator", "-V", glsl, "-o", out}, &g_cpu);
    if (s >= 0) cold_slopec.push_back(s), cpu_slopec.push_back(s_cpu);
    if (g >= 0) cold_glslang.push_back(g), cpu_glslang.push_back(g_cpu);
  }
  std::remove(out.c_str());

  std::printf("small.slang to SPIR-V (-O1), median of %d runs\n", runs);
  std::printf("  %-44s %9.3f us\n", "slope::Session creation", session_ms * 1000);
  std::printf("  %-44s %9.4f ms\n", "Session::LoadModule (read, parse, check)", load_ms);
  std::printf("  %-44s %9.4f ms  (%zu words)\n", "Module::Compile, warm, in process", compile_ms,
              first.data.size() / 4);
  std::printf("  %-44s %9.4f ms\n", "Module::Compile, warm, in process, -O0", compile_o0_ms);
  if (cold_slopec.empty()) {
    std::printf("  %-44s %9s\n", "slopec, cold process", "failed");
  } else {
    std::printf("  %-44s %9.4f ms  (CPU time %.4f ms)\n", "slopec, cold process",
                Median(cold_slopec), Median(cpu_slopec));
  }
  if (cold_glslang.empty()) {
    std::printf("  %-44s %9s\n", "glslangValidator -V small.comp, cold", "not run");
  } else {
    std::printf("  %-44s %9.4f ms  (CPU time %.4f ms)\n", "glslangValidator -V small.comp, cold",
                Median(cold_glslang), Median(cpu_glslang));
    std::printf("  warm compile vs glslangValidator: %.1fx faster\n",
                Median(cold_glslang) / compile_ms);
  }
  if (!cold_slopec.empty()) {
    std::printf("  warm compile vs cold slopec:      %.1fx faster\n", Median(cold_slopec) / compile_ms);
  }
  return 0;
}
