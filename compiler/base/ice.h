#pragma once
// Internal compiler errors: bugs in Slope itself, never user mistakes.
// SLOPE_ICE reports "internal compiler error" with the source location being compiled
// (when a stage has set one through IceLocationScope) and exits non-zero.
// SLOPE_ASSERT stays on in every build type.

#include <string>

namespace slope::base {

/// Exit status of a process that hit an internal compiler error.
inline constexpr int kIceExitCode = 70;

/// Reports an internal compiler error and terminates the process.
[[noreturn]] void ReportIce(const char* file, int line, const std::string& message);

/// While alive, ICE reports on this thread name `where` as the location being compiled
/// (typically "file.slang:12:5"). Scopes nest; the innermost wins.
class IceLocationScope {
 public:
  explicit IceLocationScope(std::string where);
  ~IceLocationScope();
  IceLocationScope(const IceLocationScope&) = delete;
  IceLocationScope& operator=(const IceLocationScope&) = delete;

  /// Replaces the location this scope reports.
  void Update(std::string where);

  /// The location this scope reports.
  const std::string& Where() const { return where_; }

  /// The innermost scope on this thread, or nullptr.
  static const IceLocationScope* Current();

 private:
  std::string where_;
  IceLocationScope* outer_;
};

}  // namespace slope::base

#define SLOPE_ICE(msg) ::slope::base::ReportIce(__FILE__, __LINE__, (msg))
#define SLOPE_ASSERT(cond)                                              \
  do {                                                                  \
    if (!(cond)) ::slope::base::ReportIce(__FILE__, __LINE__,           \
                                          "assertion failed: " #cond);  \
  } while (0)
