// The core library's token table (made at build time) is what the preprocessor gives
// for core.slang now: every token's kind, text, place, literal value and line start.

#include "stdlib/core_tokens.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "compiler/preprocess/preprocessor.h"
#include "stdlib/core_library.h"

namespace slope::stdlib {
namespace {

TEST(CoreTokensTest, TableMatchesThePreprocessor) {
  source::SourceManager sources;
  std::ostringstream messages;
  diag::DiagEngine diags(sources, messages);
  source::FileId fresh_file =
      sources.AddFile(std::string(kCoreLibraryPath), std::string(CoreLibrarySource()));
  std::vector<preprocess::Token> fresh =
      preprocess::Preprocess(sources, fresh_file, preprocess::PreprocessOptions{}, diags);
  ASSERT_FALSE(diags.HasErrors()) << messages.str();

  source::FileId table_file = 0;
  std::vector<preprocess::Token> table = CoreLibraryTokens(sources, &table_file);
  ASSERT_NE(table_file, 0u);
  ASSERT_EQ(table.size(), fresh.size());
  ASSERT_GT(table.size(), 1000u);
  size_t pasted = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    const preprocess::Token& a = fresh[i];
    const preprocess::Token& b = table[i];
    SCOPED_TRACE("token " + std::to_string(i) + " '" + std::string(a.text) + "'");
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.text, b.text);
    EXPECT_EQ(a.loc.offset, b.loc.offset);
    EXPECT_EQ(b.loc.file, table_file);
    EXPECT_EQ(a.literal_type, b.literal_type);
    if (a.kind == preprocess::TokenKind::FloatLiteral) {
      EXPECT_EQ(a.float_value, b.float_value);
    } else {
      EXPECT_EQ(a.int_value, b.int_value);
    }
    EXPECT_EQ(a.at_line_start, b.at_line_start);
    std::string_view core = sources.Text(table_file);
    if (!b.text.empty() &&
        (b.text.data() < core.data() || b.text.data() >= core.data() + core.size())) {
      ++pasted;
    }
  }
  // core.slang builds names with `##` (DiffTensorView's load_fwd, ...).
  EXPECT_GT(pasted, 0u);
  EXPECT_EQ(table.back().kind, preprocess::TokenKind::EndOfFile);
}

}  // namespace
}  // namespace slope::stdlib
