// A Module checks its source once per target and entry-point list and then runs only the
// back end: every later compile must give what a fresh module gives. Each test compiles
// every file of some lit folders three ways for several targets (a fresh module; the
// same module again, after other targets used it) and compares the artifacts whole.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "slope/slope.hpp"

namespace slope {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> SlangFiles(const std::string& folder) {
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::directory_iterator(fs::path(SLOPE_SOURCE_DIR) / "tests/lit" / folder)) {
    if (entry.path().extension() == ".slang") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// What must not differ between two compiles of the same module.
std::string Describe(const Artifact& a) {
  std::string out = "status " + std::to_string(static_cast<int>(a.status)) + "\n";
  out += Render(a.diagnostics);
  out += a.internal_error;
  out += a.reflection_json;
  return out;
}

void ExpectRepeatable(const std::string& folder, size_t least_compiled) {
  const Target targets[] = {Target::SpirV, Target::Glsl, Target::Cuda};
  size_t compiled = 0;
  for (const fs::path& path : SlangFiles(folder)) {
    std::string text = ReadFile(path);
    // Execution tests name their kernel as slangc users do (-entry computeMain).
    std::vector<std::string> entries;
    if (text.find("computeMain") != std::string::npos) entries.push_back("computeMain");
    Session session;
    Module module = session.LoadModule(path.string());
    std::vector<Artifact> first;
    for (Target t : targets) first.push_back(module.Compile(t, entries));
    for (size_t i = 0; i < std::size(targets); ++i) {
      SCOPED_TRACE(path.filename().string() + " for " + std::string(TargetName(targets[i])));
      Artifact again = module.Compile(targets[i], entries);
      Artifact fresh = session.LoadModule(path.string()).Compile(targets[i], entries);
      EXPECT_EQ(Describe(again), Describe(fresh));
      EXPECT_EQ(Describe(first[i]), Describe(fresh));
      EXPECT_TRUE(again.data == fresh.data);
      EXPECT_TRUE(first[i].data == fresh.data);
      if (fresh.status == Status::Ok) ++compiled;
    }
  }
  // The comparison is not only of failures: so many compiles gave code.
  EXPECT_GE(compiled, least_compiled);
}

TEST(RepeatedCompileTest, ExecutionTestsCompileAgainAsFresh) { ExpectRepeatable("exec", 300); }
TEST(RepeatedCompileTest, AutodiffTestsCompileAgainAsFresh) { ExpectRepeatable("autodiff", 40); }
TEST(RepeatedCompileTest, CompatTestsCompileAgainAsFresh) { ExpectRepeatable("compat", 100); }
// Mostly errors: the same diagnostics each time.
TEST(RepeatedCompileTest, SemaTestsCompileAgainAsFresh) { ExpectRepeatable("sema", 5); }

}  // namespace
}  // namespace slope
