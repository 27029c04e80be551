#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/driver/compile.h"
#include "compiler/driver/validate_output.h"

namespace slope::driver {
namespace {

TEST(ValidateOutputTest, InvalidSpirvIsADiagnostic) {
  source::SourceManager sources;
  std::ostringstream out;
  diag::DiagEngine diags(sources, out);
  // A header with a wrong magic number and nothing else.
  std::vector<uint32_t> words{0x12345678u, 0x00010300u, 0, 1, 0};
  EXPECT_FALSE(ValidateOutput(words, diags));
  EXPECT_EQ(diags.ErrorCount(), 1u);
  EXPECT_NE(out.str().find("error E0005: generated SPIR-V failed validation"), std::string::npos)
      << out.str();
}

TEST(CompileTest, ReflectionDescribesBuffersAndEntryPoints) {
  CompileOptions options;
  options.input_path = "inline.slang";
  options.source_text = R"(
    [[vk::binding(2, 1)]] StructuredBuffer<float3> positions;
    RWStructuredBuffer<int> counts;
    [shader("compute")] [numthreads(32, 2, 1)]
    void main(uint3 tid : SV_DispatchThreadID) { counts[tid.x] = int(positions[tid.x].y); }
  )";
  std::ostringstream diags;
  options.diag_out = &diags;
  CompileResult result = Compile(options);
  ASSERT_TRUE(result.ok) << diags.str();
  ASSERT_EQ(result.reflection.entry_points.size(), 1u);
  EXPECT_EQ(result.reflection.entry_points[0].name, "main");
  EXPECT_EQ(result.reflection.entry_points[0].numthreads, (std::array<uint32_t, 3>{32, 2, 1}));
  const BindingInfo* positions = result.reflection.FindBinding("positions");
  ASSERT_NE(positions, nullptr);
  EXPECT_EQ(positions->kind, ResourceKind::StructuredBuffer);
  EXPECT_EQ(positions->set, 1u);
  EXPECT_EQ(positions->binding, 2u);
  EXPECT_EQ(positions->element.components, 3u);
  EXPECT_EQ(positions->element.size, 12u);
  EXPECT_EQ(positions->element.stride, 16u);
  const BindingInfo* counts = result.reflection.FindBinding("counts");
  ASSERT_NE(counts, nullptr);
  EXPECT_EQ(counts->kind, ResourceKind::RWStructuredBuffer);
  EXPECT_EQ(counts->set, 0u);
  EXPECT_EQ(counts->binding, 0u);
  EXPECT_EQ(counts->element.scalar, ScalarKind::Int32);
  EXPECT_FALSE(result.spirv.empty());
  EXPECT_EQ(result.spirv[0], 0x07230203u);
}

TEST(CompileTest, ReflectionLaysMatricesOutByTheMatrixLayout) {
  // float2x3 (2 rows of 3) under std430: row-major is two float3 rows 16 bytes apart
  // (size 32); column-major three float2 columns 8 bytes apart (size 24, stride 24). In
  // Item, `tail` follows the matrix: at 32 or 24; `r` is row_major either way: 2 rows of
  // float2 (stride 8) after `tail`, at 40 or 32 (aligned to 8).
  for (bool column_major : {false, true}) {
    CompileOptions options;
    options.input_path = "inline.slang";
    options.column_major = column_major;
    options.source_text = R"(
      struct Item { float2x3 m; float tail; row_major float2x2 r; }
      StructuredBuffer<float2x3> mats;
      RWStructuredBuffer<Item> items;
      [shader("compute")] [numthreads(1, 1, 1)]
      void main() { items[0].tail = mats[0][1][2] + items[0].r[1][0]; }
    )";
    std::ostringstream diags;
    options.diag_out = &diags;
    CompileResult result = Compile(options);
    ASSERT_TRUE(result.ok) << diags.str();
    const BindingInfo* mats = result.reflection.FindBinding("mats");
    ASSERT_NE(mats, nullptr);
    EXPECT_EQ(mats->element.rows, 2u);
    EXPECT_EQ(mats->element.components, 3u);
    EXPECT_EQ(mats->element.size, column_major ? 24u : 32u);
    EXPECT_EQ(mats->element.row_step, column_major ? 4u : 16u);
    EXPECT_EQ(mats->element.component_stride, column_major ? 8u : 4u);
    const BindingInfo* items = result.reflection.FindBinding("items");
    ASSERT_NE(items, nullptr);
    const std::vector<FieldLayout>& fields = items->element.fields;
    ASSERT_EQ(fields.size(), 5u);  // m[0], m[1], tail, r[0], r[1]
    EXPECT_EQ(fields[0].name, "m[0]");
    EXPECT_EQ(fields[1].offset, column_major ? 4u : 16u);
    EXPECT_EQ(fields[1].component_stride, column_major ? 8u : 0u);
    EXPECT_EQ(fields[2].name, "tail");
    EXPECT_EQ(fields[2].offset, column_major ? 24u : 32u);
    EXPECT_EQ(fields[3].offset, column_major ? 32u : 40u);
    EXPECT_EQ(fields[4].offset, column_major ? 40u : 48u);
    EXPECT_EQ(items->element.stride, column_major ? 48u : 64u);
  }
}

TEST(CompileTest, BadInputNeverCrashesAndReportsErrors) {
  // A few malformed fragments of the kind fuzzers find.
  const char* inputs[] = {"(", "[[", "void f(", "}}}}", "[shader(\"compute\")", "int x = ((((1",
                          "float f() { return f(", "\"", "/*", "[numthreads(1,1,1)] void",
                          "RWStructuredBuffer<", "void f() { for (;;) }"};
  for (const char* text : inputs) {
    CompileOptions options;
    options.input_path = "fuzz.slang";
    options.source_text = text;
    std::ostringstream diags;
    options.diag_out = &diags;
    CompileResult result = Compile(options);
    EXPECT_FALSE(result.ok) << text;
    EXPECT_GT(result.error_count, 0u) << text;
  }
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(CompileTest, FilesReadListsImportedModulesOnce) {
  // main imports lib.a and lib.b; both import lib/c.slang (found next to them), and a
  // #includes a header. Depfiles list every one of these files, each once.
  std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "slope_driver_imports";
  std::filesystem::remove_all(dir);
  WriteFile(dir / "main.slang", "import lib.a;\nimport lib.b;\nfloat f() { return a() + b(); }\n");
  WriteFile(dir / "lib" / "a.slang",
            "import c;\n#include \"a_impl.h\"\npublic float a() { return impl() + c(); }\n");
  WriteFile(dir / "lib" / "a_impl.h", "internal float impl() { return 1.0; }\n");
  WriteFile(dir / "lib" / "b.slang", "import c;\npublic float b() { return c(); }\n");
  WriteFile(dir / "lib" / "c.slang", "public float c() { return 2.0; }\n");
  CompileOptions options;
  options.input_path = (dir / "main.slang").string();
  options.stop_after = StopAfter::Check;
  std::ostringstream diags;
  options.diag_out = &diags;
  CompileResult result = Compile(options);
  ASSERT_TRUE(result.ok) << diags.str();
  std::vector<std::string> names;
  for (const std::string& path : result.files_read) {
    names.push_back(std::filesystem::path(path).lexically_relative(dir).generic_string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"main.slang", "lib/a.slang", "lib/a_impl.h",
                                             "lib/c.slang", "lib/b.slang"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace slope::driver
