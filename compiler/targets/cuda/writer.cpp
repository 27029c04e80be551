#include "compiler/targets/cuda/writer.h"

#include <algorithm>
#include <set>

#include "compiler/base/ice.h"
#include "compiler/targets/ctext/module.h"
#include "compiler/targets/ctext/text_writer.h"
#include "compiler/targets/cuda/context.h"
#include "compiler/targets/cuda/function_writer.h"
#include "compiler/targets/cuda/prelude.h"

namespace slope::targets::cuda {
namespace {

/// `type` spelled outside namespace slope: each name the prelude or the module declares
/// qualified (`slope::arr<slope::uint, 4>`), C++'s own types as they are.
std::string Qualified(const std::string& type) {
  static const std::set<std::string> kBuiltin = {"bool", "int", "float", "double", "void"};
  std::string out, word;
  auto flush = [&] {
    if (word.empty()) return;
    bool is_name = !(word[0] >= '0' && word[0] <= '9');
    out += is_name && kBuiltin.count(word) == 0 ? "slope::" + word : word;
    word.clear();
  };
  for (char c : type) {
    bool ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_';
    if (ident) {
      word.push_back(c);
    } else {
      flush();
      out.push_back(c);
    }
  }
  flush();
  return out;
}

}  // namespace

std::string WriteCuda(ir::Module& module, const WriterOptions& options) {
  Context context(module, options);
  std::vector<const ir::Function*> entries = module.EntryPoints(options.entry_points);
  if (entries.empty()) SLOPE_ICE("no entry point to write");
  std::vector<const ir::Function*> functions = ctext::Reachable(module, entries);
  std::set<const ir::Global*> used = ctext::UsedGlobals(functions);

  // Functions first: printing them finds whether the text needs half.
  std::string prototypes, definitions;
  for (const ir::Function* f : functions) {
    FunctionWriter writer(context, *f);
    prototypes += writer.Prototype() + ";\n";
    definitions += "\n" + writer.Definition();
  }

  ctext::TextWriter decls(1);
  // A struct may hold a pointer to a struct declared after it (or to itself): with any
  // device pointer among the members, every struct is declared ahead.
  bool points = false;
  for (const ir::Type* s : module.Types().Structs()) {
    for (const ir::Type* m : s->Members()) {
      while (m->IsArray()) m = m->Element();
      points = points || m->IsDevicePointer();
    }
  }
  for (const ir::Type* s : module.Types().Structs()) {
    if (points && !ctext::HoldsBuffer(s)) decls.Append("struct " + context.StructName(s) + ";\n");
  }
  decls.Append(ctext::WriteStructs(
      module, context.ModuleNames(),
      [&](const ir::Type* s, size_t i) {
        return context.StorageTypeName(s->Members()[i], context.MemberLayout(s, i)) + " " +
               context.MemberName(s, i) + ";";
      },
      ""));
  std::string structs = decls.Text();

  // Workgroup memory is `__shared__` in the namespace; everything a kernel receives, and
  // the `static` globals each thread owns, live in the Context.
  ctext::TextWriter shared;
  ctext::TextWriter fields;
  std::map<std::string, const ir::Global*> by_name;
  std::vector<std::string> sizes;  // the storage buffers the Context holds
  for (const ir::Global* g : module.globals) {
    by_name[g->Name()] = g;
    if (used.count(g) == 0) continue;
    const std::string& name = context.GlobalName(g);
    const ir::Type* element = g->GetType()->Element();
    // Buffers, uniform buffers and push constants hold matrices as the compile lays
    // them out; a thread's and a group's own memory holds them as values.
    std::string storage = context.StorageTypeName(element, options.matrix_layout);
    if (g->IsWorkgroup()) {
      shared.Line("__shared__ " + context.Declare(element, name, true) + ";");
    } else if (g->IsPrivate()) {
      fields.Line(context.Declare(element, name) + ";  // static: each thread's own");
    } else if (g->IsPushConstant()) {
      fields.Line(storage + " " + name + ";  // the kernel's uniform parameters");
    } else if (g->IsUniform()) {
      fields.Line(storage + "* " + name + ";  // a uniform buffer");
    } else {
      fields.Line(storage + "* " + name + ";");
      sizes.push_back(name);
    }
  }
  if (!sizes.empty()) {
    fields.Line("struct {  // each storage buffer's size in bytes");
    for (const std::string& name : sizes) fields.Line("  unsigned long long " + name + ";");
    fields.Line("} " + std::string(Context::kSizes) + ";");
  }

  ctext::TextWriter out;
  out.Line("// CUDA C++ written by slopec (-target cuda). Buffers follow the scalar layout;");
  out.Line("// each kernel takes its resources in reflection order.");
  if (context.UsesHalf()) out.Line("#define SLOPE_HALF 1");
  out.Line("#include \"" + std::string(kPreludeName) + "\"");
  out.Line("");
  out.Line("namespace slope {");
  if (!structs.empty()) out.Append("\n" + structs);
  out.Line("");
  out.Line("/// The resources the kernels receive, and the `static` globals of each thread.");
  out.Open("struct Context");
  if (fields.Empty()) out.Line("int unused;");
  out.Append(fields.Text().empty() ? "" : [&] {
    ctext::TextWriter indented(1);
    std::string text = fields.Text();
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      indented.Line(text.substr(start, end - start));
      start = end + 1;
    }
    return indented.Text();
  }());
  out.Close("};");
  if (!shared.Empty()) out.Append("\n" + shared.Text());
  out.Append("\n" + prototypes);
  out.Append(definitions);
  out.Line("");
  out.Line("}  // namespace slope");

