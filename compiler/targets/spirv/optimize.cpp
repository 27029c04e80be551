#include "compiler/targets/spirv/optimize.h"

#include <algorithm>

#include <spirv-tools/libspirv.hpp>
#include <spirv/unified1/spirv.hpp11>
#include <spirv-tools/optimizer.hpp>

namespace slope::targets::spirv {

namespace {

/// Every pass of `level`, whatever the module.
std::vector<std::string> LevelPassFlags(OptLevel level) {
  if (level == OptLevel::O0) return {};
  // --simplify-instructions is left out at every level: its folding rules reassociate
  // floating-point arithmetic ((x * c1) * c2 -> x * (c1 * c2)), which changes results in
  // the last bits. Every pass below keeps the value each float operation computes.
  // O1: what a load/store-heavy module needs after Slope's own passes: locals to SSA,
  // constants propagated, dead branches, code and blocks removed.
  std::vector<std::string> flags = {
      "--eliminate-dead-branches",
      "--merge-blocks",
      "--eliminate-dead-functions",
      "--private-to-local",
      "--eliminate-local-single-block",
      "--eliminate-local-single-store",
      "--eliminate-dead-code-aggressive",
      "--ssa-rewrite",
      "--eliminate-dead-code-aggressive",
      "--ccp",
      "--eliminate-dead-branches",
      "--eliminate-dead-inserts",
      "--eliminate-dead-code-aggressive",
      "--merge-blocks",
      "--cfg-cleanup",
  };
  if (level == OptLevel::O1) return flags;
  // O2: aggregates split, common subexpressions and redundant access chains removed,
  // loop-invariant code hoisted, vectors trimmed. Every pass here is linear or close to
  // it in the module's size; none copies a function body or a loop.
  const std::vector<std::string> o2 = {
      "--scalar-replacement=100",
      "--ssa-rewrite",
      "--combine-access-chains",
      "--convert-local-access-chains",
      "--eliminate-local-single-block",
      "--eliminate-local-single-store",
      "--copy-propagate-arrays",
      "--eliminate-insert-extract",
      "--local-redundancy-elimination",
      "--redundancy-elimination",
      "--loop-invariant-code-motion",
      "--if-conversion",
      "--reduce-load-size",
      "--strength-reduction",
      "--vector-dce",
      "--eliminate-dead-code-aggressive",
      "--eliminate-dead-branches",
      "--merge-blocks",
      "--cfg-cleanup",
      "--eliminate-dead-const",
  };
  flags.insert(flags.end(), o2.begin(), o2.end());
  if (level == OptLevel::O2) return flags;
  // O3: a second round (what the first exposed), then code sinking.
  flags.insert(flags.end(), o2.begin(), o2.end());
  flags.push_back("--code-sink");
  flags.push_back("--eliminate-dead-code-aggressive");
  return flags;
}

}  // namespace

ModuleShape MeasureModule(const std::vector<uint32_t>& words) {
  ModuleShape shape;
  shape.words = words.size();
  shape.local_variables = 0;
  // After the 5-word header, each instruction's first word holds its word count (high
  // half) and opcode (low half). OpSwitch: selector, default, then (literal, label) pairs.
  for (size_t at = 5; at < words.size();) {
    uint32_t count = words[at] >> 16;
    auto op = static_cast<spv::Op>(words[at] & 0xffff);
    if (count == 0) break;
    if (op == spv::Op::OpFunction) ++shape.functions;
    if (op == spv::Op::OpVariable && count >= 4) {
      auto storage = static_cast<spv::StorageClass>(words[at + 3]);
      if (storage == spv::StorageClass::Function || storage == spv::StorageClass::Private) {
        ++shape.local_variables;
      }
    }
    if (op == spv::Op::OpSwitch && count >= 3) {
      shape.largest_switch = std::max<size_t>(shape.largest_switch, 1 + (count - 3) / 2);
    }
    at += count;
  }
  return shape;
}

std::vector<std::string> OptimizerPassFlags(OptLevel level, const ModuleShape& shape) {
  if (level == OptLevel::O1 && shape.words > kDefaultLevelMostWords) return {};
  // What is left to the list at O1 is putting Function and Private variables in SSA form
  // (optimize.h): Slope's writer already merges loop blocks and writes constant
  // composites, and its passes fold, propagate and remove dead code.
  if (level == OptLevel::O1 && shape.local_variables == 0) return {};
  std::vector<std::string> flags = LevelPassFlags(level);
  const bool large = shape.words > kFullListMostWords;
  std::erase_if(flags, [&](const std::string& flag) {
    return (flag == "--ccp" && (large || shape.functions > kCcpMostFunctions)) ||
           (flag == "--ssa-rewrite" && shape.largest_switch > kSsaRewriteLargestSwitch) ||
           (large &&
            (flag == "--eliminate-local-single-block" || flag == "--eliminate-local-single-store"));
  });
  if (large) {
    const std::string adce = "--eliminate-dead-code-aggressive";
    auto last = std::find(flags.rbegin(), flags.rend(), adce);
    if (last != flags.rend()) {
      size_t keep = static_cast<size_t>(flags.rend() - last) - 1;
      for (size_t i = keep; i-- > 0;) {
        if (flags[i] == adce) flags.erase(flags.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  return flags;
}

bool OptimizeSpirv(std::vector<uint32_t>* words, OptLevel level, bool scalar_layout,
                   std::string* message) {
  std::vector<std::string> flags = OptimizerPassFlags(level, MeasureModule(*words));
  if (flags.empty()) return true;
  spvtools::Optimizer optimizer(SPV_ENV_VULKAN_1_1);
  std::string collected;
  optimizer.SetMessageConsumer([&](spv_message_level_t severity, const char*,
                                   const spv_position_t&, const char* text) {
    if (severity > SPV_MSG_ERROR) return;  // warnings and notes are not failures
    if (!collected.empty()) collected += "; ";
    collected += text;
  });
  if (!optimizer.RegisterPassesFromFlags(flags)) {
    *message = "the optimizer rejected its pass list: " + collected;
    return false;
  }
  spvtools::ValidatorOptions validator_options;
  validator_options.SetScalarBlockLayout(scalar_layout);
  spvtools::OptimizerOptions options;
  options.set_run_validator(false);  // the caller validated the input
  options.set_validator_options(validator_options);
  // Reflection names every binding; keep the variables even when the code no longer
  // reads them, so the layout the host sees does not depend on the level.
  options.set_preserve_bindings(true);
  std::vector<uint32_t> optimized;
  if (!optimizer.Run(words->data(), words->size(), &optimized, options)) {
    *message = collected.empty() ? "the SPIR-V optimizer failed" : collected;
    return false;
  }
  *words = std::move(optimized);
  return true;
}

}  // namespace slope::targets::spirv
