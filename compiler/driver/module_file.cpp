#include "compiler/driver/module_file.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <system_error>

namespace slope::driver {
namespace fs = std::filesystem;

namespace {

// Layout (little-endian): "SLOPEMOD", u32 format, u64 token-table key, u64 options key,
// u32 part count, then each part:
//   str path, u32 language version,
//   u32 n, n x (str path, u64 hash)                  the files it read
//   u32 n, n x text                                   the files its tokens come from:
//       str path, str contents, u32 m, m x (u32 physical line, u32 line, str path),
//       u32 k, k x (u32 offset, u8 action, u32 j, j x i32 number)   #pragma warning
//   u32 n, n x token:
//       u8 kind, u8 literal type, u8 at line start, u32 file (~0: none), u32 offset,
//       u64 value, u8 text form: 0 = u32 text index, u32 offset, u32 length into a
//       file's contents; 1 = str text
// where str is u32 length + bytes.
constexpr char kMagic[8] = {'S', 'L', 'O', 'P', 'E', 'M', 'O', 'D'};
constexpr uint32_t kFormat = 1;
constexpr uint32_t kNoFile = ~uint32_t{0};
constexpr uint32_t kTokenKinds = 0
#define TOKEN(name, spelling) +1
#include "compiler/preprocess/tokens.def"
#undef TOKEN
    ;

uint64_t Fnv1a(std::string_view bytes, uint64_t hash = 14695981039346656037ull) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

/// The token kinds and their spellings: a module file made by a compiler whose token
/// table differs cannot be read by this one.
uint64_t TokenTableKey() {
  static const uint64_t key = [] {
    uint64_t h = Fnv1a("tokens");
#define TOKEN(name, spelling) h = Fnv1a(#name "\n" spelling "\n", h);
#include "compiler/preprocess/tokens.def"
#undef TOKEN
    return h;
  }();
  return key;
}

std::optional<std::string> ReadWholeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// `path` relative to `dir` (both made absolute first), '/'-separated.
std::string Relative(const std::string& path, const fs::path& dir) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  fs::path rel = abs.lexically_relative(dir);
  return (rel.empty() ? abs : rel).generic_string();
}

fs::path ModuleDir(const std::string& module_path) {
  std::error_code ec;
  fs::path abs = fs::absolute(module_path, ec);
  return fs::weakly_canonical(abs.parent_path(), ec);
}

class Writer {
 public:
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) U8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void Raw(const char* p, size_t n) { out_.append(p, n); }
  std::string& Bytes() { return out_; }

 private:
  std::string out_;
};

/// Reads what Writer wrote; any read past the end sets `failed` and returns zeros.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : in_(bytes) {}
  bool failed = false;
  uint8_t U8() {
    if (!Need(1)) return 0;
    return static_cast<uint8_t>(in_[at_++]);
  }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(U8()) << (8 * i);
    return v;
  }
  uint64_t U64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(U8()) << (8 * i);
    return v;
  }
  std::string_view Str() {
    uint32_t n = U32();
    if (!Need(n)) return {};
    std::string_view s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  /// A count of items each at least `item_bytes` long: more than the bytes left is a
  /// corrupt file (and must not size an allocation).
  uint32_t Count(size_t item_bytes) {
    uint32_t n = U32();
    if (static_cast<uint64_t>(n) * item_bytes > in_.size() - at_) {
      failed = true;
      return 0;
    }
    return n;
  }
  bool AtEnd() const { return at_ == in_.size(); }

 private:
  bool Need(size_t n) {
    if (failed || n > in_.size() - at_) {
      failed = true;
      return false;
    }
    return true;
  }
  std::string_view in_;
  size_t at_ = 0;
};

}  // namespace

uint64_t ModuleOptionsKey(const preprocess::PreprocessOptions& options) {
  uint64_t h = Fnv1a("options");
  for (const std::string& d : options.defines) h = Fnv1a(d + '\0', h);
  return Fnv1a("std=" + std::to_string(options.language_version), h);
}

