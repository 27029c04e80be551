#include "compiler/driver/module_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "compiler/driver/compile.h"

namespace slope::driver {
namespace {

namespace fs = std::filesystem;

class ModuleFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("slope-module-file-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Write("m.slang",
          "module m;\n#include \"m.h\"\n__include part;\n"
          "public float twice(float x) { return x * TWO; }\n");
    Write("m.h", "#define TWO 2.0\n#define CAT(a, b) a##b\n");
    Write("part.slang",
          "implementing m;\n#include \"m.h\"\ninternal float CAT(hel, per)() { return TWO; }\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  std::string Module() const { return (dir_ / "m.slang-module").string(); }

  /// The module file of m.slang, as slopec -emit-module makes it.
  std::string Emit() {
    CompileOptions options;
    options.input_path = (dir_ / "m.slang").string();
    options.stop_after = StopAfter::Module;
    options.module_path = Module();
    std::ostringstream diags;
    options.diag_out = &diags;
    CompileResult result = Compile(options);
    EXPECT_TRUE(result.ok) << diags.str();
    return result.binary;
  }

  LoadedModuleFile Read(const std::string& bytes) {
    std::ofstream(Module(), std::ios::binary | std::ios::trunc) << bytes;
    sources_ = std::make_unique<source::SourceManager>();
    diags_ = std::make_unique<diag::DiagEngine>(*sources_, out_);
    return ReadModuleFile(Module(), ModuleOptionsKey(preprocess::PreprocessOptions{}), *sources_,
                          *diags_);
  }

  fs::path dir_;
  std::ostringstream out_;
  std::unique_ptr<source::SourceManager> sources_;
  std::unique_ptr<diag::DiagEngine> diags_;
};

TEST_F(ModuleFileTest, KeepsEveryPartsTokensAndFiles) {
  std::string bytes = Emit();
  LoadedModuleFile loaded = Read(bytes);
  ASSERT_EQ(loaded.status, ModuleFileStatus::Valid) << loaded.why;
  ASSERT_EQ(loaded.parts.size(), 2u);
  // The primary file first, then the part it includes; each with the header it read.
  EXPECT_EQ(fs::path(loaded.parts[0].path).filename(), "m.slang");
  EXPECT_EQ(fs::path(loaded.parts[1].path).filename(), "part.slang");
  EXPECT_EQ(loaded.parts[0].files_read.size(), 2u);
  // The macro was expanded where it was used, and the pasted name spelled out.
  std::string spelled;
  for (const preprocess::Token& t : loaded.parts[1].tokens) spelled += std::string(t.text) + " ";
  EXPECT_NE(spelled.find("helper"), std::string::npos) << spelled;
  EXPECT_NE(spelled.find("2.0"), std::string::npos) << spelled;
  EXPECT_EQ(loaded.parts[1].tokens.back().kind, preprocess::TokenKind::EndOfFile);
  // Locations point into the file texts the module file carried.
  const preprocess::Token& first = loaded.parts[0].tokens.front();
  EXPECT_EQ(sources_->Path(first.loc.file), loaded.parts[0].path);
  EXPECT_EQ(sources_->GetLineCol(first.loc).line, 1u);
}

TEST_F(ModuleFileTest, ChangedSourceMakesItStaleAndMissingSourceDoesNot) {
  std::string bytes = Emit();
  fs::remove(dir_ / "part.slang");
  EXPECT_EQ(Read(bytes).status, ModuleFileStatus::Valid);
  Write("m.h", "#define TWO 3.0\n");
  LoadedModuleFile stale = Read(bytes);
  EXPECT_EQ(stale.status, ModuleFileStatus::Stale);
  EXPECT_NE(stale.why.find("m.h"), std::string::npos) << stale.why;
}

TEST_F(ModuleFileTest, OtherOptionsAreAMismatch) {
  std::string bytes = Emit();
  std::ofstream(Module(), std::ios::binary | std::ios::trunc) << bytes;
  source::SourceManager sources;
  std::ostringstream out;
  diag::DiagEngine diags(sources, out);
  preprocess::PreprocessOptions other;
  other.defines.push_back("FAST=1");
  EXPECT_EQ(ReadModuleFile(Module(), ModuleOptionsKey(other), sources, diags).status,
            ModuleFileStatus::Mismatch);
}

// Hostile input: every cut and a few thousand corrupted bytes give a status, never a
// crash, and no parts unless the file is valid.
TEST_F(ModuleFileTest, CutOrCorruptedFilesAreRefused) {
  std::string bytes = Emit();
  fs::remove(dir_ / "m.slang");
  fs::remove(dir_ / "part.slang");
  fs::remove(dir_ / "m.h");
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    LoadedModuleFile loaded = Read(bytes.substr(0, cut));
    EXPECT_NE(loaded.status, ModuleFileStatus::Valid) << "cut at " << cut;
    EXPECT_TRUE(loaded.parts.empty());
  }
  EXPECT_EQ(Read(bytes + "x").status, ModuleFileStatus::Corrupt);
  std::mt19937 random(7);
  for (int round = 0; round < 3000; ++round) {
    std::string changed = bytes;
    for (int i = 0; i < 3; ++i) {
      changed[random() % changed.size()] = static_cast<char>(random() & 0xff);
    }
    LoadedModuleFile loaded = Read(changed);
    for (const ModulePart& part : loaded.parts) {
      ASSERT_FALSE(part.tokens.empty());
      EXPECT_EQ(part.tokens.back().kind, preprocess::TokenKind::EndOfFile);
    }
  }
}

}  // namespace
}  // namespace slope::driver
