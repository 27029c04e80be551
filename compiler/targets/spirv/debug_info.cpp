#include "compiler/targets/spirv/debug_info.h"

#include <spirv/unified1/NonSemanticShaderDebugInfo100.h>
#include <spirv/unified1/spirv.hpp11>


namespace slope::targets::spirv {
namespace {

std::vector<uint32_t> Instruction(spv::Op op, std::vector<uint32_t> operands) {
  operands.insert(operands.begin(),
                  static_cast<uint32_t>(operands.size() + 1) << 16 | static_cast<uint32_t>(op));
  return operands;
}

std::vector<uint32_t> LiteralString(const std::string& s) {
  std::vector<uint32_t> words(s.size() / 4 + 1, 0);
  for (size_t i = 0; i < s.size(); ++i) {
    words[i / 4] |= static_cast<uint32_t>(static_cast<unsigned char>(s[i])) << (8 * (i % 4));
  }
  return words;
}

// One instruction holds at most 65,535 words; source text beyond what fits in the first
// OpString goes on in DebugSourceContinued instructions.
constexpr size_t kTextChunk = 65000 * 4;

}  // namespace

DebugInfo::DebugInfo(const source::SourceManager& sources, source::FileId main_file,
                     DebugSink sink)
    : sources_(sources), main_file_(main_file), sink_(std::move(sink)) {
  import_ = sink_.new_id();
}

uint32_t DebugInfo::Ext(uint32_t type, uint32_t id, uint32_t which,
                        std::vector<uint32_t> operands, bool global) {
  operands.insert(operands.begin(), {type, id, import_, which});
  std::vector<uint32_t> words = Instruction(spv::Op::OpExtInst, std::move(operands));
  if (global) {
    sink_.globals(words);
  } else {
    sink_.code(words);
  }
  return id;
}

uint32_t DebugInfo::String(const std::string& text) {
  uint32_t id = sink_.new_id();
  std::vector<uint32_t> operands = LiteralString(text);
  operands.insert(operands.begin(), id);
  sink_.strings(Instruction(spv::Op::OpString, std::move(operands)));
  return id;
}

uint32_t DebugInfo::SourceOf(source::FileId file) {
  auto it = sources_ids_.find(file);
  if (it != sources_ids_.end()) return it->second;
  uint32_t path = String(sources_.Path(file));
  std::vector<uint32_t> operands{path};
  std::vector<uint32_t> rest;  // the string ids of DebugSourceContinued
  // Only the compiled file carries its text: the core library and imported modules are
  // named, so a debugger can find them, without copying them into every module.
  if (file == main_file_) {
    std::string_view text = sources_.Text(file);
    operands.push_back(String(std::string(text.substr(0, kTextChunk))));
    for (size_t at = kTextChunk; at < text.size(); at += kTextChunk) {
      rest.push_back(String(std::string(text.substr(at, kTextChunk))));
    }
  }
  uint32_t void_type = sink_.void_type();
  uint32_t id = Ext(void_type, sink_.new_id(), NonSemanticShaderDebugInfo100DebugSource,
                    operands, true);
  for (uint32_t chunk : rest) {
    Ext(void_type, sink_.new_id(), NonSemanticShaderDebugInfo100DebugSourceContinued, {chunk},
        true);
  }
  sources_ids_[file] = id;
  return id;
}

void DebugInfo::Begin() {
  uint32_t source = SourceOf(main_file_);
  std::vector<uint32_t> operands{sink_.u32(100), sink_.u32(5), source,
                                 sink_.u32(static_cast<uint32_t>(spv::SourceLanguage::HLSL))};
  unit_ = Ext(sink_.void_type(), sink_.new_id(),
              NonSemanticShaderDebugInfo100DebugCompilationUnit, operands, true);
}

uint32_t DebugInfo::DebugTypeOf(const ir::Type* t) {
  auto it = types_.find(t);
  if (it != types_.end()) return it->second;
  uint32_t id = 0;
  if (t->IsVoid()) {
    id = sink_.void_type();
  } else if (t->IsVector()) {
    uint32_t element = DebugTypeOf(t->Element());
    id = Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugTypeVector,
             {element, sink_.u32(t->Count())}, true);
  } else if (t->IsBool() || t->IsInt() || t->IsFloat()) {
    uint32_t encoding = t->IsBool()     ? NonSemanticShaderDebugInfo100Boolean
                        : t->IsFloat()  ? NonSemanticShaderDebugInfo100Float
                        : t->IsSigned() ? NonSemanticShaderDebugInfo100Signed
                                        : NonSemanticShaderDebugInfo100Unsigned;
    uint32_t bits = t->IsBool() ? 32 : t->Width();
    id = Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugTypeBasic,
             {String(t->Name()), sink_.u32(bits), sink_.u32(encoding),
              sink_.u32(NonSemanticShaderDebugInfo100None)},
             true);
  } else if (t->IsArray() || t->IsMatrix()) {
    // A matrix is described as the array of its rows, as the IR holds it.
    uint32_t element = DebugTypeOf(t->Element());
    id = Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugTypeArray,
             {element, sink_.u32(t->Count())}, true);
  } else if (t->IsPointer() && !t->Element()->IsScalar()) {
    // DebugTypePointer takes a basic type only: an `inout` struct, array or vector is
    // described by the type it points at.
    id = DebugTypeOf(t->Element());
  } else if (t->IsPointer()) {
    uint32_t element = DebugTypeOf(t->Element());
    spv::StorageClass sc = spv::StorageClass::StorageBuffer;
    switch (t->Space()) {
      case ir::AddressSpace::Function: sc = spv::StorageClass::Function; break;
      case ir::AddressSpace::Workgroup: sc = spv::StorageClass::Workgroup; break;
      case ir::AddressSpace::Private: sc = spv::StorageClass::Private; break;
      case ir::AddressSpace::Uniform: sc = spv::StorageClass::Uniform; break;
      case ir::AddressSpace::PushConstant: sc = spv::StorageClass::PushConstant; break;
      default: break;
    }
    id = Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugTypePointer,
             {element, sink_.u32(static_cast<uint32_t>(sc)),
              sink_.u32(NonSemanticShaderDebugInfo100None)},
             true);
  } else {
    // Structs and resources: a named composite, without its members (their offsets and
    // sizes depend on where a value lives).
    if (none_ == 0) {
      none_ = Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugInfoNone,
                  {}, true);
    }
    uint32_t name = String(t->IsStruct() ? t->StructName() : t->Name());
    id = Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugTypeComposite,
             {name, sink_.u32(NonSemanticShaderDebugInfo100Structure), SourceOf(main_file_),
              sink_.u32(0), sink_.u32(0), unit_, name, none_,
              sink_.u32(NonSemanticShaderDebugInfo100None)},
             true);
  }
  types_[t] = id;
  return id;
}

