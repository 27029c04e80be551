// The IR text parser: round trips of hand-built modules, forward references, special
// constants, and malformed text (every prefix and many one-character edits of a valid
// module) reported as diagnostics, never a crash.

#include <gtest/gtest.h>

#include <sstream>

#include "compiler/diag/diag.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"

namespace slope::ir {
namespace {

/// Parses `text`; `errors` receives the rendered diagnostics.
std::unique_ptr<Module> Parse(const std::string& text, std::string* errors = nullptr) {
  source::SourceManager sources;
  std::ostringstream out;
  diag::DiagEngine diags(sources, out);
  source::FileId file = sources.AddFile("test.ir", text);
  std::unique_ptr<Module> m = ParseModule(file, diags);
  if (errors != nullptr) *errors = out.str();
  EXPECT_EQ(m == nullptr, diags.HasErrors()) << out.str();
  return m;
}

/// A loop carrying two values through header parameters, with a break whose cond_br
/// passes an argument to the exit block.
void BuildLoop(Module& m) {
  Builder b(m);
  const Type* i32 = m.Types().Int(32, true);
  Function* f = m.AddFunction("count", i32);
  Param* n = m.AddParam(i32, nullptr);
  f->params.push_back(n);
  Block* entry = m.AddBlock(f);
  Block* header = m.AddBlock(f);
  Block* test = m.AddBlock(f);
  Block* cont = m.AddBlock(f);
  Block* exit = m.AddBlock(f);
  f->blocks = {entry, header, test, cont, exit};
  Param* i = m.AddParam(i32, header);
  Param* acc = m.AddParam(i32, header);
  header->params = {i, acc};
  Param* result = m.AddParam(i32, exit);
  exit->params = {result};
  b.SetInsertBlock(entry);
  b.Br(header, {m.ConstInt(i32, 0), m.ConstInt(i32, -5)});
  b.SetInsertBlock(header);
  b.Loop(test, exit, cont);
  b.SetInsertBlock(test);
  Value* more = b.Compare(Op::Lt, i, n);
  Inst* exit_test = b.CondBr(more, cont, exit);
  exit_test->operands.push_back(acc);  // the argument of the false edge
  b.SetInsertBlock(cont);
  Value* next = b.Binary(Op::Add, i, m.ConstInt(i32, 1));
  Value* sum = b.Binary(Op::Add, acc, i);
  b.Br(header, {next, sum});
  b.SetInsertBlock(exit);
  b.Return(result);
}

TEST(IrParserTest, HandBuiltLoopRoundTrips) {
  Module m;
  BuildLoop(m);
  ASSERT_TRUE(VerifyModule(m).empty());
  std::string text = PrintModule(m);
  EXPECT_NE(text.find("cond_br %3, ^3, ^4(%2)"), std::string::npos) << text;
  std::unique_ptr<Module> parsed = Parse(text);
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(PrintModule(*parsed), text);
}

TEST(IrParserTest, ForwardReferencesAndNamesResolve) {
  // ^exit comes first in the text but is reached last; %late is used before the line
  // that defines it; names are free-form and the printer renumbers them.
  std::string text =
      "func @g(%a: f32) -> f32 {\n"
      "^start:\n"
      "  br ^middle\n"
      "^exit(%r: f32):\n"
      "  ret %r\n"
      "^middle:\n"
      "  %late = mul %a, f32 0.5 : f32\n"
      "  br ^exit(%late)\n"
      "}\n";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_NE(m, nullptr);
  std::string printed = PrintModule(*m);
  EXPECT_NE(printed.find("^1(%1: f32):\n  ret %1\n^2:\n  %2 = mul %0, f32 0.5 : f32\n"),
            std::string::npos)
      << printed;
  std::unique_ptr<Module> again = Parse(printed);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), printed);
}

TEST(IrParserTest, SpecialConstantsRoundTripExactly) {
  std::string text =
      "func @c() -> void {\n"
      "^0:\n"
      "  %0 = add f32 inf, f32 -inf : f32\n"
      "  %1 = add f32 -0.0, f32 1e-45 : f32\n"
      "  %2 = add f32 3.4028235e+38, f32 0.1 : f32\n"
      "  %3 = add i32 -2147483648, i32 2147483647 : i32\n"
      "  %4 = add u32 4294967295, u32 0 : u32\n"
      "  %5 = land bool true, bool false : bool\n"
      "  %6 = add f64 0.1, f64 -2.5e-300 : f64\n"
      "  ret\n"
      "}\n";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(PrintModule(*m), text);
}

TEST(IrParserTest, WaveSizeRoundTrips) {
  std::string text =
      "func @k(%0: u32 semantic(SV_GroupIndex)) -> void compute numthreads(64, 1, 1) "
      "wave_size(16) {\n"
      "^0:\n"
      "  ret\n"
      "}\n";
  std::unique_ptr<Module> m = Parse(text);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->functions[0]->entry.wave_size, 16u);
  EXPECT_EQ(PrintModule(*m), text);
}

TEST(IrParserTest, CommentsAreIgnored) {
  std::unique_ptr<Module> m =
      Parse("// a module\nfunc @f() -> void { // header\n^0: ret // done\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(PrintModule(*m), "func @f() -> void {\n^0:\n  ret\n}\n");
}

TEST(IrParserTest, ErrorsCarryLineAndColumn) {
  std::string errors;
  EXPECT_EQ(Parse("func @f() -> void {\n^0:\n  ret\n  %x = bogus : i32\n}\n", &errors), nullptr);
  EXPECT_NE(errors.find("test.ir:4:8: error E4002: unknown instruction 'bogus'"), std::string::npos)
      << errors;
}

TEST(IrParserTest, MalformedTextIsReportedNeverACrash) {
  Module m;
  BuildLoop(m);
  std::string text = "global @buf : rwbuffer<vec<f32, 4>> set(1) binding(2)\n\n" + PrintModule(m);
  // Every proper prefix (short of the final newline) is incomplete: each must be
  // rejected with a diagnostic.
  for (size_t n = 0; n + 1 < text.size(); ++n) {
    std::string prefix = text.substr(0, n);
    bool only_globals = prefix.find("func") == std::string::npos &&
                        (n == 0 || prefix.back() == '\n' || prefix.back() == ')');
    std::unique_ptr<Module> parsed = Parse(prefix);
    if (!only_globals) {
      EXPECT_EQ(parsed, nullptr) << "prefix of " << n << " bytes parsed";
    }
  }
  // One-character edits: whatever they parse to must verify and print.
  const char kEdits[] = {' ', '%', '^', '@', '(', ')', ',', ':', '1', 'x', '-', '\n'};
  for (size_t pos = 0; pos < text.size(); ++pos) {
    for (char c : kEdits) {
      std::string edited = text;
      edited[pos] = c;
      std::unique_ptr<Module> parsed = Parse(edited);
      if (parsed != nullptr) {
        EXPECT_TRUE(VerifyModule(*parsed).empty());
        EXPECT_FALSE(PrintModule(*parsed).empty());
      }
    }
  }
}

}  // namespace
}  // namespace slope::ir
