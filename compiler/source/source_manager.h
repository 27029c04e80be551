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

  /// The line and column of a location as the user sees them: the line follows any
  /// `#line` directive recorded with AddLineMarker; the column counts bytes.
  LineCol GetLineCol(SourceLoc loc) const;
  /// The physical line and column of a location, ignoring `#line`.
  LineCol GetPhysicalLineCol(SourceLoc loc) const;
  /// The text of 1-based physical line `line` without its line terminator.
  std::string_view GetLine(FileId file, uint32_t line) const;
  /// The text of the physical line holding `loc` (for caret lines).
  std::string_view GetLineText(SourceLoc loc) const;
  /// The file name diagnostics print for `loc`: the last `#line "name"` before it, or
  /// the path the file was added under.
  const std::string& PresumedPath(SourceLoc loc) const;
  /// "path:line:col" for a location (after `#line` mapping), or "<unknown>" when invalid.
  std::string Describe(SourceLoc loc) const;

  /// Records a `#line`: physical line `physical_line` of `file` is presented as line
  /// `line`, and following lines count on from it. When `path` is non-empty it replaces
  /// the file's name from there on. A second marker for the same line replaces the first.
  void AddLineMarker(FileId file, uint32_t physical_line, uint32_t line, std::string path);
  /// A `#line` of a file as AddLineMarker recorded it.
  struct LineMarkerInfo {
    uint32_t physical_line;
    uint32_t line;
    std::string path;
  };
  /// The `#line` markers of `file`, in the order of the lines they renumber.
  std::vector<LineMarkerInfo> LineMarkers(FileId file) const;

  /// Stores text that has no file of its own (tokens made by `##`, `#`, `__FILE__`)
  /// and returns a view of it that stays valid as long as the SourceManager. Two stored
  /// texts are never adjacent in memory (a separator byte follows each).
  std::string_view AddScratchText(std::string_view text);
  /// Bytes stored by AddScratchText so far.
  size_t ScratchBytes() const { return scratch_bytes_; }

 private:
  /// A `#line` directive's effect from `offset` on.
  struct LineMarker {
    uint32_t offset;         // first byte of the physical line it renumbers
    uint32_t physical_line;  // that line's physical number
    uint32_t line;           // the number it is given
    std::string path;        // the name from there on (empty: unchanged)
  };
  struct File {
    std::string path;
    std::string text;
    std::vector<uint32_t> line_starts;  // byte offset of each line's first character
    std::vector<LineMarker> markers;    // sorted by offset
  };
  const File& Get(FileId file) const;
  /// The last marker at or before `loc`, or nullptr.
  const LineMarker* MarkerFor(SourceLoc loc) const;

  std::vector<std::unique_ptr<File>> files_;
  /// Fixed-capacity blocks: appending within capacity never moves earlier text.
  std::vector<std::unique_ptr<std::string>> scratch_;
  size_t scratch_bytes_ = 0;
};

}  // namespace slope::source
