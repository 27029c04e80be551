// slopec: the Slope command-line compiler. Accepts slangc's spelling of the flags it
// supports: slopec FILE -entry NAME -stage compute -target spirv|spirv-asm|glsl|cuda -o OUT

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "compiler/driver/args.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/reflection_json.h"
#include "compiler/targets/cuda/prelude.h"
#include "tools/common/codegen_flags.h"

namespace {

bool WriteFile(const std::string& path, const void* data, size_t size) {
  if (path == "-") {
    return std::fwrite(data, 1, size, stdout) == size;
  }
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"slopec: compile Slang-compatible shaders to SPIR-V"};
  std::string input, stage = "compute", target = "spirv", output, diag_format = "text";
  std::vector<std::string> entries;
  bool skip_validation = false, no_codegen = false, dump_ir = false;
  uint32_t error_limit = 20;
  std::string prelude_out;
  app.add_option("--emit-cuda-prelude", prelude_out,
                 "write slope_cuda_prelude.h, which -target cuda output includes, to this file "
                 "('-' for standard output)");
  app.add_option("file", input, "source file");
  app.add_option("--entry", entries,
                 "entry point to compile; needs only [numthreads]; repeatable (default: every "
                 "function marked [shader])")
      ->allow_extra_args(false);
  app.add_option("--stage", stage, "shader stage (compute)");
  app.add_option("--target", target,
                 "spirv, spirv-asm, glsl, cuda, ptx, host (also cpu, host-callable: LLVM "
                 "bitcode the CPU runtime runs), object (an ELF object), llvm-ir")
      ->check(CLI::IsMember({"spirv", "spirv-asm", "glsl", "cuda", "ptx", "host", "cpu",
                             "host-callable", "object", "llvm-ir"}));
  std::string profile;
  app.add_option("--profile", profile,
                 "the GPU the ptx target writes for: sm_XX (default sm_90); glsl_450 and "
                 "spirv_1_x are accepted for the other targets");
  app.add_option("-o", output, "output file ('-' for standard output)");
  app.add_flag("--skip-spirv-validation", skip_validation, "do not validate the SPIR-V output");
  app.add_flag("--no-codegen", no_codegen, "check the source only");
  std::string reflection_json;
  app.add_option("--reflection-json", reflection_json,
                 "write the parameters, their bindings and layouts, and the entry points as "
                 "JSON to this file ('-' for standard output)");
  slope::tools::CodegenFlags codegen;
  codegen.AddTo(app);
  bool debug_info = false;
  app.add_flag_callback("-g,--g1,--g2,--g3", [&debug_info] { debug_info = true; },
                        "emit NonSemantic.Shader.DebugInfo.100 (source, lines, functions)");
  app.add_flag_callback("--g0", [&debug_info] { debug_info = false; }, "no debug information");
  bool use_entrypoint_name = false;
  app.add_flag("--fvk-use-entrypoint-name", use_entrypoint_name,
               "keep the source name of a lone entry point instead of naming it 'main'");
  app.add_flag("--dump-ir", dump_ir, "print the IR after lowering");
  std::string dump_ir_after;
  app.add_option("--dump-ir-after", dump_ir_after,
                 "print the IR after the named pass of the target's pass list");
  bool dump_ast = false, parse_only = false;
  app.add_flag("--dump-ast", dump_ast, "print the syntax tree as parsed");
  app.add_flag("--parse-only", parse_only, "stop after parsing");
  app.add_option("--diagnostic-format", diag_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--error-limit", error_limit, "stop after this many errors (0 = no limit)");
  bool report_checkpoints = false;
  app.add_flag("--report-checkpoint-intermediates", report_checkpoints,
               "note, per backward derivative and source line, the bytes per thread it keeps "
               "for its reverse sweep");
  std::vector<std::string> include_paths, defines;
  bool preprocess_only = false;
  app.add_option("-I", include_paths, "add a directory to the #include search path")
      ->allow_extra_args(false);
  app.add_option("-D", defines, "define a macro: NAME (as 1) or NAME=VALUE")
      ->allow_extra_args(false);
  app.add_flag("-E", preprocess_only, "print the preprocessed source and stop");

  std::vector<std::string> args = slope::driver::NormalizeArgs(argc, argv);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!prelude_out.empty()) {
    std::string_view text = slope::targets::cuda::PreludeText();
    if (!WriteFile(prelude_out, text.data(), text.size())) {
      std::fprintf(stderr, "slopec: error: cannot write '%s'\n", prelude_out.c_str());
      return 1;
    }
    if (input.empty()) return 0;
  }
  if (input.empty()) {
    std::fprintf(stderr, "slopec: error: no input file\n");
    return 1;
  }
  if (stage != "compute") {
    std::fprintf(stderr, "slopec: error: unsupported stage '%s'; only 'compute' is supported\n",
                 stage.c_str());
    return 1;
  }

