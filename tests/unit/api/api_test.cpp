// The embedded C++ API (include/slope/slope.hpp): loading, entry points, compiling,
// reflection, structured diagnostics and their rendering, options, dependencies,
// lifetimes and internal errors returned as results.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/driver/reflection_json.h"
#include "slope/slope.hpp"

namespace slope {
namespace {

namespace fs = std::filesystem;

const char* const kTwoKernels = R"(StructuredBuffer<int> in_data;
RWStructuredBuffer<int> out_data;

[shader("compute")] [numthreads(4, 1, 1)]
void scale(uint3 tid : SV_DispatchThreadID) {
    out_data[tid.x] = in_data[tid.x] * 3;
}

[shader("compute")] [numthreads(8, 2, 1)]
void offset(uint3 tid : SV_DispatchThreadID) {
    out_data[tid.x] = in_data[tid.x] + 10;
}
)";

/// A fresh folder for files a test writes.
fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("slope_api_test_" + name + "_" +
                                              std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(ApiTest, ModuleListsItsEntryPointsWithTheirThreadGroupSizes) {
  Session session;
  Module module = session.LoadModuleFromSource("kernels.slang", kTwoKernels);
  ASSERT_TRUE(module.Ok()) << Render(module.Diagnostics());
  EXPECT_EQ(module.GetStatus(), Status::Ok);
  EXPECT_TRUE(module.Diagnostics().empty());
  ASSERT_EQ(module.EntryPoints().size(), 2u);
  EXPECT_EQ(module.EntryPoints()[0].name, "scale");
  EXPECT_EQ(module.EntryPoints()[0].stage, "compute");
  EXPECT_EQ(module.EntryPoints()[0].numthreads, (std::array<uint32_t, 3>{4, 1, 1}));
  EXPECT_EQ(module.EntryPoints()[1].name, "offset");
  EXPECT_EQ(module.EntryPoints()[1].numthreads, (std::array<uint32_t, 3>{8, 2, 1}));
}

TEST(ApiTest, CompilesToSpirvWithReflectionAsStructAndJson) {
  Session session;
  Module module = session.LoadModuleFromSource("kernels.slang", kTwoKernels);
  Artifact a = module.Compile(Target::SpirV, {"offset"});
  ASSERT_TRUE(a.Ok()) << Render(a.diagnostics) << a.internal_error;
  EXPECT_FALSE(a.is_text);
  std::vector<uint32_t> words = a.Words();
  ASSERT_GT(words.size(), 5u);
  EXPECT_EQ(words[0], 0x07230203u);  // the SPIR-V magic number
  EXPECT_EQ(a.data.size(), words.size() * 4);
  ASSERT_EQ(a.reflection.entry_points.size(), 1u);
  EXPECT_EQ(a.reflection.entry_points[0].name, "offset");
  EXPECT_EQ(a.reflection.entry_points[0].numthreads, (std::array<uint32_t, 3>{8, 2, 1}));
  const driver::BindingInfo* out = a.reflection.FindBinding("out_data");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->kind, driver::ResourceKind::RWStructuredBuffer);
  EXPECT_EQ(out->element.stride, 4u);
  const driver::BindingInfo* in = a.reflection.FindBinding("in_data");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->kind, driver::ResourceKind::StructuredBuffer);
  EXPECT_NE(in->binding, out->binding);
  // The JSON is the same reflection.
  driver::Reflection back;
  std::string error;
  ASSERT_TRUE(driver::ReflectionFromJson(a.reflection_json, &back, &error)) << error;
  ASSERT_EQ(back.entry_points.size(), 1u);
  EXPECT_EQ(back.entry_points[0].name, "offset");
  ASSERT_NE(back.FindBinding("out_data"), nullptr);
  EXPECT_EQ(back.FindBinding("out_data")->binding, out->binding);
  EXPECT_EQ(a.dependencies, std::vector<std::string>{"kernels.slang"});
}

TEST(ApiTest, TextTargetsGiveText) {
  Session session;
  Module module = session.LoadModuleFromSource("kernels.slang", kTwoKernels);
  Artifact glsl = module.Compile(Target::Glsl, {"scale"});
  ASSERT_TRUE(glsl.Ok()) << Render(glsl.diagnostics);
  EXPECT_TRUE(glsl.is_text);
  EXPECT_EQ(glsl.data.rfind("#version 450", 0), 0u) << glsl.data;
  EXPECT_NE(glsl.data.find("local_size_x = 4"), std::string::npos) << glsl.data;
  Artifact cuda = module.Compile(Target::Cuda);
  ASSERT_TRUE(cuda.Ok()) << Render(cuda.diagnostics);
  EXPECT_NE(cuda.data.find("__global__"), std::string::npos);
  EXPECT_EQ(TargetName(Target::SpirVAsm), "spirv-asm");
  EXPECT_EQ(TargetFromName("glsl"), Target::Glsl);
  EXPECT_EQ(TargetFromName("dxil"), std::nullopt);
}

