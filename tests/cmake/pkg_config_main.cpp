// Built by `c++ -std=c++20 pkg_config_main.cpp $(pkg-config --cflags --libs slope)`
// (package_test.py pkg-config): the flags must find the headers (the driver's and
// <slope/slope.hpp>) and link the library.
#include <array>
#include <cstdio>
#include <sstream>

#include <slope/slope.hpp>

#include "compiler/driver/compile.h"

int main() {
  slope::driver::CompileOptions options;
  options.input_path = "pc.slang";
  options.source_text =
      "RWStructuredBuffer<float> data;\n"
      "[shader(\"compute\")] [numthreads(16, 2, 1)]\n"
      "void fill(uint3 id : SV_DispatchThreadID) { data[id.x] = 3.0; }\n";
  std::ostringstream diagnostics;
  options.diag_out = &diagnostics;
  slope::driver::CompileResult result = slope::driver::Compile(options);
  bool spirv = result.ok && result.spirv.size() > 5 && result.spirv[0] == 0x07230203u;
  bool reflected = result.reflection.entry_points.size() == 1 &&
                   result.reflection.entry_points[0].name == "fill" &&
                   result.reflection.entry_points[0].numthreads == std::array<uint32_t, 3>{16, 2, 1};
  std::printf("%s: SPIR-V from the library\n%s: reflection of fill [numthreads(16, 2, 1)]\n",
              spirv ? "ok" : "FAILED", reflected ? "ok" : "FAILED");
  if (!diagnostics.str().empty()) std::printf("%s", diagnostics.str().c_str());
  // The embedded API from the same flags.
  slope::Module module = slope::Session().LoadModuleFromSource("pc.slang", *options.source_text);
  bool api = module.Ok() && module.EntryPoints().size() == 1 &&
             module.Compile(slope::Target::SpirV).Words() == result.spirv;
  std::printf("%s: the embedded API gives the same SPIR-V\n", api ? "ok" : "FAILED");
  return spirv && reflected && api ? 0 : 1;
}
