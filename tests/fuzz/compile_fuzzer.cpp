// libFuzzer target over the whole front end and code generation: any byte string is
// compiled as a .slang file to SPIR-V. A crash, a sanitizer report, a hang, an internal
// compiler error (an InternalError this lets through, which aborts) or generated SPIR-V
// that fails validation is a finding (fuzz_compile.h).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  slope::fuzz::CompileOrAbort(std::string_view(reinterpret_cast<const char*>(data), size),
                              slope::driver::Target::SpirV);
  return 0;
}
