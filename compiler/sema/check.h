#pragma once
// Semantic checking: a parsed ast::Module in, the same tree with every expression typed,
// every name resolved and every implicit conversion made explicit (ImplicitCastExpr).
// After a successful check, lowering can assume the tree is well formed.

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/sema/types.h"

namespace slope::sema {

/// What lowering needs from a checked module.
/// A use of a user-defined attribute (`[MaxValue(12, "scale")]`, declared by a struct
/// `MaxValueAttribute` marked `[__AttributeUsage(...)]`), for reflection.
struct UserAttributeUse {
  std::string name;         ///< "MaxValue": the struct's name without "Attribute"
  std::string target_kind;  ///< "var", "field", "function", "param" or "struct"
  std::string target;       ///< "scaleFactor", "S.radius", "main", "main.x", "S"
  /// One literal per field of the attribute struct, in field order: an IntLiteralExpr
  /// (an int field's value as the bits of an int64), FloatLiteralExpr, BoolLiteralExpr
  /// or StringLiteralExpr.
  std::vector<const ast::Expr*> args;
};

struct CheckedModule {
  std::vector<ast::FuncDecl*> functions;     ///< every function with a body, in source order
  /// Functions marked [shader("compute")] and those named by the EntryRequest.
  std::vector<ast::FuncDecl*> entry_points;
  std::vector<ast::VarDecl*> buffers;        ///< global buffer resources, in source order
  std::vector<ast::VarDecl*> groupshared;    ///< `groupshared` variables, in source order
  /// Non-const `static` globals (per-invocation private variables), in source order;
  /// each entry point starts by storing their initial values.
  std::vector<ast::VarDecl*> statics;
  /// Specialization constants (spec_id set), in source order.
  std::vector<ast::VarDecl*> spec_constants;
  /// Everything bound through a descriptor, in source order (binding numbers follow it):
  /// buffers (VarDecl), `cbuffer`s (AggregateDecl) and `ConstantBuffer<T>` (VarDecl).
  std::vector<ast::Decl*> resources;
  TypeContext* types = nullptr;              ///< the session's types (lowering specializes)
  /// Set when bodies were left unchecked (ModuleMap::deferred_bodies_file: the core
  /// library's): checks the body of `f` if it is one of them, the first time it is
  /// called for it, and returns false when that reported an error. Lowering calls it
  /// before lowering any function, so that only the bodies a compile uses are checked.
  /// Valid while the AstContext, TypeContext and DiagEngine of the check live.
  std::function<bool(const ast::FuncDecl* f)> check_deferred_body;
  /// Uses of user-defined attributes, in the order they were checked.
  std::vector<UserAttributeUse> user_attributes;
  /// Interfaces with [anyValueSize], in source order: their conforming types by
  /// conformance id (InterfaceInfo::dynamic_types), which reflection lists for the host.
  std::vector<const InterfaceInfo*> dynamic_interfaces;
};

/// The modules whose declarations were merged into one ast::Module (the core library,
/// imported modules, the file compiled), for access control across `import`s.
struct ModuleMap {
  struct Unit {
    std::string name;         ///< as imported ("a.b"), for messages
    bool all_public = false;  ///< no visibility modifier anywhere: every member is public
  };
  std::vector<Unit> units;
  /// (first file id, unit): files from that id up to the next entry's belong to that
  /// unit. Sorted by file id; files before the first entry belong to no unit.
  std::vector<std::pair<source::FileId, uint32_t>> file_starts;

  /// The unit a file belongs to, or -1.
  int UnitOf(source::FileId file) const;
  /// Functions declared in this file (the core library: known to check, and mostly
  /// unused by any one program) have their bodies checked when lowering first needs
  /// them (CheckedModule::check_deferred_body); 0: every body is checked at once.
  source::FileId deferred_bodies_file = 0;
  /// Called before a deferred body is checked: the driver parses it there when parsing
  /// left it too (parse::ParseOptions::deferred_bodies).
  std::function<void(const ast::FuncDecl* f)> prepare_deferred_body;
};

/// Which functions are entry points, as slangc decides: every function marked
/// `[shader("...")]`, plus each function named by `-entry` (with the stage of `-stage`),
/// which then needs no `[shader]` attribute, only `[numthreads]`.
struct EntryRequest {
  std::vector<std::string> names;  ///< -entry, in order; may be empty
  std::string stage = "compute";   ///< -stage, for entries without [shader]
  bool require_one = false;        ///< code is generated: no entry point at all is an error
  /// The file compiled: errors about entry points that are nowhere point at its start
  /// (0: unknown, unpositioned).
  source::FileId file = 0;
};

/// Checks `module`. Returns false when an error was reported. With `modules`, a
/// declaration of one unit that another unit uses must be visible to it (`public`, or
/// its unit has no visibility modifiers); without, every declaration is visible.
/// With `entries`, each requested entry point must exist, and a module with no entry
/// point at all is an error naming the functions that could be one.
bool CheckModule(ast::Module& module, ast::AstContext& ctx, TypeContext& types,
                 diag::DiagEngine& diags, CheckedModule* out,
                 const ModuleMap* modules = nullptr, const EntryRequest* entries = nullptr);

/// Parses a built-in type name ("float3", "uint") into a type, or null.
const Type* LookupBuiltinTypeName(TypeContext& types, std::string_view name);
/// Whether `name` spells a matrix type `<scalar>RxC` with R and C from 1 to 4 (the
/// 1xN and Nx1 forms included, which sema reports); sets the scalar and the sizes.
bool ParseMatrixTypeName(TypeContext& types, std::string_view name, const Type** scalar,
                         uint32_t* rows, uint32_t* cols);

/// Whether `var` is a `groupshared` global (a variable in workgroup memory).
bool IsGroupShared(const ast::VarDecl* var);
/// Whether `var` is a non-const `static` global (a variable in private memory).
bool IsPrivateGlobal(const ast::VarDecl* var);

/// The thread-group size written in [numthreads(x, y, z)]; checked by CheckModule.
std::array<uint32_t, 3> NumThreadsOf(const ast::FuncDecl& entry);
/// The subgroup size written in [WaveSize(n)] (checked by CheckModule); 0 without one.
uint32_t WaveSizeOf(const ast::FuncDecl& entry);

}  // namespace slope::sema
