// libFuzzer target over the IR's text form, its verifier and the pass list: any byte
// string is read as IR text. Malformed text and modules that do not verify must be
// reported as diagnostics; a module that parses must print and parse back to the same
// text, then go through the SPIR-V target's pass list (targets/spirv/raise.h) with the
// verifier after every pass. A crash, a sanitizer report, a hang, an internal compiler
// error (an InternalError this lets through, which aborts), a round trip that differs or
// a pass that leaves invalid IR is a finding. Passes may report user errors (a loop
// reverse mode cannot bound, a buffer no global can be found for): the list then stops.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "compiler/diag/diag.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/source/source_manager.h"
#include "compiler/targets/spirv/raise.h"

namespace {

std::unique_ptr<slope::ir::Module> Parse(slope::source::SourceManager& sources,
                                         std::ostringstream& out, std::string text,
                                         bool* reported) {
  slope::diag::DiagEngine diags(sources, out);
  slope::source::FileId file = sources.AddFile("fuzz.ir", std::move(text));
  std::unique_ptr<slope::ir::Module> module = slope::ir::ParseModule(file, diags);
  *reported = diags.HasErrors();
  return module;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  slope::source::SourceManager sources;
  std::ostringstream out;
  bool reported = false;
  std::unique_ptr<slope::ir::Module> module =
      Parse(sources, out, std::string(reinterpret_cast<const char*>(data), size), &reported);
  // Every rejected module comes with a diagnostic.
  if (module == nullptr) {
    if (!reported || out.str().empty()) std::abort();
    return 0;
  }
  std::string printed = slope::ir::PrintModule(*module);
  std::unique_ptr<slope::ir::Module> again = Parse(sources, out, printed, &reported);
  if (again == nullptr || slope::ir::PrintModule(*again) != printed) std::abort();
  slope::diag::DiagEngine diags(sources, out);
  slope::targets::spirv::Raise(*module, {}, &diags, /*verify_each=*/true);
  return 0;
}
