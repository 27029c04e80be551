#include <gtest/gtest.h>

#include <sstream>

#include "compiler/preprocess/lexer.h"

namespace slope::preprocess {
namespace {

struct Lexed {
  std::vector<Token> tokens;
  std::string diags;
  uint32_t errors = 0;
};

Lexed LexText(const std::string& text) {
  source::SourceManager sources;
  source::FileId file = sources.AddFile("t.slang", text);
  std::ostringstream out;
  diag::DiagEngine engine(sources, out);
  Lexed result;
  result.tokens = Lex(sources, file, engine);
  // Token text points into `sources`; copy what the tests look at before it dies.
  for (Token& t : result.tokens) t.text = std::string_view();
  result.diags = out.str();
  result.errors = engine.ErrorCount();
  return result;
}

std::vector<TokenKind> Kinds(const Lexed& l) {
  std::vector<TokenKind> kinds;
  for (const Token& t : l.tokens) kinds.push_back(t.kind);
  return kinds;
}

TEST(LexerTest, PunctuationTakesTheLongestMatch) {
  Lexed l = LexText("a<<=b>>c->d::e&&f||g!=h");
  EXPECT_EQ(Kinds(l), (std::vector<TokenKind>{
                          TokenKind::Identifier, TokenKind::LessLessEqual, TokenKind::Identifier,
                          TokenKind::GreaterGreater, TokenKind::Identifier, TokenKind::Arrow,
                          TokenKind::Identifier, TokenKind::ColonColon, TokenKind::Identifier,
                          TokenKind::AmpAmp, TokenKind::Identifier, TokenKind::PipePipe,
                          TokenKind::Identifier, TokenKind::BangEqual, TokenKind::Identifier,
                          TokenKind::EndOfFile}));
  EXPECT_EQ(l.errors, 0u);
}

TEST(LexerTest, IntegerLiteralsAndSuffixes) {
  Lexed l = LexText("42 0x1F 0b101 7u 4294967295u 0xFFFFFFFF 2147483648");
  ASSERT_EQ(l.tokens.size(), 8u);
  EXPECT_EQ(l.tokens[0].int_value, 42u);
  EXPECT_EQ(l.tokens[0].literal_type, LiteralType::Int);
  EXPECT_EQ(l.tokens[1].int_value, 31u);
  EXPECT_EQ(l.tokens[2].int_value, 5u);
  EXPECT_EQ(l.tokens[3].literal_type, LiteralType::UInt);
  EXPECT_EQ(l.tokens[4].int_value, 4294967295u);
  EXPECT_EQ(l.tokens[5].literal_type, LiteralType::UInt);  // hex may use the sign bit
  EXPECT_EQ(l.tokens[6].int_value, 2147483648u);           // only valid after unary minus
  EXPECT_EQ(l.errors, 0u);
}

TEST(LexerTest, OutOfRangeIntegersAreErrorsNotWrapped) {
  Lexed l = LexText("18446744073709551616u 99999999999999999999 0x10000000000000000");
  EXPECT_EQ(l.errors, 3u) << l.diags;
  EXPECT_NE(l.diags.find("E1004"), std::string::npos);
}

TEST(LexerTest, WideIntegersTakeSixtyFourBitTypes) {
  // As Slang types them: a decimal literal too wide for int is an int64_t, a `u` one
  // too wide for uint a uint64_t; hexadecimal ones use uint first.
  Lexed l = LexText("3000000000 4294967296u 0xFFFFFFFF 0x100000000 2147483647");
  ASSERT_EQ(l.tokens.size(), 6u);
  EXPECT_EQ(l.tokens[0].literal_type, LiteralType::Int64);
  EXPECT_EQ(l.tokens[0].int_value, 3000000000u);
  EXPECT_EQ(l.tokens[1].literal_type, LiteralType::UInt64);
  EXPECT_EQ(l.tokens[2].literal_type, LiteralType::UInt);
  EXPECT_EQ(l.tokens[3].literal_type, LiteralType::Int64);
  EXPECT_EQ(l.tokens[4].literal_type, LiteralType::Int);
  EXPECT_EQ(l.errors, 0u);
}

TEST(LexerTest, FloatLiterals) {
  Lexed l = LexText("1.5 .25 3. 1e3 2.5f 1.0h 1.0l");
  ASSERT_EQ(l.tokens.size(), 8u);
  EXPECT_DOUBLE_EQ(l.tokens[0].float_value, 1.5);
  EXPECT_DOUBLE_EQ(l.tokens[1].float_value, 0.25);
  EXPECT_DOUBLE_EQ(l.tokens[2].float_value, 3.0);
  EXPECT_DOUBLE_EQ(l.tokens[3].float_value, 1000.0);
  EXPECT_EQ(l.tokens[4].literal_type, LiteralType::Float);
  EXPECT_EQ(l.tokens[5].literal_type, LiteralType::Half);
  EXPECT_EQ(l.tokens[6].literal_type, LiteralType::Double);
  EXPECT_EQ(l.errors, 0u);
}

TEST(LexerTest, FloatsOutOfRangeAreErrorsNotInfOrZero) {
  EXPECT_EQ(LexText("1e39").errors, 1u);
  EXPECT_EQ(LexText("1e-50").errors, 1u);   // would round to 0 in float
  EXPECT_EQ(LexText("70000.0h").errors, 1u);
  EXPECT_EQ(LexText("1e39l").errors, 0u);   // fine as a double
  EXPECT_EQ(LexText("0.0 0e10").errors, 0u);
}

TEST(LexerTest, BadSuffixIsAnError) {
  Lexed l = LexText("12abc");
  EXPECT_EQ(l.errors, 1u);
  EXPECT_NE(l.diags.find("E1006: invalid numeric literal '12abc'"), std::string::npos) << l.diags;
}

TEST(LexerTest, CommentsAndLineStarts) {
  Lexed l = LexText("a // c\n/* x\n y */ b");
  ASSERT_EQ(l.tokens.size(), 3u);
  EXPECT_TRUE(l.tokens[0].at_line_start);
  EXPECT_TRUE(l.tokens[1].at_line_start);
  EXPECT_EQ(l.tokens[1].loc.offset, 18u);
}

TEST(LexerTest, UnterminatedCommentAndString) {
  EXPECT_NE(LexText("a /* never closed").diags.find("E1002"), std::string::npos);
  EXPECT_NE(LexText("\"open\nx").diags.find("E1003"), std::string::npos);
}

TEST(LexerTest, InvalidBytesAreReportedWithTheirOffset) {
  Lexed l = LexText(std::string("a \xFF b", 5));
  EXPECT_EQ(l.errors, 1u);
  EXPECT_NE(l.diags.find("t.slang:1:3: error E1007: invalid UTF-8 byte 0xFF"), std::string::npos)
      << l.diags;
  Lexed nul = LexText(std::string("a \0 b", 5));
  EXPECT_NE(nul.diags.find("unexpected character '\\x00'"), std::string::npos) << nul.diags;
  Lexed in_comment = LexText("// caf\xC3\xA9 ok\n// bad \xC3(\n");
  EXPECT_EQ(in_comment.errors, 1u) << in_comment.diags;
}

TEST(LexerTest, ByteOrderMarkIsSkipped) {
  Lexed l = LexText("\xEF\xBB\xBFint");
  ASSERT_EQ(l.tokens.size(), 2u);
  EXPECT_EQ(l.tokens[0].kind, TokenKind::Identifier);
  EXPECT_EQ(l.errors, 0u);
}

}  // namespace
}  // namespace slope::preprocess
