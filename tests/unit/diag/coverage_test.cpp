// Every diagnostic in diagnostics.def must be produced by some test: its code has to
// appear in a CHECK line of a file test (tests/lit) or in a unit test that emits it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

/// True for lines like "// CHECK: ...", "# LIMIT-NEXT: ...", "// FOO-DAG: ...".
bool IsFileCheckDirective(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos) return false;
  if (line.compare(i, 2, "//") == 0) {
    i += 2;
  } else if (line[i] == '#') {
    i += 1;
  } else {
    return false;
  }
  i = line.find_first_not_of(" \t", i);
  if (i == std::string::npos || line[i] < 'A' || line[i] > 'Z') return false;
  size_t start = i;
  while (i < line.size() && ((line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= '0' && line[i] <= '9') ||
                             line[i] == '_' || line[i] == '-')) {
    ++i;
  }
  if (i >= line.size() || line[i] != ':') return false;
  std::string prefix = line.substr(start, i - start);
  // Positive directive suffixes count; -NOT lines prove nothing was produced.
  for (const char* suffix : {"-NEXT", "-DAG", "-SAME", "-LABEL"}) {
    std::string s(suffix);
    if (prefix.size() > s.size() && prefix.compare(prefix.size() - s.size(), s.size(), s) == 0) {
      prefix.resize(prefix.size() - s.size());
      break;
    }
  }
  return prefix.find('-') == std::string::npos;
}

TEST(DiagCoverageTest, EveryDiagnosticHasATest) {
  std::string corpus;
  std::filesystem::path lit = std::filesystem::path(SLOPE_SOURCE_DIR) / "tests" / "lit";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(lit)) {
    if (!entry.is_regular_file()) continue;
    std::string text = ReadAll(entry.path());
    // Only FileCheck directives count (CHECK:, CHECK-NEXT:, or a custom prefix such as
    // LIMIT:); a code mentioned elsewhere proves nothing.
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      if (IsFileCheckDirective(line)) corpus += line + "\n";
    }
  }
  // Diagnostics emitted and checked directly by diag_test.cpp.
  corpus += "E1001 E3002 N0001 W3101 E0001";
  // Emitted and checked by tests/unit/driver/driver_test.cpp.
  corpus += " E0005";
  // Emitted and checked by tests/unit/driver/llvm_emit_test.cpp (a module handed to the
  // LLVM writer without the entry point asked for).
  corpus += " E5201";
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
