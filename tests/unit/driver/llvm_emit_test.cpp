// The LLVM targets' writer through the driver's target table, on IR text: a module with
// its entry point writes host IR naming the CPU entry and its kernel information, and a
// request for entry points the module lacks is E5201 (the writer's own errors), not a
// crash or an empty output. (Source programs always have their entry, so only a module
// handed to the writer directly reaches the second case.)

#include <gtest/gtest.h>

#include <sstream>

#include "compiler/diag/diag.h"
#include "compiler/driver/targets.h"
#include "compiler/ir/parser.h"

namespace slope::driver {
namespace {

constexpr const char* kModule = R"(
global @data : rwbuffer<u32> set(0) binding(0)

func @main(%t: u32 semantic(SV_GroupIndex)) -> void compute numthreads(4, 1, 1) {
^0:
  %d = element_ptr @data, %t : ptr<storage, u32>
  %v = load %d : u32
  %w = add %v, %t : u32
  store %d, %w
  ret
}
)";

struct Emitted {
  CompileResult result;
  std::string diags;
  uint32_t errors = 0;
};

Emitted EmitHostIr(const std::vector<std::string>& entries) {
  source::SourceManager sources;
  std::ostringstream out;
  diag::DiagEngine diags(sources, out);
  source::FileId file = sources.AddFile("test.ir", kModule);
  std::unique_ptr<ir::Module> module = ir::ParseModule(file, diags);
  EXPECT_NE(module, nullptr) << out.str();
  Emitted e;
  if (module == nullptr) return e;
  CompileOptions options;
  options.target = Target::LlvmIr;
  options.entries = entries;
  const TargetInfo& target = TargetOf(Target::LlvmIr);
  target.run_passes(*module, AfterPass(), &diags, /*verify_each=*/true);
  BindingInfo data;  // what reflection gives the compile of a source program
  data.name = "data";
  data.kind = ResourceKind::RWStructuredBuffer;
  e.result.reflection.bindings.push_back(data);
  EmitRequest request{*module, options, 1, targets::BufferLayout::Scalar,
                      ir::MatrixLayout::RowMajor, sources, file, diags, e.result};
  target.emit(request);
  e.diags = out.str();
  e.errors = diags.ErrorCount();
  return e;
}

TEST(LlvmEmitTest, EntryPointWritesHostIr) {
  Emitted e = EmitHostIr({"main"});
  EXPECT_EQ(e.errors, 0u) << e.diags;
  EXPECT_NE(e.result.text.find("define void @slope_cpu_main("), std::string::npos) << e.result.text;
  EXPECT_NE(e.result.text.find("@slope_cpu_info_main"), std::string::npos) << e.result.text;
}

TEST(LlvmEmitTest, MissingEntryPointIsE5201) {
  Emitted e = EmitHostIr({"elsewhere"});
  EXPECT_EQ(e.errors, 1u) << e.diags;
  EXPECT_NE(e.diags.find("error E5201: no entry point to write"), std::string::npos) << e.diags;
  EXPECT_TRUE(e.result.text.empty());
}

}  // namespace
}  // namespace slope::driver
