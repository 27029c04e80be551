#pragma once
// The module-level half of writing an IR module as C-like source text, shared by the
// GLSL and CUDA C++ writers: which functions an entry point reaches, which globals they
// use, the names given to structs, members, globals and functions, and the struct
// declarations.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/ctext/names.h"

namespace slope::targets::ctext {

/// `roots` and every function they call, in module order.
std::vector<const ir::Function*> Reachable(const ir::Module& module,
                                           const std::vector<const ir::Function*>& roots);

/// The globals `functions` use: a kernel declares only the resources it reaches.
std::set<const ir::Global*> UsedGlobals(const std::vector<const ir::Function*>& functions);

/// True when a resource (buffer, texture, sampler) is part of `t` (an array or struct
/// holding one): such a struct existed only before the passes split it into its members,
/// and no value has its type.
bool HoldsBuffer(const ir::Type* t);

/// The identifiers given to the module's structs, members, globals and functions, each
/// legal in the language and unique where it must be.
class ModuleNames {
 public:
  /// `function_name` may choose a function's name (an entry point written as `main`);
  /// when it returns an empty string the table makes one from the function's name.
  ModuleNames(const ir::Module& module, std::vector<std::string_view> reserved_words,
              std::vector<std::string_view> reserved_prefixes,
              const std::function<std::string(const ir::Function&)>& function_name = {});

  const std::string& StructName(const ir::Type* s) const { return struct_names_.at(s); }
  const std::string& MemberName(const ir::Type* s, size_t i) const {
    return member_names_.at(s)[i];
  }
  const std::string& FunctionName(const ir::Function* f) const { return function_names_.at(f); }
  const std::string& GlobalName(const ir::Global* g) const { return global_names_.at(g); }
  /// The names every function must avoid (the module's, the language's).
  const NameTable& Table() const { return names_; }
  /// A new module-level name close to `hint`.
  std::string NewName(std::string_view hint) { return names_.Make(hint); }

 private:
  NameTable names_;
  std::map<const ir::Type*, std::string> struct_names_;
  std::map<const ir::Type*, std::vector<std::string>> member_names_;
  std::map<const ir::Function*, std::string> function_names_;
  std::map<const ir::Global*, std::string> global_names_;
};

/// The declarations of the module's structs that hold no buffer, in the order the type
/// table made them (a struct's member types come before it): `struct NAME {` (after
/// `prefix`, e.g. an alignment), one line per member as `member` declares it (ending in
/// `;`), then `};`. A struct without members gets one `int` member, as C requires.
std::string WriteStructs(const ir::Module& module, const ModuleNames& names,
                         const std::function<std::string(const ir::Type* s, size_t i)>& member,
                         const std::string& indent = "");

}  // namespace slope::targets::ctext
