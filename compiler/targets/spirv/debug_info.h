#pragma once
// -g: NonSemantic.Shader.DebugInfo.100 for the SPIR-V writer. The writer owns ids,
// constants and module sections; DebugInfo decides which debug instructions go where
// and hands back their words. The source language is recorded as HLSL (the closest
// value the SPIR-V 1.6 headers of Debian 12 define).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/source/source_manager.h"

namespace slope::targets::spirv {

/// What DebugInfo needs from the writer: fresh ids, uint constants, type ids, and
/// places to put instruction words.
struct DebugSink {
  std::function<uint32_t()> new_id;
  /// The id of a 32-bit unsigned OpConstant.
  std::function<uint32_t(uint32_t)> u32;
  /// The id of the SPIR-V type of an IR type.
  std::function<uint32_t(const ir::Type*)> type_id;
  /// The id of OpTypeVoid, the result type of every debug instruction.
  std::function<uint32_t()> void_type;
  /// Whole instructions (header word included) for the debug section (OpString).
  std::function<void(const std::vector<uint32_t>&)> strings;
  /// Whole instructions for the types-and-globals section.
  std::function<void(const std::vector<uint32_t>&)> globals;
  /// Whole instructions for the function being written.
  std::function<void(const std::vector<uint32_t>&)> code;
};

/// Writes one module's debug information.
class DebugInfo {
 public:
  /// `main_file` is the file compiled: its DebugSource carries the source text.
  DebugInfo(const source::SourceManager& sources, source::FileId main_file, DebugSink sink);

  /// The id the writer gives OpExtInstImport "NonSemantic.Shader.DebugInfo.100".
  uint32_t ImportId() const { return import_; }
  /// DebugSource of the compiled file and the DebugCompilationUnit; call once, after
  /// the import.
  void Begin();
  /// DebugTypeFunction and DebugFunction for `f` (global section), before its body.
  void DeclareFunction(const ir::Function& f, uint32_t function_id);
  /// DebugFunctionDefinition: in `f`'s entry block, after its OpVariables.
  void DefineFunction(const ir::Function& f, uint32_t function_id);
  /// DebugScope of the current function: at the start of each block (after OpPhi).
  void EnterBlock(const ir::Function& f);
  /// DebugLine for `loc` when it differs from the last one of this block.
  void Line(source::SourceLoc loc);

 private:
  uint32_t Ext(uint32_t type, uint32_t id, uint32_t which, std::vector<uint32_t> operands,
               bool global);
  uint32_t String(const std::string& text);
  uint32_t SourceOf(source::FileId file);
  uint32_t DebugTypeOf(const ir::Type* t);

  const source::SourceManager& sources_;
  source::FileId main_file_;
  DebugSink sink_;
  uint32_t import_ = 0;
  uint32_t unit_ = 0;
  uint32_t none_ = 0;
  std::map<source::FileId, uint32_t> sources_ids_;
  std::map<const ir::Type*, uint32_t> types_;
  std::map<const ir::Function*, uint32_t> functions_;
  uint32_t scope_ = 0;
  uint32_t line_source_ = 0;
  uint32_t line_ = 0;
  uint32_t column_ = 0;
};

}  // namespace slope::targets::spirv
