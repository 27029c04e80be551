// The header's thread-safety promise: 8 threads compile at once, through one shared
// Session and its Modules and through Sessions of their own, and each artifact equals
// the one a single thread made.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "slope/slope.hpp"

namespace slope {
namespace {

struct Job {
  std::string name;
  std::string source;
  Target target;
};

std::vector<Job> Jobs() {
  const std::string scale =
      "StructuredBuffer<float> in_data;\n"
      "RWStructuredBuffer<float> out_data;\n"
      "[shader(\"compute\")] [numthreads(64, 1, 1)]\n"
      "void scale(uint3 tid : SV_DispatchThreadID) {\n"
      "    out_data[tid.x] = in_data[tid.x] * SCALE;\n"
      "}\n";
  const std::string diff =
      "RWStructuredBuffer<float> grads;\n"
      "[Differentiable] float sq(float x) { return x * x * 3.0; }\n"
      "[numthreads(8, 1, 1)]\n"
      "void grad(uint3 tid : SV_DispatchThreadID) {\n"
      "    var p = diffPair(float(tid.x), 0.0);\n"
      "    bwd_diff(sq)(p, 1.0);\n"
      "    grads[tid.x] = p.d;\n"
      "}\n";
  const std::string bad =
      "[numthreads(1, 1, 1)]\n"
      "void main() { int a = nothing; }\n";
  return {{"scale.slang", scale, Target::SpirV},
          {"scale.slang", scale, Target::Glsl},
          {"grad.slang", diff, Target::SpirV},
          {"grad.slang", diff, Target::Cuda},
          {"bad.slang", bad, Target::SpirV}};
}

/// What must match between two compiles of the same job.
std::string Fingerprint(const Artifact& a) {
  return std::to_string(static_cast<int>(a.status)) + "|" + a.data + "|" + a.reflection_json + "|" +
         Render(a.diagnostics) + "|" + a.internal_error;
}

SessionOptions Options() {
  SessionOptions options;
  options.macros = {{"SCALE", "2.5"}};
  return options;
}

TEST(ApiThreadsTest, EightThreadsCompileTheSameAndDifferentModules) {
  const std::vector<Job> jobs = Jobs();
  // Single-threaded reference results.
  std::vector<std::string> expected;
  {
    Session session(Options());
    for (const Job& job : jobs) {
      expected.push_back(
          Fingerprint(session.LoadModuleFromSource(job.name, job.source).Compile(job.target)));
    }
  }
  ASSERT_NE(expected[0].find("|"), std::string::npos);
  EXPECT_EQ(expected[0].substr(0, 2), "0|");  // Ok
  EXPECT_EQ(expected[4].substr(0, 2), "1|");  // the bad module fails

  // Shared: one Session and its Modules, loaded once, used by every thread.
  Session shared(Options());
  std::vector<Module> modules;
  for (const Job& job : jobs) modules.push_back(shared.LoadModuleFromSource(job.name, job.source));

  constexpr int kThreads = 8;
  constexpr int kRounds = 3;
  std::vector<std::vector<std::string>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Odd threads use a Session of their own (loading their modules themselves), even
      // ones the shared Session's modules; each starts at another job.
      Session own(Options());
      for (int round = 0; round < kRounds; ++round) {
        for (size_t k = 0; k < jobs.size(); ++k) {
          size_t j = (k + static_cast<size_t>(t)) % jobs.size();
          Artifact a = t % 2 == 0
                           ? modules[j].Compile(jobs[j].target)
                           : own.LoadModuleFromSource(jobs[j].name, jobs[j].source)
                                 .Compile(jobs[j].target);
          got[t].push_back(std::to_string(j) + "#" + Fingerprint(a));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), jobs.size() * kRounds);
    for (const std::string& g : got[t]) {
      size_t hash = g.find('#');
      size_t j = std::stoul(g.substr(0, hash));
      EXPECT_EQ(g.substr(hash + 1), expected[j]) << "thread " << t << ", job " << j;
    }
  }
}

}  // namespace
}  // namespace slope