TEST(ApiTest, ErrorsAreStructuredAndRenderedOnRequest) {
  Session session;
  const std::string source =
      "int f() { return 1; }\n"
      "int f() { return 2; }\n"
      "[numthreads(1, 1, 1)]\n"
      "void main() {\n"
      "    int a = missing + 1;\n"
      "}\n";
  // Nothing is printed: the diagnostics come back.
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  Module module = session.LoadModuleFromSource("bad.slang", source);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(module.Ok());
  EXPECT_EQ(module.GetStatus(), Status::Error);
  const std::vector<Diagnostic>& d = module.Diagnostics();
  ASSERT_EQ(d.size(), 2u) << Render(d);
  EXPECT_EQ(d[0].severity, Severity::Error);
  EXPECT_EQ(d[0].code, "E3002");
  EXPECT_EQ(d[0].file, "bad.slang");
  EXPECT_EQ(d[0].line, 2u);
  EXPECT_EQ(d[0].column, 5u);
  EXPECT_EQ(d[0].message, "redefinition of 'f'");
  ASSERT_EQ(d[0].notes.size(), 1u);
  EXPECT_EQ(d[0].notes[0].severity, Severity::Note);
  EXPECT_EQ(d[0].notes[0].code, "N0001");
  EXPECT_EQ(d[0].notes[0].line, 1u);
  EXPECT_EQ(d[0].notes[0].column, 5u);
  EXPECT_EQ(d[1].code, "E3001");
  EXPECT_EQ(d[1].line, 5u);
  EXPECT_EQ(d[1].column, 13u);
  EXPECT_EQ(d[1].message, "use of undeclared identifier 'missing'");
  EXPECT_EQ(Render(d[1]),
            "bad.slang:5:13: error E3001: use of undeclared identifier 'missing'\n"
            "    int a = missing + 1;\n"
            "            ^~~~~~~\n");
  EXPECT_EQ(Render(d).rfind("bad.slang:2:5: error E3002: redefinition of 'f'\n"
                            "int f() { return 2; }\n"
                            "    ^\n"
                            "bad.slang:1:5: note N0001: previous definition of 'f' is here\n",
                            0),
            0u)
      << Render(d);
  // Compiling reports them again, and gives no output.
  Artifact a = module.Compile(Target::SpirV);
  EXPECT_EQ(a.status, Status::Error);
  EXPECT_TRUE(a.data.empty());
  ASSERT_EQ(a.diagnostics.size(), 2u);
  EXPECT_EQ(a.diagnostics[1].code, "E3001");
}

TEST(ApiTest, MissingFileIsADiagnostic) {
  Session session;
  Module module = session.LoadModule("/nonexistent/dir/kernel.slang");
  EXPECT_EQ(module.GetStatus(), Status::Error);
  ASSERT_EQ(module.Diagnostics().size(), 1u);
  EXPECT_EQ(module.Diagnostics()[0].code, "E0002");
  EXPECT_EQ(module.Diagnostics()[0].message,
            "cannot open file '/nonexistent/dir/kernel.slang'");
}

const char* const kWarns =
    "RWStructuredBuffer<int> out_data;\n"
    "[numthreads(1, 1, 1)]\n"
    "void main() {\n"
    "    int x = 1.5f;\n"
    "    out_data[0] = x;\n"
    "}\n";

TEST(ApiTest, WarningOptions) {
  Module plain = Session().LoadModuleFromSource("w.slang", kWarns);
  EXPECT_TRUE(plain.Ok());
  ASSERT_EQ(plain.Diagnostics().size(), 1u);
  EXPECT_EQ(plain.Diagnostics()[0].severity, Severity::Warning);
  EXPECT_EQ(plain.Diagnostics()[0].code, "W3102");
  EXPECT_EQ(plain.Diagnostics()[0].line, 4u);

  SessionOptions strict;
  strict.warnings_as_errors = true;
  Module as_errors = Session(strict).LoadModuleFromSource("w.slang", kWarns);
  EXPECT_EQ(as_errors.GetStatus(), Status::Error);
  ASSERT_EQ(as_errors.Diagnostics().size(), 1u);
  EXPECT_EQ(as_errors.Diagnostics()[0].severity, Severity::Error);
  EXPECT_EQ(as_errors.Diagnostics()[0].code, "W3102");
  EXPECT_FALSE(as_errors.Compile(Target::SpirV).Ok());

  SessionOptions quiet;
  quiet.disabled_warnings = {3102};
  Module disabled = Session(quiet).LoadModuleFromSource("w.slang", kWarns);
  EXPECT_TRUE(disabled.Ok());
  EXPECT_TRUE(disabled.Diagnostics().empty());
}

