#include "tests/fuzz/fuzz_compile.h"

#include <cstdlib>
#include <sstream>
#include <string>

namespace slope::fuzz {

void CompileOrAbort(std::string_view source, driver::Target target) {
  driver::CompileOptions options;
  options.input_path = "fuzz.slang";
  options.source_text = std::string(source);
  options.target = target;
  std::ostringstream diags;
  options.diag_out = &diags;
  // JSON escapes quotes inside messages, so a code can be matched exactly even when the
  // input itself contains text such as "E0005".
  options.diag_format = driver::DiagFormat::Json;
  driver::CompileResult result = driver::Compile(options);
  // Every error must come with a diagnostic; invalid output is a bug in Slope.
  if (!result.ok && diags.str().empty()) std::abort();
  if (diags.str().find("\"code\":\"E0005\"") != std::string::npos) std::abort();
}

}  // namespace slope::fuzz
