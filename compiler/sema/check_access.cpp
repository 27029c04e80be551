// Access control across imported modules: a declaration without `public` belongs to its
// module (`internal` is the default, for struct members too; `private` is no wider),
// unless its module uses no visibility modifier at all, in which case every declaration
// is public. Requirements of an interface take the interface's visibility. A declaration
// of a `__file_decl` block is hidden from the code of the file's other such blocks.

#include <algorithm>

#include "compiler/sema/checker.h"

namespace slope::sema {

using diag::DiagId;

namespace {
constexpr uint32_t kVisibility = ast::kModPublic | ast::kModInternal | ast::kModPrivate;
}  // namespace

int ModuleMap::UnitOf(source::FileId file) const {
  auto it = std::upper_bound(file_starts.begin(), file_starts.end(), file,
                             [](source::FileId f, const auto& start) { return f < start.first; });
  if (it == file_starts.begin()) return -1;
  return static_cast<int>(std::prev(it)->second);
}

bool Checker::IsAccessible(const ast::Decl* decl, source::SourceRange use) const {
  if (modules_ == nullptr || decl == nullptr) return true;
  int owner = modules_->UnitOf(decl->name_range.begin.file);
  int user = modules_->UnitOf(use.begin.file);
  if (owner < 0 || user < 0 || owner == user) return true;
  if (modules_->units[static_cast<size_t>(owner)].all_public) return true;
  uint32_t modifiers = decl->modifiers & kVisibility;
  // An interface's requirements without a modifier are as visible as the interface.
  if (modifiers == 0 && decl->kind == ast::DeclKind::Func) {
    const ast::AggregateDecl* parent = static_cast<const ast::FuncDecl*>(decl)->parent;
    if (parent != nullptr && parent->kind == ast::DeclKind::Interface) {
      modifiers = parent->modifiers;
    }
  }
  return (modifiers & ast::kModPublic) != 0;
}

bool Checker::CheckAccess(const ast::Decl* decl, source::SourceRange use) {
  // `__file_decl { ... }`: its declarations are global, but code in another such block
  // of the same file does not see them.
  const ast::FuncDecl* user = current_function_;
  if (decl != nullptr && decl->file_block != 0 && user != nullptr && user->file_block != 0 &&
      user->file_block != decl->file_block &&
      user->name_range.begin.file == decl->name_range.begin.file) {
    diags_.Report(DiagId::FileDeclHidden, use, decl->name)
        .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
    return false;
  }
  if (IsAccessible(decl, use)) return true;
  const ModuleMap::Unit& owner =
      modules_->units[static_cast<size_t>(modules_->UnitOf(decl->name_range.begin.file))];
  const char* level = (decl->modifiers & ast::kModPrivate) != 0 ? "private" : "internal";
  diags_.Report(DiagId::NotAccessible, use, decl->name, level, owner.name)
      .Note(DiagId::DeclaredHere, decl->name_range, decl->name);
  return false;
}

}  // namespace slope::sema