  // The kernels: resources in reflection order, then the entry point's body.
  for (const ir::Function* entry : entries) {
    std::vector<std::string> params;
    std::vector<std::string> sets;
    std::vector<std::string> size_params;
    for (const Binding& b : options.bindings) {
      auto it = by_name.find(b.name);
      std::string legal = context.Names().Legal(b.name);
      std::string size_param;
      if (b.storage) {
        size_param = "SLOPE_bytes_" + std::to_string(size_params.size());
        size_params.push_back("unsigned long long " + size_param);
      }
      if (it == by_name.end()) {
        // Reflected but gone from the module: nothing uses it.
        params.push_back("void* " + legal);
        continue;
      }
      const ir::Global* g = it->second;
      const std::string& name = context.GlobalName(g);
      const ir::Type* element = g->GetType()->Element();
      bool in_context = used.count(g) != 0;
      std::string storage = Qualified(context.StorageTypeName(element, options.matrix_layout));
      if (g->IsPushConstant()) {
        if (b.entry_point != entry->Name()) continue;  // another kernel's parameters
        params.push_back(storage + " " + name);
      } else {
        params.push_back(storage + "* " + name);
      }
      if (in_context) sets.push_back("ctx." + name + " = " + name + ";");
      if (in_context && b.storage && !g->IsPushConstant() && !g->IsUniform()) {
        sets.push_back("ctx." + std::string(Context::kSizes) + "." + name + " = " + size_param + ";");
      }
    }
    params.insert(params.end(), size_params.begin(), size_params.end());
    const auto& n = entry->entry.numthreads;
    out.Line("");
    out.Line("// [numthreads(" + std::to_string(n[0]) + ", " + std::to_string(n[1]) + ", " +
             std::to_string(n[2]) + ")]: launch with blockDim (" + std::to_string(n[0]) + ", " +
             std::to_string(n[1]) + ", " + std::to_string(n[2]) + ").");
    std::string head = "extern \"C\" __global__ void __launch_bounds__(" +
                       std::to_string(n[0] * n[1] * n[2]) + ") " + KernelSymbol(entry->Name()) +
                       "(";
    for (size_t i = 0; i < params.size(); ++i) head += (i == 0 ? "" : ", ") + params[i];
    out.Open(head + ")");
    out.Line("slope::Context ctx{};");
    for (const std::string& s : sets) out.Line(s);
    out.Line("slope::" + context.FunctionName(entry) + "(ctx);");
    out.Close();
  }
  return out.Text();
}

}  // namespace slope::targets::cuda
