#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/preprocess/preprocessor.h"

namespace slope::preprocess {
namespace {

/// One preprocessor run over in-memory text; the SourceManager lives as long as this.
struct PpRun {
  source::SourceManager sources;
  std::ostringstream diag_text;
  diag::DiagEngine diags{sources, diag_text};
  std::vector<Token> tokens;
  PreprocessResult result;

  explicit PpRun(const std::string& text, PreprocessOptions options = {},
               const std::string& path = "t.slang") {
    source::FileId file = sources.AddFile(path, text);
    tokens = Preprocess(sources, file, options, diags, &result);
  }

  /// The spellings of the output tokens, space separated (without EndOfFile).
  std::string Spelled() const {
    std::string out;
    for (const Token& t : tokens) {
      if (t.Is(TokenKind::EndOfFile)) break;
      if (!out.empty()) out += ' ';
      out += t.text;
    }
    return out;
  }
};

TEST(PreprocessorTest, ObjectAndFunctionLikeMacros) {
  PpRun r("#define N 4\n#define SQ(x) ((x) * (x))\nSQ(N + 1) N\n");
  EXPECT_EQ(r.Spelled(), "( ( 4 + 1 ) * ( 4 + 1 ) ) 4");
  EXPECT_EQ(r.diags.ErrorCount(), 0u);
}

TEST(PreprocessorTest, ExpandedTokensCarryTheUseLocation) {
  PpRun r("#define ONE 1\nint x = ONE;\n");
  ASSERT_EQ(r.tokens.size(), 6u);  // int x = 1 ; EOF
  EXPECT_EQ(r.tokens[3].text, "1");
  EXPECT_EQ(r.tokens[3].int_value, 1u);
  source::LineCol lc = r.sources.GetLineCol(r.tokens[3].loc);
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 9u);
}

TEST(PreprocessorTest, StringizeAndPaste) {
  PpRun r("#define S(x) #x\n#define P(a, b) a ## b\nS(a  +\"q\") P(x, 1) P(1, 2) P(, y) P(z, )\n");
  EXPECT_EQ(r.Spelled(), "\"a +\\\"q\\\"\" x1 12 y z");
  ASSERT_GE(r.tokens.size(), 3u);
  EXPECT_EQ(r.tokens[1].kind, TokenKind::Identifier);  // x1 is one identifier
  EXPECT_EQ(r.tokens[2].kind, TokenKind::IntLiteral);
  EXPECT_EQ(r.tokens[2].int_value, 12u);
}

TEST(PreprocessorTest, VariadicMacros) {
  PpRun r("#define V(f, ...) f(__VA_ARGS__)\n#define G(f, ...) f(0, ## __VA_ARGS__)\n"
        "V(a, 1, 2) V(b) G(c) G(d, 3)\n");
  EXPECT_EQ(r.Spelled(), "a ( 1 , 2 ) b ( ) c ( 0 ) d ( 0 , 3 )");
  EXPECT_EQ(r.diags.ErrorCount(), 0u);
}

TEST(PreprocessorTest, NoRecursiveSelfExpansion) {
  PpRun r("#define x x + 1\n#define a b\n#define b a\nx a\n");
  EXPECT_EQ(r.Spelled(), "x + 1 a");
}

TEST(PreprocessorTest, ArgumentsAreExpandedBeforeSubstitutionButNotForPaste) {
  PpRun r("#define N 7\n#define ID(x) x\n#define CAT(a, b) a ## b\nID(N) CAT(N, 1)\n");
  EXPECT_EQ(r.Spelled(), "7 N1");
}

TEST(PreprocessorTest, FunctionLikeNameWithoutParensIsKept) {
  PpRun r("#define F(x) x\nF + F(2)\n");
  EXPECT_EQ(r.Spelled(), "F + 2");
}

TEST(PreprocessorTest, CommandLineDefines) {
  PreprocessOptions options;
  options.defines = {"A", "B=2", "F(x)=x*x"};
  PpRun r("A B F(3)\n", options);
  EXPECT_EQ(r.Spelled(), "1 2 3 * 3");
}

TEST(PreprocessorTest, ConditionalBranches) {
  PpRun r("#define A 2\n#if A == 1\none\n#elif A == 2\ntwo\n#else\nother\n#endif\n"
        "#ifdef A\nyes\n#endif\n#ifndef A\nno\n#endif\n#if 0\n#if 1\nnested\n#endif\n#else\nelse\n#endif\n");
  EXPECT_EQ(r.Spelled(), "two yes else");
  EXPECT_EQ(r.diags.ErrorCount(), 0u);
}

TEST(PreprocessorTest, SkippedBlocksAreNotDiagnosed) {
  PpRun r("#if 0\nit's $ \"open\n#bogus\n#endif\nok\n");
  EXPECT_EQ(r.Spelled(), "ok");
  EXPECT_EQ(r.diags.ErrorCount(), 0u) << r.diag_text.str();
}

/// Evaluates `expr` as a #if condition; -1 when it reported an error.
int EvalIf(const std::string& expr) {
  PpRun r("#if " + expr + "\nT\n#else\nF\n#endif\n");
  if (r.diags.ErrorCount() > 0) return -1;
  return r.Spelled() == "T" ? 1 : 0;
}

TEST(PreprocessorTest, IfExpressionArithmetic) {
  EXPECT_EQ(EvalIf("1 + 2 * 3 == 7"), 1);
  EXPECT_EQ(EvalIf("(1 + 2) * 3 == 9"), 1);
  EXPECT_EQ(EvalIf("-7 / 2 == -3 && -7 % 2 == -1"), 1);
  EXPECT_EQ(EvalIf("-1 < 0"), 1);
  EXPECT_EQ(EvalIf("-1 < 0u"), 0);  // -1 converts to the largest unsigned value
  EXPECT_EQ(EvalIf("(1 << 63) < 0"), 1);
  EXPECT_EQ(EvalIf("(-8 >> 1) == -4"), 1);
  EXPECT_EQ(EvalIf("(1 << 64) == 0"), 1);  // over-long shifts give 0, not UB
  EXPECT_EQ(EvalIf("(5 & 3) == 1 && (5 | 3) == 7 && (5 ^ 3) == 6 && ~0 == -1"), 1);
  EXPECT_EQ(EvalIf("1 ? 2 : 3 == 2"), 1);
  EXPECT_EQ(EvalIf("0 ? 1 : 0 ? 2 : 3"), 1);
  EXPECT_EQ(EvalIf("!1 || !!2 == 1"), 1);
  EXPECT_EQ(EvalIf("undefined_name == 0 && true"), 1);
  EXPECT_EQ(EvalIf("0x10 == 16 && 0b101 == 5"), 1);
  EXPECT_EQ(EvalIf("(-9223372036854775807ll - 1) / -1 < 0"), 1);  // wraps, no trap
}

TEST(PreprocessorTest, IfExpressionErrors) {
  EXPECT_EQ(EvalIf("1 / 0"), -1);
  EXPECT_EQ(EvalIf("1 % (2 - 2)"), -1);
  EXPECT_EQ(EvalIf("0 && 1 / 0"), 0);
  EXPECT_EQ(EvalIf("1 || 1 / 0"), 1);
  EXPECT_EQ(EvalIf("0 ? 1 / 0 : 1"), 1);
  EXPECT_EQ(EvalIf("(1"), -1);
  EXPECT_EQ(EvalIf(""), -1);
  EXPECT_EQ(EvalIf("1 +"), -1);
}

TEST(PreprocessorTest, DefinedOperator) {
  EXPECT_EQ(EvalIf("defined(__LINE__) && defined __FILE__ && !defined(NOPE)"), 1);
  PpRun r("#define X\n#if defined X && defined(X)\nyes\n#endif\n");
  EXPECT_EQ(r.Spelled(), "yes");
}

TEST(PreprocessorTest, LineAndFileBuiltinsFollowLineDirectives) {
  PpRun r("__LINE__\n#line 40 \"other.slang\"\n__LINE__ __FILE__\n__LINE__\n");
  EXPECT_EQ(r.Spelled(), "1 40 \"other.slang\" 41");
  EXPECT_EQ(r.tokens[0].int_value, 1u);
  EXPECT_EQ(r.tokens[1].int_value, 40u);
}

TEST(SourceManagerTest, LineMarkersMapLinesAndPaths) {
  source::SourceManager sources;
  source::FileId file = sources.AddFile("real.slang", "a\nb\nc\nd\n");
  sources.AddLineMarker(file, 3, 100, "virtual.slang");
  source::SourceLoc b{file, 2};  // line 2, before the marker
  source::SourceLoc d{file, 6};  // line 4
  EXPECT_EQ(sources.GetLineCol(b).line, 2u);
  EXPECT_EQ(sources.PresumedPath(b), "real.slang");
  EXPECT_EQ(sources.GetLineCol(d).line, 101u);
  EXPECT_EQ(sources.GetPhysicalLineCol(d).line, 4u);
  EXPECT_EQ(sources.PresumedPath(d), "virtual.slang");
  EXPECT_EQ(sources.Describe(d), "virtual.slang:101:1");
  EXPECT_EQ(sources.GetLineText(d), "d");
  // A later marker without a name keeps the name of the earlier one.
  sources.AddLineMarker(file, 4, 7, "");
  EXPECT_EQ(sources.Describe(d), "virtual.slang:7:1");
}

TEST(SourceManagerTest, ScratchTextStaysValidAndApart) {
  source::SourceManager sources;
  std::string_view first = sources.AddScratchText("abc");
  std::vector<std::string_view> more;
  for (int i = 0; i < 10000; ++i) more.push_back(sources.AddScratchText("0123456789abcdef"));
  EXPECT_EQ(first, "abc");
  EXPECT_EQ(more.front(), "0123456789abcdef");
  EXPECT_NE(first.data() + first.size(), more.front().data());  // never adjacent
}

class IncludeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("slope_pp_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "lib");
    std::filesystem::create_directories(dir_ / "src");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ / rel) << text;
  }
  std::filesystem::path dir_;
};