bool SerializeModuleFile(const std::vector<ModulePart>& parts, const std::string& module_path,
                         const source::SourceManager& sources, const diag::DiagEngine& diags,
                         uint64_t options_key, std::string* bytes, std::string* error) {
  const fs::path dir = ModuleDir(module_path);
  Writer w;
  w.Raw(kMagic, sizeof(kMagic));
  w.U32(kFormat);
  w.U64(TokenTableKey());
  w.U64(options_key);
  w.U32(static_cast<uint32_t>(parts.size()));
  for (const ModulePart& part : parts) {
    w.Str(Relative(part.path, dir));
    w.U32(static_cast<uint32_t>(part.language_version));
    w.U32(static_cast<uint32_t>(part.files_read.size()));
    for (const std::string& path : part.files_read) {
      std::optional<std::string> text = ReadWholeFile(path);
      if (!text) {
        *error = "cannot read '" + path + "' again to record it";
        return false;
      }
      w.Str(Relative(path, dir));
      w.U64(Fnv1a(*text));
    }
    // The files the tokens come from, numbered in order of first use.
    std::map<source::FileId, uint32_t> numbers;
    std::vector<source::FileId> files;
    for (const preprocess::Token& t : part.tokens) {
      if (t.loc.IsValid() && numbers.emplace(t.loc.file, files.size()).second) {
        files.push_back(t.loc.file);
      }
    }
    w.U32(static_cast<uint32_t>(files.size()));
    for (source::FileId f : files) {
      w.Str(Relative(sources.Path(f), dir));
      w.Str(sources.Text(f));
      std::vector<source::SourceManager::LineMarkerInfo> markers = sources.LineMarkers(f);
      w.U32(static_cast<uint32_t>(markers.size()));
      for (const auto& m : markers) {
        w.U32(m.physical_line);
        w.U32(m.line);
        w.Str(m.path);
      }
      std::vector<diag::WarningPragma> pragmas = diags.WarningPragmas(f);
      w.U32(static_cast<uint32_t>(pragmas.size()));
      for (const diag::WarningPragma& p : pragmas) {
        w.U32(p.at.offset);
        w.U8(static_cast<uint8_t>(p.action));
        w.U32(static_cast<uint32_t>(p.numbers.size()));
        for (int n : p.numbers) w.U32(static_cast<uint32_t>(n));
      }
    }
    w.U32(static_cast<uint32_t>(part.tokens.size()));
    for (const preprocess::Token& t : part.tokens) {
      w.U8(static_cast<uint8_t>(t.kind));
      w.U8(static_cast<uint8_t>(t.literal_type));
      w.U8(t.at_line_start ? 1 : 0);
      w.U32(t.loc.IsValid() ? numbers.at(t.loc.file) : kNoFile);
      w.U32(t.loc.offset);
      w.U64(t.int_value);
      // The text, where it lies in one of the files, by place; else spelled out.
      std::optional<std::pair<uint32_t, uint32_t>> place;
      for (uint32_t i = 0; i < files.size() && !place && !t.text.empty(); ++i) {
        std::string_view text = sources.Text(files[i]);
        if (t.text.data() >= text.data() &&
            t.text.data() + t.text.size() <= text.data() + text.size()) {
          place.emplace(i, static_cast<uint32_t>(t.text.data() - text.data()));
        }
      }
      if (place) {
        w.U8(0);
        w.U32(place->first);
        w.U32(place->second);
        w.U32(static_cast<uint32_t>(t.text.size()));
      } else {
        w.U8(1);
        w.Str(t.text);
      }
    }
  }
  *bytes = std::move(w.Bytes());
  return true;
}

