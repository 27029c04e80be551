#include "compiler/source/source_manager.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compiler/base/ice.h"

namespace slope::source {

FileId SourceManager::AddFile(std::string path, std::string text) {
  auto file = std::make_unique<File>();
  file->path = std::move(path);
  file->text = std::move(text);
  file->line_starts.push_back(0);
  const std::string& t = file->text;
  if (std::memchr(t.data(), '\r', t.size()) == nullptr) {
    // Only "\n" ends lines: memchr finds each far faster than a loop over the bytes.
    const char* begin = t.data();
    const char* end = begin + t.size();
    for (const char* p = begin; p < end;) {
      const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
      if (nl == nullptr) break;
      p = static_cast<const char*>(nl) + 1;
      file->line_starts.push_back(static_cast<uint32_t>(p - begin));
    }
  } else {
    for (uint32_t i = 0; i < t.size(); ++i) {
      // "\r\n", "\n" and a lone "\r" all end a line.
      if (t[i] == '\n' || (t[i] == '\r' && (i + 1 >= t.size() || t[i + 1] != '\n'))) {
        file->line_starts.push_back(i + 1);
      }
    }
  }
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size());
}

FileId SourceManager::LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  // Read straight into a string of the file's size: a stream buffer that grows by
  // doubling and is then copied out holds a 50 MB source three times over.
  std::string text;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0 && in) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return 0;
  // A file that grew while being read, or one whose size is not known (a pipe): the rest.
  if (size <= 0 || in.good()) {
    in.clear();
    std::ostringstream rest;
    rest << in.rdbuf();
    text += rest.str();
  }
  return AddFile(path, std::move(text));
}

const SourceManager::File& SourceManager::Get(FileId file) const {
  SLOPE_ASSERT(file >= 1 && file <= files_.size());
  return *files_[file - 1];
}

std::string_view SourceManager::Text(FileId file) const { return Get(file).text; }

const std::string& SourceManager::Path(FileId file) const { return Get(file).path; }

LineCol SourceManager::GetPhysicalLineCol(SourceLoc loc) const {
  if (!loc.IsValid()) return {};
  const File& f = Get(loc.file);
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), loc.offset);
  uint32_t line_index = static_cast<uint32_t>(it - f.line_starts.begin()) - 1;
  return {line_index + 1, loc.offset - f.line_starts[line_index] + 1};
}

std::string_view SourceManager::GetLine(FileId file, uint32_t line) const {
  const File& f = Get(file);
  if (line == 0 || line > f.line_starts.size()) return {};
  uint32_t begin = f.line_starts[line - 1];
  uint32_t end = begin;
  while (end < f.text.size() && f.text[end] != '\n' && f.text[end] != '\r') ++end;
  return std::string_view(f.text).substr(begin, end - begin);
}

std::string_view SourceManager::GetLineText(SourceLoc loc) const {
  if (!loc.IsValid()) return {};
  return GetLine(loc.file, GetPhysicalLineCol(loc).line);
}

const SourceManager::LineMarker* SourceManager::MarkerFor(SourceLoc loc) const {
  const File& f = Get(loc.file);
  auto it = std::upper_bound(f.markers.begin(), f.markers.end(), loc.offset,
                             [](uint32_t offset, const LineMarker& m) { return offset < m.offset; });
  return it == f.markers.begin() ? nullptr : &*(it - 1);
}

LineCol SourceManager::GetLineCol(SourceLoc loc) const {
  LineCol lc = GetPhysicalLineCol(loc);
  if (!loc.IsValid()) return lc;
  if (const LineMarker* m = MarkerFor(loc)) lc.line = m->line + (lc.line - m->physical_line);
  return lc;
}

const std::string& SourceManager::PresumedPath(SourceLoc loc) const {
  const File& f = Get(loc.file);
  // The newest marker that names a file wins.
  auto it = std::upper_bound(f.markers.begin(), f.markers.end(), loc.offset,
                             [](uint32_t offset, const LineMarker& m) { return offset < m.offset; });
  while (it != f.markers.begin()) {
    --it;
    if (!it->path.empty()) return it->path;
  }
  return f.path;
}

std::string SourceManager::Describe(SourceLoc loc) const {
  if (!loc.IsValid()) return "<unknown>";
  LineCol lc = GetLineCol(loc);
  return PresumedPath(loc) + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

void SourceManager::AddLineMarker(FileId file, uint32_t physical_line, uint32_t line,
                                  std::string path) {
  SLOPE_ASSERT(file >= 1 && file <= files_.size());
  File& f = *files_[file - 1];
  uint32_t offset = physical_line >= 1 && physical_line <= f.line_starts.size()
                        ? f.line_starts[physical_line - 1]
                        : static_cast<uint32_t>(f.text.size());
  // A file included twice runs its #line directives twice: the newer marker wins.
  auto it = std::lower_bound(f.markers.begin(), f.markers.end(), offset,
                             [](const LineMarker& m, uint32_t o) { return m.offset < o; });
  LineMarker marker{offset, physical_line, line, std::move(path)};
  if (it != f.markers.end() && it->offset == offset) {
    *it = std::move(marker);
  } else {
    f.markers.insert(it, std::move(marker));
  }
}

std::vector<SourceManager::LineMarkerInfo> SourceManager::LineMarkers(FileId file) const {
  std::vector<LineMarkerInfo> out;
  for (const LineMarker& m : Get(file).markers) out.push_back({m.physical_line, m.line, m.path});
  return out;
}

std::string_view SourceManager::AddScratchText(std::string_view text) {
  constexpr size_t kBlockSize = 64 * 1024;
  if (scratch_.empty() ||
      scratch_.back()->capacity() - scratch_.back()->size() < text.size() + 1) {
    auto block = std::make_unique<std::string>();
    block->reserve(std::max(kBlockSize, text.size() + 1));
    scratch_.push_back(std::move(block));
  }
  std::string& block = *scratch_.back();
  size_t start = block.size();
  block.append(text);
  block.push_back('\0');
  scratch_bytes_ += text.size() + 1;
  return std::string_view(block).substr(start, text.size());
}

}  // namespace slope::source
