// Build step: preprocesses core.slang and writes its tokens as a table of
// detail::CoreTokenRecord (core_tokens_data.h), so that no compile preprocesses the core
// library again.
//
// Usage: slope_core_tokens_gen CORE_SLANG OUTPUT_CPP

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/preprocess/preprocessor.h"
#include "compiler/source/source_manager.h"
#include "stdlib/core_library.h"

namespace {

std::string CEscaped(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\%03o", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace slope;
  if (argc != 3) {
    std::cerr << "usage: slope_core_tokens_gen CORE_SLANG OUTPUT_CPP\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) {
    std::cerr << "slope_core_tokens_gen: cannot read " << argv[1] << "\n";
    return 1;
  }
  const std::string text = buffer.str();
  source::SourceManager sources;
  std::ostringstream messages;
  diag::DiagEngine diags(sources, messages);
  source::FileId core = sources.AddFile(std::string(stdlib::kCoreLibraryPath), text);
  std::vector<preprocess::Token> tokens =
      preprocess::Preprocess(sources, core, preprocess::PreprocessOptions{}, diags);
  if (diags.HasErrors()) {
    std::cerr << "slope_core_tokens_gen: the core library does not preprocess:\n" << messages.str();
    return 1;
  }
  const std::string_view core_text = sources.Text(core);
  std::string extra;
  std::ostringstream table;
  for (const preprocess::Token& t : tokens) {
    if (t.loc.file != core && t.kind != preprocess::TokenKind::EndOfFile) {
      std::cerr << "slope_core_tokens_gen: a token outside core.slang at offset " << t.loc.offset
                << "\n";
      return 1;
    }
    uint8_t flags = t.at_line_start ? 1 : 0;
    size_t text_offset = 0;
    const char* begin = t.text.data();
    if (!t.text.empty() && begin >= core_text.data() &&
        begin + t.text.size() <= core_text.data() + core_text.size()) {
      text_offset = static_cast<size_t>(begin - core_text.data());
    } else if (!t.text.empty()) {
      flags |= 2;
      text_offset = extra.size();
      extra += t.text;
    }
    // One member of the token's value union is meaningful, as its kind says.
    const bool is_float = t.kind == preprocess::TokenKind::FloatLiteral;
    char line[160];
    std::snprintf(line, sizeof(line), "{%u,%u,%u,%" PRIu32 ",%zu,%zu,UINT64_C(%" PRIu64 "),%a},\n",
                  static_cast<unsigned>(t.kind), static_cast<unsigned>(t.literal_type),
                  static_cast<unsigned>(flags), t.loc.offset, text_offset, t.text.size(),
                  is_float ? uint64_t{0} : t.int_value, is_float ? t.float_value : 0.0);
    table << line;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from stdlib/core.slang by slope_core_tokens_gen; do not edit.\n"
      << "#include \"stdlib/core_tokens_data.h\"\n\n"
      << "namespace slope::stdlib::detail {\n\n"
      << "const CoreTokenRecord kCoreTokens[] = {\n"
      << table.str() << "};\n"
      << "const size_t kCoreTokenCount = " << tokens.size() << ";\n"
      << "const char kCoreExtraText[] = \"" << CEscaped(extra) << "\";\n"
      << "const size_t kCoreExtraTextSize = " << extra.size() << ";\n"
      << "const size_t kCoreSourceSize = " << text.size() << ";\n\n"
      << "}  // namespace slope::stdlib::detail\n";
  if (!out) {
    std::cerr << "slope_core_tokens_gen: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