void DebugInfo::DeclareFunction(const ir::Function& f, uint32_t function_id) {
  (void)function_id;
  std::vector<uint32_t> type_operands{sink_.u32(NonSemanticShaderDebugInfo100None),
                                      DebugTypeOf(f.ResultType())};
  if (!f.is_entry) {
    for (const ir::Param* p : f.params) type_operands.push_back(DebugTypeOf(p->GetType()));
  }
  uint32_t type = Ext(sink_.void_type(), sink_.new_id(),
                      NonSemanticShaderDebugInfo100DebugTypeFunction, type_operands, true);
  source::SourceLoc loc = f.blocks.empty() || f.blocks.front()->insts.empty()
                              ? source::SourceLoc()
                              : f.blocks.front()->insts.front()->loc;
  for (const ir::Block* b : f.blocks) {
    for (const ir::Inst* inst : b->insts) {
      if (inst->loc.IsValid()) {
        loc = inst->loc;
        break;
      }
    }
    if (loc.IsValid()) break;
  }
  uint32_t line = 0, column = 0;
  uint32_t source = SourceOf(main_file_);
  if (loc.IsValid()) {
    source::LineCol lc = sources_.GetLineCol(loc);
    line = lc.line;
    column = lc.column;
    source = SourceOf(loc.file);
  }
  uint32_t name = String(f.Name());
  uint32_t id = Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugFunction,
                    {name, type, source, sink_.u32(line), sink_.u32(column), unit_, name,
                     sink_.u32(NonSemanticShaderDebugInfo100FlagIsDefinition), sink_.u32(line)},
                    true);
  functions_[&f] = id;
}

void DebugInfo::DefineFunction(const ir::Function& f, uint32_t function_id) {
  Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugFunctionDefinition,
      {functions_.at(&f), function_id}, false);
}

void DebugInfo::EnterBlock(const ir::Function& f) {
  scope_ = functions_.at(&f);
  Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugScope, {scope_},
      false);
  line_source_ = line_ = column_ = 0;
}

void DebugInfo::Line(source::SourceLoc loc) {
  if (!loc.IsValid()) return;
  source::LineCol lc = sources_.GetLineCol(loc);
  uint32_t source = SourceOf(loc.file);
  if (source == line_source_ && lc.line == line_ && lc.column == column_) return;
  line_source_ = source;
  line_ = lc.line;
  column_ = lc.column;
  Ext(sink_.void_type(), sink_.new_id(), NonSemanticShaderDebugInfo100DebugLine,
      {source, sink_.u32(line_), sink_.u32(line_), sink_.u32(column_), sink_.u32(column_)},
      false);
}

}  // namespace slope::targets::spirv