TEST_F(IncludeTest, QuotedSearchesIncluderFirstThenIncludePaths) {
  Write("src/local.h", "local\n");
  Write("lib/local.h", "wrong\n");
  Write("lib/lib.h", "#pragma once\nlib\n");
  PreprocessOptions options;
  options.include_paths = {(dir_ / "lib").string()};
  PpRun r("#include \"local.h\"\n#include \"lib.h\"\n#include <lib.h>\n#include <local.h>\n", options,
        (dir_ / "src" / "main.slang").string());
  EXPECT_EQ(r.Spelled(), "local lib wrong");
  EXPECT_EQ(r.diags.ErrorCount(), 0u) << r.diag_text.str();
  ASSERT_EQ(r.result.included_files.size(), 3u);
  EXPECT_EQ(std::filesystem::path(r.result.included_files[0]).filename(), "local.h");
  EXPECT_EQ(std::filesystem::path(r.result.included_files[1]).filename(), "lib.h");
}

TEST_F(IncludeTest, GuardsAndMissingFiles) {
  Write("src/g.h", "#ifndef G\n#define G\ng\n#endif\n");
  PpRun r("#include \"g.h\"\n#include \"g.h\"\n#include \"missing.h\"\nend\n", {},
        (dir_ / "src" / "main.slang").string());
  EXPECT_EQ(r.Spelled(), "g end");
  EXPECT_EQ(r.diags.ErrorCount(), 1u);
  EXPECT_NE(r.diag_text.str().find("E1102"), std::string::npos);
}

TEST_F(IncludeTest, SelfIncludeStopsAtTheDepthLimit) {
  Write("src/self.h", "#include \"self.h\"\n#include \"self.h\"\n");
  PpRun r("#include \"self.h\"\n", {}, (dir_ / "src" / "main.slang").string());
  EXPECT_EQ(r.diags.ErrorCount(), 1u);
  EXPECT_NE(r.diag_text.str().find("E1105"), std::string::npos);
  EXPECT_EQ(r.tokens.size(), 1u);  // only EndOfFile after a fatal error
}

TEST(PrintTokensTest, KeepsLinesAndMarksJumps) {
  PpRun r("#define TWO 1 + 1\nint a = TWO;\n\n\nint b;\n#line 50 \"x.slang\"\nint c;\n");
  EXPECT_EQ(PrintTokens(r.tokens, r.sources),
            "#line 2 \"t.slang\"\nint a = 1 + 1 ;\n\n\nint b;\n#line 50 \"x.slang\"\nint c;\n");
}

}  // namespace
}  // namespace slope::preprocess
