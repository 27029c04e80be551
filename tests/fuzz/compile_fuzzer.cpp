// libFuzzer target over the whole front end and code generation: any byte string is
// compiled as a .slang file to SPIR-V. A crash, a sanitizer report, a hang, an internal
// compiler error (an InternalError this lets through, which aborts) or generated SPIR-V
// that fails validation is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "compiler/driver/compile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  slope::driver::CompileOptions options;
  options.input_path = "fuzz.slang";
  options.source_text = std::string(reinterpret_cast<const char*>(data), size);
  options.target = slope::driver::Target::SpirV;
  std::ostringstream diags;
  options.diag_out = &diags;
  // JSON escapes quotes inside messages, so a code can be matched exactly even when the
  // input itself contains text such as "E0005".
  options.diag_format = slope::driver::DiagFormat::Json;
  slope::driver::CompileResult result = slope::driver::Compile(options);
  // Every error must come with a diagnostic; invalid output is a bug in Slope.
  if (!result.ok && diags.str().empty()) std::abort();
  if (diags.str().find("\"code\":\"E0005\"") != std::string::npos) std::abort();
  return 0;
}
