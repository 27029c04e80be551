#pragma once
// Source files and locations. Every location in Slope is a SourceLoc: a file id plus
// a byte offset. The SourceManager owns the text and maps offsets to line:column.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace slope::source {

/// Identifies one file loaded into a SourceManager. 0 means "no file".
using FileId = uint32_t;

/// A position in a source file.
struct SourceLoc {
  FileId file = 0;
  uint32_t offset = 0;

  bool IsValid() const { return file != 0; }
};

/// A half-open byte range [begin, end) in one file.
struct SourceRange {
  SourceLoc begin;
  SourceLoc end;

  SourceRange() = default;
  SourceRange(SourceLoc b, SourceLoc e) : begin(b), end(e) {}
  explicit SourceRange(SourceLoc at) : begin(at), end(at) {}
};

/// A 1-based line and column (column counted in bytes).
struct LineCol {
  uint32_t line = 0;
  uint32_t column = 0;
};

/// Owns the text of every file of a compile session.
class SourceManager {
 public:
  /// Adds a file with the given contents; `path` is what diagnostics print.
  FileId AddFile(std::string path, std::string text);

  /// Reads `path` from disk and adds it. Returns 0 when it cannot be read.
  FileId LoadFile(const std::string& path);

  /// The whole text of a file.
  std::string_view Text(FileId file) const;
  /// The path a file was added under.
  const std::string& Path(FileId file) const;

  /// The line and column of a location.
  LineCol GetLineCol(SourceLoc loc) const;
  /// The text of 1-based line `line` without its line terminator.
  std::string_view GetLine(FileId file, uint32_t line) const;
  /// "path:line:col" for a location, or "<unknown>" when invalid.
  std::string Describe(SourceLoc loc) const;

 private:
  struct File {
    std::string path;
    std::string text;
    std::vector<uint32_t> line_starts;  // byte offset of each line's first character
  };
  const File& Get(FileId file) const;

  std::vector<std::unique_ptr<File>> files_;
};

}  // namespace slope::source
