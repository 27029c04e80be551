// slope-opt: reads Slope IR text, runs the named passes in order (verifying the module
// after each one) and prints the IR. The file tests of every pass use it:
//   slope-opt FILE|- -passes=mem2reg,fold -o OUT

#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "compiler/base/ice.h"
#include "tools/common/tool_main.h"
#include "compiler/diag/diag.h"
#include "compiler/driver/args.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "compiler/autodiff/passes.h"
#include "compiler/passes/passes.h"

namespace {

/// Splits "a,b,c" into its non-empty names.
std::vector<std::string> SplitNames(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

int SlopeOptMain(int argc, char** argv) {
  slope::autodiff::RegisterPasses();
  namespace diag = slope::diag;
  CLI::App app{"slope-opt: run Slope IR passes on IR text"};
  std::string input = "-", pass_list, output = "-";
  app.add_option("file", input, "IR file ('-' or nothing for standard input)");
  app.add_option("--passes", pass_list,
                 "comma-separated passes to run in order: " + slope::passes::PassNames());
  app.add_option("-o", output, "output file ('-' for standard output)");
  slope::passes::Options options;
  app.add_option("--inline-threshold", options.inline_threshold,
                 "inline: the largest callee (in instructions) inlined without [ForceInline]");
  app.add_option("--unroll-budget", options.unroll_budget,
                 "unroll: the most instructions the copies of one unrolled loop may add");
  app.add_option("--call-chain-budget", options.call_chain_budget,
                 "inline-call-chains: the call graph depth (summed over functions) left alone");
  std::vector<std::string> args = slope::driver::NormalizeArgs(argc, argv);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  slope::source::SourceManager sources;
  diag::DiagEngine diags(sources, std::cerr);
  std::vector<const slope::passes::PassInfo*> passes;
  for (const std::string& name : SplitNames(pass_list)) {
    const slope::passes::PassInfo* pass = slope::passes::FindPass(name);
    if (pass == nullptr) {
      diags.Report(diag::DiagId::IrUnknownPass, slope::source::SourceRange(), name,
                   slope::passes::PassNames());
      return 1;
    }
    passes.push_back(pass);
  }
  slope::source::FileId file = 0;
  if (input == "-") {
    std::string text(std::istreambuf_iterator<char>(std::cin), {});
    file = sources.AddFile("<stdin>", std::move(text));
  } else {
    file = sources.LoadFile(input);
  }
  if (file == 0) {
    diags.Report(diag::DiagId::CannotOpenFile, slope::source::SourceRange(), input);
    return 1;
  }
  slope::base::IceLocationScope ice(input);
  std::unique_ptr<slope::ir::Module> module = slope::ir::ParseModule(file, diags);
  if (module == nullptr) return 1;
  options.diags = &diags;
  for (const slope::passes::PassInfo* pass : passes) {
    pass->run(*module, options);
    slope::ir::VerifyOrIce(*module, pass->name);
    if (diags.HasErrors()) return 1;
  }
  std::string text = slope::ir::PrintModule(*module);
  if (output == "-") {
    std::cout << text;
    return std::cout.good() ? 0 : 1;
  }
  std::ofstream out(output, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "slope-opt: error: cannot write '" << output << "'\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return slope::tools::RunToolMain(argc, argv, SlopeOptMain); }
