#include "compiler/driver/modules.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "compiler/driver/module_file.h"
#include "compiler/parse/parser.h"

namespace slope::driver {
namespace fs = std::filesystem;

using diag::DiagId;

namespace {

/// The file names an import may refer to, relative to a search directory: `a.b` is
/// `a/b.slang` (then `a/b.slang` with `_` spelled `-`, as Slang names files); a string
/// is a path, `.slang` added when missing.
std::vector<fs::path> CandidateNames(const std::string& name) {
  if (!name.empty() && name.front() == '"') {
    std::string path = name.substr(1, name.size() >= 2 ? name.size() - 2 : 0);
    if (fs::path(path).extension() != ".slang") path += ".slang";
    return {fs::path(path)};
  }
  std::string path = name;
  std::replace(path.begin(), path.end(), '.', '/');
  std::vector<fs::path> names{fs::path(path + ".slang")};
  if (path.find('_') != std::string::npos) {
    std::replace(path.begin(), path.end(), '_', '-');
    names.push_back(fs::path(path + ".slang"));
  }
  return names;
}

/// A name for a module in messages: the import as written, without quotes.
std::string DisplayName(const std::string& import_name) {
  if (!import_name.empty() && import_name.front() == '"' && import_name.size() >= 2) {
    return import_name.substr(1, import_name.size() - 2);
  }
  return import_name;
}

/// One path per file, whichever way it was reached: the key modules are deduplicated by.
std::string Key(const fs::path& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path.lexically_normal().string() : canonical.string();
}

bool UsesModifiers(const std::vector<ast::Decl*>& decls) {
  constexpr uint32_t kVisibility = ast::kModPublic | ast::kModInternal | ast::kModPrivate;
  for (const ast::Decl* decl : decls) {
    if (decl == nullptr) continue;
    if ((decl->modifiers & kVisibility) != 0) return true;
    switch (decl->kind) {
      case ast::DeclKind::Struct:
      case ast::DeclKind::Interface:
      case ast::DeclKind::Extension:
      case ast::DeclKind::Namespace:
      case ast::DeclKind::BufferBlock:
        if (UsesModifiers(static_cast<const ast::AggregateDecl*>(decl)->members)) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

/// Loads modules depth-first: a module's imports are loaded, in order, before it is
/// appended to the order.
class Loader {
 public:
  Loader(source::SourceManager& sources, ast::AstContext& ctx, diag::DiagEngine& diags,
         const preprocess::PreprocessOptions& pp_options, const parse::ParseOptions& parse_options,
         std::vector<std::string>* files_read, std::vector<ModulePart>* capture)
      : sources_(sources),
        ctx_(ctx),
        diags_(diags),
        pp_options_(pp_options),
        parse_options_(parse_options),
        files_read_(files_read),
        capture_(capture),
        options_key_(ModuleOptionsKey(pp_options)) {}

  void Run(source::FileId main_file, ast::Module* main, ModuleGraph* out) {
    const std::string& path = sources_.Path(main_file);
    uint32_t id = AddUnit(fs::path(path).stem().string(), Key(path), main_file, main);
    Visit(id);
    for (uint32_t unit : order_) {
      for (ast::Decl* decl : units_[unit].ast->decls) {
        if (decl->kind != ast::DeclKind::Import) out->decls.push_back(decl);
      }
    }
    for (uint32_t unit = 0; unit < units_.size(); ++unit) {
      // A legacy module (before Slang 2025) without visibility modifiers is all public.
      const ast::Module& m = *units_[unit].ast;
      bool all_public = m.language_version < 2025 && !UsesVisibilityModifiers(m);
      out->map.units.push_back({units_[unit].name, all_public});
      out->map.file_starts.emplace_back(units_[unit].first_file, unit);
    }
    // A file `__include`d is part of the module that includes it.
    for (auto [file, unit] : included_) out->map.file_starts.emplace_back(file, unit);
    std::sort(out->map.file_starts.begin(), out->map.file_starts.end());
  }

 private:
  struct Unit {
    std::string name;  ///< as first imported, for messages
    source::FileId first_file;
    ast::Module* ast;
    bool done = false;
  };

  uint32_t AddUnit(std::string name, std::string key, source::FileId file, ast::Module* module) {
    auto id = static_cast<uint32_t>(units_.size());
    units_.push_back({std::move(name), file, module});
    by_key_.emplace(std::move(key), id);
    return id;
  }

  void Visit(uint32_t id) {
    stack_.push_back(id);
    // Copied: loading a module appends to units_. Each declaration with the directory
    // of its file: a file `__include`d adds its declarations (after the others).
    fs::path dir = fs::path(sources_.Path(units_[id].first_file)).parent_path();
    std::vector<std::pair<ast::Decl*, fs::path>> work;
    for (ast::Decl* decl : units_[id].ast->decls) work.emplace_back(decl, dir);
    for (size_t i = 0; i < work.size(); ++i) {
      if (diags_.LimitReached()) break;
      ast::Decl* decl = work[i].first;
      if (decl->kind != ast::DeclKind::Import) continue;
      auto form = static_cast<ast::ImportDecl*>(decl)->form;
      if (form == ast::ImportDecl::Form::Include) {
        fs::path from = work[i].second;  // `work` grows below
        if (ast::Module* part = Include(decl, from, id)) {
          fs::path part_dir = fs::path(sources_.Path(included_.back().first)).parent_path();
          for (ast::Decl* d : part->decls) {
            units_[id].ast->decls.push_back(d);
            work.emplace_back(d, part_dir);
          }
        }
        continue;
      }
      if (form != ast::ImportDecl::Form::Import) continue;  // `module` / `implementing`
      std::optional<uint32_t> imported = Import(decl, work[i].second);
      if (imported && !units_[*imported].done) ReportCycle(decl, *imported);
    }
    stack_.pop_back();
    units_[id].done = true;
    order_.push_back(id);
  }

  /// The file `decl` (an import or an `__include`) names, searched next to its file
  /// (`dir`) and then on the include path; nullopt after reporting that it is nowhere.
  /// For an import (`modules`), a module file `NAME.slang-module` beside `NAME.slang` is
  /// used when it is valid, and stands for the source when the source is not there; a
  /// module file that is not valid where the source is missing is an error at `decl`.
  std::optional<fs::path> Find(const ast::Decl* decl, const fs::path& dir, bool modules) {
    std::vector<fs::path> dirs{dir};
    for (const std::string& p : pp_options_.include_paths) dirs.emplace_back(p);
    std::string searched;
    for (const fs::path& d : dirs) {
      for (const fs::path& name : CandidateNames(decl->name)) {
        fs::path path = d / name;
        if (parts_.count(Key(path)) != 0) return path;  // a part of a module file read
        std::error_code ec;
        bool source = fs::is_regular_file(path, ec);
        fs::path module = fs::path(path).replace_extension(kModuleFileExtension);
        if (modules && fs::is_regular_file(module, ec)) {
          if (UseModuleFile(module, path)) return path;
          if (!source) {
            diags_.Report(DiagId::ModuleFileUnusable, decl->name_range, module.string(),
                          last_refusal_);
            return std::nullopt;
          }
        }
        if (source) return path;
        searched += (searched.empty() ? "'" : ", '") + path.string() + "'";
      }
    }
    diags_.Report(DiagId::ModuleNotFound, decl->name_range, DisplayName(decl->name), searched);
    return std::nullopt;
  }

  /// Reads the module file `module` made from `source`; when it is valid, its parts
  /// stand for their files from now on. Otherwise `last_refusal_` says why not.
  bool UseModuleFile(const fs::path& module, const fs::path& source) {
    std::string key = Key(module);
    if (refused_.count(key) != 0) {
      last_refusal_ = refused_[key];
      return false;
    }
    LoadedModuleFile loaded = ReadModuleFile(module.string(), options_key_, sources_, diags_);
    if (loaded.status != ModuleFileStatus::Valid) {
      refused_[key] = last_refusal_ = loaded.why;
      return false;
    }
    files_read_->push_back(module.string());
    // The primary part answers to the path the import found; the others to their own.
    for (size_t i = 0; i < loaded.parts.size(); ++i) {
      std::string part_key = i == 0 ? Key(source) : Key(loaded.parts[i].path);
      parts_.emplace(std::move(part_key), std::move(loaded.parts[i]));
    }
    return true;
  }

  /// `path` read, preprocessed and parsed, its files listed as read; null after
  /// reporting that it cannot be read.
  ast::Module* Parse(const ast::Decl* decl, const fs::path& path, source::FileId* file,
                     bool capture = false) {
    auto part = parts_.find(Key(path));
    if (part != parts_.end()) {
      *file = part->second.file;
      parse::ParseOptions options = parse_options_;
      options.language_version = part->second.language_version;
      return parse::ParseModule(part->second.tokens, ctx_, diags_, options);
    }
    *file = sources_.LoadFile(path.string());
    if (*file == 0) {
      diags_.Report(DiagId::CannotOpenFile, decl->name_range, path.string());
      return nullptr;
    }
    files_read_->push_back(path.string());
    preprocess::PreprocessResult pp_result;
    std::vector<preprocess::Token> tokens =
        preprocess::Preprocess(sources_, *file, pp_options_, diags_, &pp_result);
    for (const std::string& included : pp_result.included_files) {
      files_read_->push_back(included);
    }
    parse::ParseOptions options = parse_options_;
    options.language_version = pp_result.language_version;
    ast::Module* module = parse::ParseModule(tokens, ctx_, diags_, options);
    if (capture && capture_ != nullptr) {
      ModulePart kept;
      kept.path = path.string();
      kept.language_version = pp_result.language_version;
      kept.files_read.push_back(path.string());
      for (std::string& included : pp_result.included_files) {
        kept.files_read.push_back(std::move(included));
      }
      kept.tokens = std::move(tokens);
      capture_->push_back(std::move(kept));
    }
    return module;
  }

  /// The unit `decl` imports, loading (and visiting) it the first time; nullopt after
  /// reporting that it cannot be found or read.
  std::optional<uint32_t> Import(const ast::Decl* decl, const fs::path& dir) {
    std::optional<fs::path> path = Find(decl, dir, true);
    if (!path) return std::nullopt;
    auto known = by_key_.find(Key(*path));
    if (known != by_key_.end()) return known->second;
    source::FileId file = 0;
    ast::Module* module = Parse(decl, *path, &file);
    if (module == nullptr) return std::nullopt;
    uint32_t id = AddUnit(DisplayName(decl->name), Key(*path), file, module);
    Visit(id);
    return id;
  }

  /// The file `__include NAME;` names, parsed, the first time this compile includes it;
  /// null when it was included before (or is a module of its own), or after reporting
  /// that it cannot be found or read.
  ast::Module* Include(const ast::Decl* decl, const fs::path& dir, uint32_t unit) {
    std::optional<fs::path> path = Find(decl, dir, false);
    if (!path) return nullptr;
    std::string key = Key(*path);
    if (by_key_.count(key) != 0 || !included_keys_.insert(key).second) return nullptr;
    source::FileId file = 0;
    ast::Module* part = Parse(decl, *path, &file, unit == 0);
    if (part != nullptr) included_.emplace_back(file, unit);
    return part;
  }

  /// `decl` imports `target`, which is still loading: the chain from `target` through
  /// the modules being loaded leads back to it.
  void ReportCycle(const ast::Decl* decl, uint32_t target) {
    auto start = std::find(stack_.begin(), stack_.end(), target);
    std::string chain;
    for (auto it = start; it != stack_.end(); ++it) chain += "'" + units_[*it].name + "' imports ";
    chain += "'" + units_[target].name + "'";
    diags_.Report(DiagId::ImportCycle, decl->name_range, chain);
  }

  source::SourceManager& sources_;
  ast::AstContext& ctx_;
  diag::DiagEngine& diags_;
  const preprocess::PreprocessOptions& pp_options_;
  const parse::ParseOptions& parse_options_;
  std::vector<std::string>* files_read_;
  /// -emit-module: the `__include`d parts of the file compiled, as preprocessed.
  std::vector<ModulePart>* capture_;
  uint64_t options_key_;
  /// The parts of module files read, by the canonical path of the file each stands for.
  std::map<std::string, ModulePart> parts_;
  /// Module files found unusable, with the reason; the last reason given.
  std::map<std::string, std::string> refused_;
  std::string last_refusal_;
  std::vector<Unit> units_;
  std::map<std::string, uint32_t> by_key_;  ///< canonical path -> unit
  std::vector<uint32_t> stack_;             ///< units being loaded, outermost first
  std::vector<uint32_t> order_;             ///< units loaded, dependencies first
  /// Files `__include`d, each with the unit it is part of, and their canonical paths.
  std::vector<std::pair<source::FileId, uint32_t>> included_;
  std::set<std::string> included_keys_;
};

}  // namespace

bool UsesVisibilityModifiers(const ast::Module& module) { return UsesModifiers(module.decls); }

bool ImportModules(source::SourceManager& sources, ast::AstContext& ctx, diag::DiagEngine& diags,
                   const preprocess::PreprocessOptions& pp_options,
                   const parse::ParseOptions& parse_options, source::FileId main_file,
                   ast::Module* main, std::vector<std::string>* files_read, ModuleGraph* out,
                   std::vector<ModulePart>* capture) {
  uint32_t errors = diags.ErrorCount();
  Loader(sources, ctx, diags, pp_options, parse_options, files_read, capture)
      .Run(main_file, main, out);
  return diags.ErrorCount() == errors;
}

}  // namespace slope::driver