TEST(ApiTest, MacrosSearchPathsAndDependencies) {
  fs::path dir = TempDir("deps");
  fs::create_directories(dir / "lib");
  WriteFile(dir / "lib" / "helpers.slang", "int Triple(int v) { return v * FACTOR; }\n");
  WriteFile(dir / "lib" / "common.h", "#define OFFSET 4\n");
  WriteFile(dir / "main.slang",
            "import helpers;\n"
            "#include \"common.h\"\n"
            "#ifndef FACTOR\n"
            "#error FACTOR is not defined\n"
            "#endif\n"
            "RWStructuredBuffer<int> out_data;\n"
            "[shader(\"compute\")] [numthreads(2, 1, 1)]\n"
            "void main(uint3 tid : SV_DispatchThreadID) {\n"
            "    out_data[tid.x] = Triple(int(tid.x)) + OFFSET;\n"
            "}\n");
  std::string main_path = (dir / "main.slang").string();

  // Without the search path or the macro, the module does not load.
  Module bare = Session().LoadModule(main_path);
  EXPECT_EQ(bare.GetStatus(), Status::Error);

  SessionOptions options;
  options.search_paths = {(dir / "lib").string()};
  options.macros = {{"FACTOR", "3"}};
  Session session(options);
  Module module = session.LoadModule(main_path);
  ASSERT_TRUE(module.Ok()) << Render(module.Diagnostics());
  Artifact a = module.Compile(Target::SpirVAsm);
  ASSERT_TRUE(a.Ok()) << Render(a.diagnostics);
  EXPECT_TRUE(a.is_text);
  EXPECT_NE(a.data.find("OpEntryPoint GLCompute"), std::string::npos);
  ASSERT_FALSE(a.dependencies.empty());
  EXPECT_EQ(a.dependencies[0], main_path);
  auto names = [&](const std::string& file) {
    return std::any_of(a.dependencies.begin(), a.dependencies.end(), [&](const std::string& p) {
      return fs::path(p).filename() == file;
    });
  };
  EXPECT_TRUE(names("helpers.slang"));
  EXPECT_TRUE(names("common.h"));
  EXPECT_EQ(a.dependencies.size(), 3u);
  EXPECT_EQ(module.Dependencies(), a.dependencies);
  fs::remove_all(dir);
}

TEST(ApiTest, ModulesOutliveTheirSession) {
  std::optional<Module> module;
  {
    SessionOptions options;
    options.macros = {{"FACTOR", "3"}};
    Session session(options);
    module = session.LoadModuleFromSource(
        "k.slang",
        "RWStructuredBuffer<int> o;\n[shader(\"compute\")] [numthreads(1,1,1)] void main() { o[0] = FACTOR; }\n");
  }
  Artifact a = module->Compile(Target::SpirVAsm);
  ASSERT_TRUE(a.Ok()) << Render(a.diagnostics);
  EXPECT_NE(a.data.find("OpConstant %int 3"), std::string::npos) << a.data;
}

TEST(ApiTest, InternalErrorsAreResultsAndTheHostCarriesOn) {
  Session session;
  Module broken = session.LoadModuleFromSource(
      "ice.slang", "[numthreads(1,1,1)] void main() {}\n#pragma slope __debug ice\n");
  EXPECT_EQ(broken.GetStatus(), Status::InternalError);
  EXPECT_EQ(broken.InternalError().rfind(
                "ice.slang: internal compiler error: raised on request by '#pragma slope __debug "
                "ice'\nnote: raised at ",
                0),
            0u)
      << broken.InternalError();
  Artifact a = broken.Compile(Target::SpirV);
  EXPECT_EQ(a.status, Status::InternalError);
  EXPECT_FALSE(a.Ok());
  EXPECT_NE(a.internal_error.find("internal compiler error"), std::string::npos);
  // The process and the session are fine.
  Module good = session.LoadModuleFromSource("kernels.slang", kTwoKernels);
  EXPECT_TRUE(good.Compile(Target::SpirV).Ok());
}

