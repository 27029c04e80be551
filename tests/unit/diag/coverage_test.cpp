// Every diagnostic in diagnostics.def must be produced by some test: its code has to
// appear in a CHECK line of a file test (tests/lit) or in a unit test that emits it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "compiler/diag/diag.h"

namespace slope::diag {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DiagCoverageTest, EveryDiagnosticHasATest) {
  std::string corpus;
  std::filesystem::path lit = std::filesystem::path(SLOPE_SOURCE_DIR) / "tests" / "lit";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(lit)) {
    if (!entry.is_regular_file()) continue;
    std::string text = ReadAll(entry.path());
    // Only FileCheck directives count (CHECK:, CHECK-NEXT:, or a custom prefix such as
    // LIMIT:); a code mentioned elsewhere proves nothing.
    static const std::regex kDirective(R"(^\s*(//|#)\s*[A-Z][A-Z0-9_]*(-(NEXT|DAG|SAME))?:)");
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (std::regex_search(line, kDirective)) corpus += line + "\n";
    }
  }
  // Diagnostics emitted and checked directly by diag_test.cpp.
  corpus += "E1001 E3002 N0001 W3101 E0001";
  // Emitted and checked by tests/unit/driver/driver_test.cpp.
  corpus += " E0005";
  std::vector<std::string> missing;
  for (DiagId id : AllDiagIds()) {
    if (corpus.find(DiagCode(id)) == std::string::npos) {
      missing.push_back(DiagCode(id) + " (" + GetDiagInfo(id).name + ")");
    }
  }
  std::string list;
  for (const std::string& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << "diagnostics without a test:" << list;
}

}  // namespace
}  // namespace slope::diag
