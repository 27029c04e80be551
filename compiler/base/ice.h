#pragma once
// Internal compiler errors: bugs in Slope itself, never user mistakes.
// SLOPE_ICE reports "internal compiler error" with the source location being compiled
// (when a stage has set one through IceLocationScope) by throwing InternalError. The
// library never ends the process: the embedded API returns the error as a result, and
// the tools' main() reports it and exits with kIceExitCode (ExitWithIce).
// SLOPE_ASSERT stays on in every build type.

#include <exception>
#include <string>

namespace slope::base {

/// Exit status of a process that hit an internal compiler error.
inline constexpr int kIceExitCode = 70;

/// An internal compiler error on its way to the boundary of the library. `what()` is the
/// report as the tools print it: "WHERE: internal compiler error: MESSAGE", then a line
/// "note: raised at FILE:LINE; please report this bug".
class InternalError : public std::exception {
 public:
  explicit InternalError(std::string report) : report_(std::move(report)) {}
  const char* what() const noexcept override { return report_.c_str(); }
  /// The report, as what() gives it.
  const std::string& Report() const { return report_; }

 private:
  std::string report_;
};

/// Throws the InternalError of `message` raised at `file`:`line`, naming the innermost
/// IceLocationScope of this thread.
[[noreturn]] void ReportIce(const char* file, int line, const std::string& message);

/// For the tools' main(): prints `error`'s report on stderr (after flushing stdout) and
/// exits the process with kIceExitCode.
[[noreturn]] void ExitWithIce(const InternalError& error);

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
