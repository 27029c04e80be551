#pragma once
// Which compiles a slopec command line asks for: one job per output file. slangc ties
// each `-o` to the `-target` to its left (several targets) or to the `-entry` to its
// left (several entry points, the target then read from the path's extension); a
// template `-o out/{entry}.{ext}` gives one file per target and entry point.

#include <string>
#include <vector>

#include "tools/slopec/options.h"

namespace slope::tools::slopec {

/// One compile and the file it writes.
struct Job {
  std::string target;                ///< canonical target name (options.h)
  std::vector<std::string> entries;  ///< empty: every entry point of the module
  std::string output;                ///< "-" for standard output
  /// The output is a template holding "{entry}": one file per entry point, which
  /// main.cpp expands once the module's entry points are known.
  bool per_entry = false;
};

/// Plans the jobs of a code-generating command line. On a mistake returns false with
/// `*error` set (no compile has run, so nothing is written).
bool PlanJobs(const CommandLine& cl, std::vector<Job>* jobs, std::string* error);

/// Replaces {entry}, {ext} and {target} in an -o template.
std::string ExpandTemplate(const std::string& path, const std::string& target,
                           const std::string& entry);

}  // namespace slope::tools::slopec