  slope::driver::CompileOptions options;
  options.input_path = input;
  options.entries = entries;
  options.stage = stage;
  options.validate_spirv = !skip_validation;
  codegen.ApplyTo(options);
  options.debug_info = debug_info;
  options.use_entrypoint_name = use_entrypoint_name;
  options.diag_format = diag_format == "json" ? slope::driver::DiagFormat::Json
                                              : slope::driver::DiagFormat::Text;
  options.error_limit = error_limit;
  options.report_checkpoint_intermediates = report_checkpoints;
  options.include_paths = include_paths;
  options.defines = defines;
  options.preprocess_only = preprocess_only;
  options.dump_ir_after = dump_ir_after;
  if (!dump_ir_after.empty()) dump_ir = true;
  options.target = parse_only   ? slope::driver::Target::Parse
                   : dump_ast   ? slope::driver::Target::Ast
                   : no_codegen ? slope::driver::Target::None
                   : dump_ir  ? slope::driver::Target::Ir
                   : target == "spirv-asm" ? slope::driver::Target::SpirVAsm
                   : target == "glsl"      ? slope::driver::Target::Glsl
                   : target == "cuda"      ? slope::driver::Target::Cuda
                   : target == "ptx"       ? slope::driver::Target::Ptx
                   : target == "object"    ? slope::driver::Target::Object
                   : target == "llvm-ir"   ? slope::driver::Target::LlvmIr
                   : target == "host" || target == "cpu" || target == "host-callable"
                       ? slope::driver::Target::Host
                                           : slope::driver::Target::SpirV;
  if (profile.rfind("sm_", 0) == 0) {
    bool digits = profile.size() > 3 &&
                  std::all_of(profile.begin() + 3, profile.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      std::fprintf(stderr, "slopec: error: -profile '%s': expected sm_ and a number, as sm_90\n",
                   profile.c_str());
      return 1;
    }
    options.gpu_arch = profile;
  }
  slope::driver::CompileResult result = slope::driver::Compile(options);
  if (preprocess_only) {
    if (output.empty()) output = "-";
    if (!WriteFile(output, result.text.data(), result.text.size())) {
      std::fprintf(stderr, "slopec: error: cannot write '%s'\n", output.c_str());
      return 1;
    }
    return result.ok ? 0 : 1;
  }
  if (!result.ok) return 1;
  if (!reflection_json.empty()) {
    if (options.target == slope::driver::Target::None ||
        options.target == slope::driver::Target::Parse ||
        options.target == slope::driver::Target::Ast) {
      std::fprintf(stderr, "slopec: error: -reflection-json needs code generation; drop "
                           "-no-codegen, -parse-only and -dump-ast\n");
      return 1;
    }
    std::string text = slope::driver::ReflectionToJson(result.reflection);
    if (!WriteFile(reflection_json, text.data(), text.size())) {
      std::fprintf(stderr, "slopec: error: cannot write '%s'\n", reflection_json.c_str());
      return 1;
    }
  }

  switch (options.target) {
    case slope::driver::Target::None:
    case slope::driver::Target::Parse:
      return 0;
    case slope::driver::Target::Ast:
    case slope::driver::Target::Ir:
    case slope::driver::Target::SpirVAsm:
    case slope::driver::Target::Glsl:
    case slope::driver::Target::Cuda:
    case slope::driver::Target::Ptx:
    case slope::driver::Target::LlvmIr:
      if (output.empty()) output = "-";
      if (!WriteFile(output, result.text.data(), result.text.size())) {
        std::fprintf(stderr, "slopec: error: cannot write '%s'\n", output.c_str());
        return 1;
      }
      return 0;
    case slope::driver::Target::Host:
    case slope::driver::Target::Object:
      if (output.empty()) output = "-";
      if (!WriteFile(output, result.binary.data(), result.binary.size())) {
        std::fprintf(stderr, "slopec: error: cannot write '%s'\n", output.c_str());
        return 1;
      }
      return 0;
    case slope::driver::Target::SpirV:
      if (output.empty()) output = "-";
      if (!WriteFile(output, result.spirv.data(), result.spirv.size() * sizeof(uint32_t))) {
        std::fprintf(stderr, "slopec: error: cannot write '%s'\n", output.c_str());
        return 1;
      }
      return 0;
  }
  return 0;
}
