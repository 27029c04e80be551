#pragma once
// Module files (`slopec -emit-module`): a module's files as the preprocessor left them,
// so that `import` reads them without the sources, their #includes or the preprocessor.
//
// A module file holds, for the module's primary file and each file it `__include`s (a
// "part"): the tokens preprocessing made, the text of every file those tokens come from
// (diagnostics quote it), the `#line` markers and `#pragma warning`s of those files,
// and the path and content hash of each file the part read. Paths are kept relative to
// the module file's directory, so a directory of modules can be moved or shipped
// without its sources. The file is keyed by the options preprocessing depends on (-D
// and -std) and by the compiler's token table: a module file made otherwise is not used.
// Parsing and checking run when the module is imported, with the importer's target.

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/preprocess/lexer.h"
#include "compiler/preprocess/preprocessor.h"
#include "compiler/source/source_manager.h"

namespace slope::driver {

/// The file name extension of module files, as Slang names its own.
inline constexpr const char* kModuleFileExtension = ".slang-module";

/// One file of a module, preprocessed.
struct ModulePart {
  std::string path;  ///< the file, as found
  /// ReadModuleFile: the part's file in the sources (its text as the module file holds it).
  source::FileId file = 0;
  int language_version = 2018;            ///< what its `#language` line (or -std) chose
  std::vector<preprocess::Token> tokens;  ///< ends with EndOfFile
  /// Every file the part read: its own path, then each file it #included.
  std::vector<std::string> files_read;
};

/// The key of the options preprocessing depends on.
uint64_t ModuleOptionsKey(const preprocess::PreprocessOptions& options);

/// The bytes of a module file holding `parts` (the primary file first), to be written
/// at `module_path`. Fails (false, `error` set) when a file the parts read cannot be
/// read again to take its hash.
bool SerializeModuleFile(const std::vector<ModulePart>& parts, const std::string& module_path,
                         const source::SourceManager& sources, const diag::DiagEngine& diags,
                         uint64_t options_key, std::string* bytes, std::string* error);

/// What reading a module file gave.
enum class ModuleFileStatus : uint8_t {
  Valid,     ///< its parts are usable
  Stale,     ///< a source it was made from exists and has changed since
  Mismatch,  ///< made with other -D or -std, or by a compiler with other tokens
  Corrupt,   ///< not a module file, or cut short
};

/// A module file read: its parts, their files added to the sources (each token's
/// location and text point into them), ready to parse. `why` says what made it unusable.
struct LoadedModuleFile {
  ModuleFileStatus status = ModuleFileStatus::Corrupt;
  std::string why;
  std::vector<ModulePart> parts;
};

/// Reads the module file at `module_path`. Unless it is Valid, nothing is added to
/// `sources` or `diags`. A source file it lists that no longer exists is not a reason to
/// refuse it (a module may be shipped without its sources); one that exists with other
/// contents is.
LoadedModuleFile ReadModuleFile(const std::string& module_path, uint64_t options_key,
                                source::SourceManager& sources, diag::DiagEngine& diags);

}  // namespace slope::driver
