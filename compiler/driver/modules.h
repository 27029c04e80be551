#pragma once
// `import`: finds, loads, preprocesses and parses the modules a file imports, each once
// per compile session, and puts their declarations in dependency order.

#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/driver/module_file.h"
#include "compiler/parse/parser.h"
#include "compiler/preprocess/preprocessor.h"
#include "compiler/sema/check.h"
#include "compiler/source/source_manager.h"

namespace slope::driver {

/// Every module of a compile after ImportModules.
struct ModuleGraph {
  /// The declarations of every module, each module after the modules it imports, the
  /// file compiled last; `import` declarations are left out.
  std::vector<ast::Decl*> decls;
  /// Which files belong to which module, for access control in sema.
  sema::ModuleMap map;
};

/// Resolves the imports of `main` (parsed from `main_file`) and, transitively, of the
/// modules it imports. `import a.b;` names `a/b.slang` (or `a/b.slang` with `_` spelled
/// `-`), `import "dir/m.slang";` a path; either is searched in the importing file's
/// directory, then in `pp_options.include_paths`. Each module is preprocessed with
/// `pp_options` (the command line's -D and -I, nothing from the importer) and parsed.
/// A module reached twice is loaded once; a cycle or a module not found is reported at
/// the `import`. Appends each module file, then the files it #includes, to `files_read`.
/// A module file (module_file.h) beside a module's primary file is read instead of its
/// sources when it is valid, and stands for them when they are missing. With `capture`,
/// each file `main` `__include`s is appended there as preprocessed (-emit-module).
/// Returns false when an error was reported.
bool ImportModules(source::SourceManager& sources, ast::AstContext& ctx, diag::DiagEngine& diags,
                   const preprocess::PreprocessOptions& pp_options,
                   const parse::ParseOptions& parse_options, source::FileId main_file,
                   ast::Module* main, std::vector<std::string>* files_read, ModuleGraph* out,
                   std::vector<ModulePart>* capture = nullptr);

/// Whether any declaration of `module` (members included) carries `public`, `internal`
/// or `private`. A module without any is a legacy module: all of it is public.
bool UsesVisibilityModifiers(const ast::Module& module);

}  // namespace slope::driver