TEST(ApiTest, VerifyEachPassGivesTheSameOutput) {
  SessionOptions options;
  options.verify_each_pass = true;
  Artifact checked = Session(options).LoadModuleFromSource("k.slang", kTwoKernels).Compile(Target::SpirV);
  Artifact plain = Session().LoadModuleFromSource("k.slang", kTwoKernels).Compile(Target::SpirV);
  ASSERT_TRUE(checked.Ok());
  EXPECT_EQ(checked.data, plain.data);
}

TEST(ApiTest, OptionsReachTheCompile) {
  const char* source =
      "RWStructuredBuffer<float2x2> m;\n"
      "[shader(\"compute\")] [numthreads(1,1,1)]\n"
      "void main() { m[0] = float2x2(1, 2, 3, 4); }\n";
  SessionOptions column;
  column.matrix_layout = MatrixLayout::ColumnMajor;
  Artifact rows = Session().LoadModuleFromSource("m.slang", source).Compile(Target::SpirV);
  Artifact cols = Session(column).LoadModuleFromSource("m.slang", source).Compile(Target::SpirV);
  ASSERT_TRUE(rows.Ok() && cols.Ok());
  const driver::BindingInfo* r = rows.reflection.FindBinding("m");
  const driver::BindingInfo* c = cols.reflection.FindBinding("m");
  ASSERT_TRUE(r != nullptr && c != nullptr);
  // Row-major: a row's two floats are adjacent; column-major: they are a column apart.
  EXPECT_EQ(r->element.component_stride, 4u);
  EXPECT_EQ(c->element.component_stride, 8u);
  // A `static` global, a Private variable that the SPIR-V optimizer puts in SSA form at
  // -O1 (a module without such variables is not given to it: docs/spirv.md).
  const char* looped =
      "StructuredBuffer<int> in_data;\n"
      "RWStructuredBuffer<int> out_data;\n"
      "static int total;\n"
      "[shader(\"compute\")] [numthreads(8, 1, 1)]\n"
      "void sum(uint3 tid : SV_DispatchThreadID) {\n"
      "  total = 0;\n"
      "  for (int i = 0; i < 4; i++) total += in_data[tid.x + i];\n"
      "  out_data[tid.x] = total + 10;\n"
      "}\n";
  SessionOptions o0;
  o0.optimization_level = 0;
  Artifact unoptimized = Session(o0).LoadModuleFromSource("k.slang", looped).Compile(Target::SpirV);
  Artifact optimized = Session().LoadModuleFromSource("k.slang", looped).Compile(Target::SpirV);
  ASSERT_TRUE(unoptimized.Ok() && optimized.Ok());
  EXPECT_NE(unoptimized.data, optimized.data);
}

}  // namespace
TEST(ApiTest, RegisterShiftsAndTheGlobalsBinding) {
  const char* source =
      "uniform float scale;\n"
      "StructuredBuffer<float> in_data : register(t1);\n"
      "RWStructuredBuffer<float> out_data : register(u0, space1);\n"
      "[shader(\"compute\")] [numthreads(4, 1, 1)]\n"
      "void main(uint3 tid : SV_DispatchThreadID) { out_data[tid.x] = in_data[tid.x] * scale; }\n";
  Artifact plain = Session().LoadModuleFromSource("r.slang", source).Compile(Target::SpirV);
  SessionOptions shifted;
  shifted.register_shifts = {{'t', 10, 0u}, {'u', 5, std::nullopt}, {'u', 1, 1u}, {'b', 7, 0u}};
  shifted.globals_binding = std::make_pair(3u, 2u);
  Artifact moved = Session(shifted).LoadModuleFromSource("r.slang", source).Compile(Target::SpirV);
  ASSERT_TRUE(plain.Ok() && moved.Ok()) << Render(moved.diagnostics);
  auto at = [](const Artifact& a, const char* name) {
    const driver::BindingInfo* b = a.reflection.FindBinding(name);
    return b == nullptr ? std::make_pair(~0u, ~0u) : std::make_pair(b->set, b->binding);
  };
  EXPECT_EQ(at(plain, "in_data"), std::make_pair(0u, 1u));
  EXPECT_EQ(at(plain, "out_data"), std::make_pair(1u, 0u));
  EXPECT_EQ(at(plain, "GlobalParams"), std::make_pair(0u, 0u));
  EXPECT_EQ(at(moved, "in_data"), std::make_pair(0u, 11u));
  EXPECT_EQ(at(moved, "out_data"), std::make_pair(1u, 6u));  // both u shifts apply
  EXPECT_EQ(at(moved, "GlobalParams"), std::make_pair(2u, 3u));  // no register(): no b shift
}

}  // namespace slope