LoadedModuleFile ReadModuleFile(const std::string& module_path, uint64_t options_key,
                                source::SourceManager& sources, diag::DiagEngine& diags) {
  LoadedModuleFile out;
  std::optional<std::string> bytes = ReadWholeFile(module_path);
  if (!bytes) {
    out.why = "it cannot be read";
    return out;
  }
  Reader r(*bytes);
  auto corrupt = [&](const char* what) {
    out.status = ModuleFileStatus::Corrupt;
    out.why = std::string("it is not a Slope module file (") + what + ")";
    out.parts.clear();
    return out;
  };
  if (bytes->size() < sizeof(kMagic) || std::memcmp(bytes->data(), kMagic, sizeof(kMagic)) != 0) {
    return corrupt("no module file header");
  }
  for (size_t i = 0; i < sizeof(kMagic); ++i) r.U8();
  uint32_t format = r.U32();
  uint64_t tokens_key = r.U64();
  uint64_t key = r.U64();
  if (r.failed) return corrupt("cut short");
  if (format != kFormat || tokens_key != TokenTableKey()) {
    out.status = ModuleFileStatus::Mismatch;
    out.why = "it was written by another version of the compiler";
    return out;
  }
  if (key != options_key) {
    out.status = ModuleFileStatus::Mismatch;
    out.why = "it was written with other -D or -std options";
    return out;
  }
  const fs::path dir = ModuleDir(module_path);
  auto resolve = [&](std::string_view rel) {
    fs::path p(rel);
    return (p.is_absolute() ? p : dir / p).lexically_normal().string();
  };

  // What the parts hold, read completely before anything is added to `sources`.
  struct Text {
    std::string path;
    std::string_view contents;
    std::vector<source::SourceManager::LineMarkerInfo> markers;
    std::vector<diag::WarningPragma> pragmas;
  };
  struct RawToken {
    preprocess::Token token;  // loc.file: a text index + 1 (0: none); text below
    uint32_t text_file = kNoFile;
    uint32_t text_offset = 0;
    std::string_view spelled;
  };
  struct RawPart {
    ModulePart part;
    std::vector<Text> texts;
    std::vector<RawToken> tokens;
  };
  std::vector<RawPart> raw(r.Count(4));
  for (RawPart& rp : raw) {
    rp.part.path = resolve(r.Str());
    rp.part.language_version = static_cast<int>(r.U32());
    uint32_t read = r.Count(12);
    for (uint32_t i = 0; i < read && !r.failed; ++i) {
      std::string path = resolve(r.Str());
      uint64_t hash = r.U64();
      std::error_code ec;
      if (fs::exists(path, ec)) {
        std::optional<std::string> now = ReadWholeFile(path);
        if (!now || Fnv1a(*now) != hash) {
          out.status = ModuleFileStatus::Stale;
          out.why = "'" + path + "' has changed since it was written";
          return out;
        }
      }
      rp.part.files_read.push_back(path);
    }
    rp.texts.resize(r.Count(16));
    for (Text& text : rp.texts) {
      text.path = resolve(r.Str());
      text.contents = r.Str();
      uint32_t markers = r.Count(12);
      for (uint32_t i = 0; i < markers && !r.failed; ++i) {
        uint32_t physical = r.U32();
        uint32_t line = r.U32();
        text.markers.push_back({physical, line, std::string(r.Str())});
      }
      uint32_t pragmas = r.Count(9);
      for (uint32_t i = 0; i < pragmas && !r.failed; ++i) {
        diag::WarningPragma p;
        p.at.offset = r.U32();
        uint8_t action = r.U8();
        if (action > static_cast<uint8_t>(diag::WarningPragma::Action::Pop))
          return corrupt("a bad pragma");
        p.action = static_cast<diag::WarningPragma::Action>(action);
        uint32_t numbers = r.Count(4);
        for (uint32_t j = 0; j < numbers; ++j) p.numbers.push_back(static_cast<int>(r.U32()));
        text.pragmas.push_back(std::move(p));
      }
    }
    uint32_t tokens = r.Count(20);
    rp.tokens.resize(tokens);
    for (RawToken& rt : rp.tokens) {
      preprocess::Token& t = rt.token;
      uint8_t kind = r.U8();
      uint8_t literal = r.U8();
      if (kind >= kTokenKinds || literal > static_cast<uint8_t>(preprocess::LiteralType::Double)) {
        return corrupt("a bad token");
      }
      t.kind = static_cast<preprocess::TokenKind>(kind);
      t.literal_type = static_cast<preprocess::LiteralType>(literal);
      t.at_line_start = r.U8() != 0;
      uint32_t file = r.U32();
      t.loc.offset = r.U32();
      t.int_value = r.U64();
      if (file != kNoFile) {
        if (file >= rp.texts.size() || t.loc.offset > rp.texts[file].contents.size()) {
          return corrupt("a token outside its file");
        }
        t.loc.file = file + 1;
      }
      if (r.U8() == 0) {
        rt.text_file = r.U32();
        rt.text_offset = r.U32();
        uint32_t length = r.U32();
        if (rt.text_file >= rp.texts.size() ||
            rt.text_offset > rp.texts[rt.text_file].contents.size() ||
            length > rp.texts[rt.text_file].contents.size() - rt.text_offset) {
          return corrupt("a token's text outside its file");
        }
        rt.spelled =
            std::string_view(rp.texts[rt.text_file].contents).substr(rt.text_offset, length);
      } else {
        rt.spelled = r.Str();
      }
      if (r.failed) break;
    }
    if (r.failed) return corrupt("cut short");
    if (rp.tokens.empty() || rp.tokens.back().token.kind != preprocess::TokenKind::EndOfFile) {
      return corrupt("a part without its end");
    }
  }
  if (r.failed || raw.empty()) return corrupt("cut short");
  if (!r.AtEnd()) return corrupt("bytes after its end");

  // Valid: the texts become files of `sources`, the tokens point into them.
  // The part's own file is added first: the files after it, up to the next part or
  // module, are the part's (access control tells modules apart by file numbers).
  for (RawPart& rp : raw) {
    std::vector<source::FileId> ids(rp.texts.size(), 0);
    std::vector<size_t> order;
    for (size_t i = 0; i < rp.texts.size(); ++i) {
      if (rp.texts[i].path == rp.part.path)
        order.insert(order.begin(), i);
      else
        order.push_back(i);
    }
    if (order.empty() || rp.texts[order.front()].path != rp.part.path) {
      rp.part.file = sources.AddFile(rp.part.path, "");
    }
    for (size_t i : order) {
      Text& text = rp.texts[i];
      source::FileId id = sources.AddFile(text.path, std::string(text.contents));
      for (auto& m : text.markers) sources.AddLineMarker(id, m.physical_line, m.line, m.path);
      for (diag::WarningPragma& p : text.pragmas) {
        p.at.file = id;
        diags.AddWarningPragma(std::move(p));
      }
      ids[i] = id;
      if (rp.part.file == 0) rp.part.file = id;
    }
    rp.part.tokens.reserve(rp.tokens.size());
    for (RawToken& rt : rp.tokens) {
      preprocess::Token t = rt.token;
      if (t.loc.file != 0) t.loc.file = ids[t.loc.file - 1];
      if (rt.text_file != kNoFile) {
        t.text = sources.Text(ids[rt.text_file]).substr(rt.text_offset, rt.spelled.size());
      } else if (!rt.spelled.empty()) {
        t.text = sources.AddScratchText(rt.spelled);
      }
      rp.part.tokens.push_back(t);
    }
    out.parts.push_back(std::move(rp.part));
  }
  out.status = ModuleFileStatus::Valid;
  return out;
}

}  // namespace slope::driver
