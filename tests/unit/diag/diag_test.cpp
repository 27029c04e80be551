#include "compiler/diag/diag.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace slope::diag {
namespace {

class DiagTest : public ::testing::Test {
 protected:
  source::SourceLoc At(uint32_t offset) { return {file_, offset}; }

  source::SourceManager sources_;
  source::FileId file_ = sources_.AddFile("test.slang", "int x = 1;\n\tfloat y = $;\nlast");
  std::ostringstream out_;
};

TEST_F(DiagTest, RendersCodeLocationLineAndCaret) {
  DiagEngine engine(sources_, out_);
  engine.Report(DiagId::UnexpectedCharacter, source::SourceRange(At(22), At(23)), "$");
  EXPECT_EQ(out_.str(),
            "test.slang:2:12: error E1001: unexpected character '$'\n"
            "\tfloat y = $;\n"
            "\t          ^\n");
  EXPECT_EQ(engine.ErrorCount(), 1u);
}

TEST_F(DiagTest, RangeGetsTildes) {
  DiagEngine engine(sources_, out_);
  engine.Report(DiagId::UndeclaredIdentifier, source::SourceRange(At(4), At(9)), "x = 1");
  EXPECT_NE(out_.str().find("\n    ^~~~~\n"), std::string::npos) << out_.str();
}

TEST_F(DiagTest, LongLinesShowThePartAroundTheCaret) {
  // A generated line of megabytes is shown as 240 characters around the caret.
  std::string line = std::string(1000, 'a') + "$$" + std::string(1000, 'b');
  source::FileId file = sources_.AddFile("long.slang", line + "\n");
  DiagEngine engine(sources_, out_);
  engine.Report(DiagId::UnexpectedCharacter, source::SourceRange({file, 1000}, {file, 1002}), "$");
  EXPECT_EQ(out_.str(), "long.slang:1:1001: error E1001: unexpected character '$'\n..." +
                            std::string(120, 'a') + "$$" + std::string(118, 'b') + "...\n" +
                            std::string(123, ' ') + "^~\n");
  out_.str("");
  // At the start of the line, nothing is left out before it.
  engine.Report(DiagId::UnexpectedCharacter, source::SourceRange({file, 0}, {file, 1}), "a");
  EXPECT_EQ(out_.str(), "long.slang:1:1: error E1001: unexpected character 'a'\n" +
                            std::string(240, 'a') + "...\n^\n");
}

TEST_F(DiagTest, NotesFollowTheirDiagnostic) {
  DiagEngine engine(sources_, out_);
  engine.Report(DiagId::Redefinition, At(18), "y").Note(DiagId::PreviousDefinition, At(4), "y");
  std::string text = out_.str();
  size_t error = text.find("test.slang:2:8: error E3002: redefinition of 'y'");
  size_t note = text.find("test.slang:1:5: note N0001: previous definition of 'y' is here");
  ASSERT_NE(error, std::string::npos) << text;
  ASSERT_NE(note, std::string::npos) << text;
  EXPECT_LT(error, note);
  EXPECT_EQ(engine.ErrorCount(), 1u);  // notes are not errors
}

TEST_F(DiagTest, WarningsAreCountedSeparately) {
  DiagEngine engine(sources_, out_);
  engine.Report(DiagId::MissingReturn, At(0), "f");
  EXPECT_EQ(engine.ErrorCount(), 0u);
  EXPECT_EQ(engine.WarningCount(), 1u);
  EXPECT_NE(out_.str().find("warning W3101"), std::string::npos);
}

TEST_F(DiagTest, ErrorLimitStopsAndSaysSo) {
  Options options;
  options.error_limit = 3;
  DiagEngine engine(sources_, out_, options);
  for (int i = 0; i < 10; ++i) engine.Report(DiagId::UnexpectedCharacter, At(21), std::string(1, 'a' + i));
  EXPECT_TRUE(engine.LimitReached());
  std::string text = out_.str();
  size_t count = 0;
  for (size_t p = text.find("E1001"); p != std::string::npos; p = text.find("E1001", p + 1)) ++count;
  EXPECT_EQ(count, 3u);
  EXPECT_NE(text.find("error E0001: too many errors emitted (3); stopping now"), std::string::npos);
}

TEST_F(DiagTest, RepeatedDiagnosticIsShownOnceButCounted) {
  DiagEngine engine(sources_, out_);
  for (int i = 0; i < 3; ++i) engine.Report(DiagId::UnexpectedCharacter, At(21), "$");
  engine.Report(DiagId::UnexpectedCharacter, At(21), "%");  // another message: shown
  engine.Report(DiagId::MissingReturn, At(0), "f");
  engine.Report(DiagId::MissingReturn, At(0), "f");
  std::string text = out_.str();
  size_t count = 0;
  for (size_t p = text.find("E1001"); p != std::string::npos; p = text.find("E1001", p + 1)) ++count;
  EXPECT_EQ(count, 2u);
  // A stage that reports an error again must still see the count grow.
  EXPECT_EQ(engine.ErrorCount(), 4u);
  EXPECT_EQ(engine.WarningCount(), 1u);
}

TEST_F(DiagTest, JsonIsOneObjectPerLine) {
  Options options;
  options.format = Format::Json;
  DiagEngine engine(sources_, out_, options);
  engine.Report(DiagId::Redefinition, source::SourceRange(At(18), At(19)), "y")
      .Note(DiagId::PreviousDefinition, At(4), "y");
  engine.Report(DiagId::MissingReturn, At(26), "f");
  std::istringstream lines(out_.str());
  std::string line;
  std::vector<nlohmann::json> objects;
  while (std::getline(lines, line)) objects.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0]["code"], "E3002");
  EXPECT_EQ(objects[0]["severity"], "error");
  EXPECT_EQ(objects[0]["line"], 2);
  EXPECT_EQ(objects[0]["column"], 8);
  EXPECT_EQ(objects[0]["end_column"], 9);
  EXPECT_EQ(objects[0]["notes"][0]["code"], "N0001");
  EXPECT_EQ(objects[0]["notes"][0]["line"], 1);
  EXPECT_EQ(objects[1]["severity"], "warning");
  EXPECT_EQ(objects[1]["line"], 3);
}

TEST_F(DiagTest, JsonSurvivesInvalidUtf8InMessages) {
  // A message quoting source text (an include path, say) may hold bytes that are not
  // UTF-8; the JSON output replaces them instead of failing.
  Options options;
  options.format = Format::Json;
  DiagEngine engine(sources_, out_, options);
  engine.Report(DiagId::UndeclaredIdentifier, At(18), std::string("bad\xFF\xC3name"));
  nlohmann::json j = nlohmann::json::parse(out_.str());
  EXPECT_EQ(j["code"], "E3001");
  EXPECT_NE(j["message"].get<std::string>().find("bad"), std::string::npos);
}

TEST(DiagTableTest, CodesAreUniquePerSeverity) {
  std::set<std::string> codes;
  for (DiagId id : AllDiagIds()) {
    EXPECT_TRUE(codes.insert(DiagCode(id)).second) << "duplicate code " << DiagCode(id);
    std::string message = GetDiagInfo(id).message;
    EXPECT_FALSE(message.empty());
    EXPECT_NE(message.back(), '.') << DiagCode(id) << " ends with a period";
  }
}

TEST(FormatMessageTest, SubstitutesInOrder) {
  EXPECT_EQ(FormatMessage("{} and {}", {"a", "b"}), "a and b");
  EXPECT_EQ(FormatMessage("{} {}", {"only"}), "only ?");
}

}  // namespace
}  // namespace slope::diag
