#include "tools/slopec/options.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "compiler/diag/diag.h"
#include "compiler/preprocess/preprocessor.h"

namespace slope::tools::slopec {
namespace {

/// slangc's help groups, in its order, with the glslc/Slope additions placed where a
/// slangc user looks for them.
enum class Group { General, Target, Optimization, Preprocessor, Diagnostics, Debugging, Slope };

constexpr const char* kGroupTitles[] = {
    "General", "Target", "Downstream (optimization)", "Preprocessor", "Diagnostics",
    "Debugging", "Slope-specific",
};

/// One flag: its spellings (the first is the one `-h` and suggestions show), the value
/// it takes (empty = none), its group and its `-h` line. `apply` records it.
struct Flag {
  std::vector<std::string> names;
  std::string value_name;
  Group group;
  std::string help;
  std::function<bool(CommandLine&, const std::string& value, const std::string& spelling,
                     std::string* error)>
      apply;
};

bool IsDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> SplitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// ---- targets --------------------------------------------------------------------------

struct TargetSpelling {
  const char* name;
  const char* canonical;
};
constexpr TargetSpelling kTargets[] = {
    {"spirv", "spirv"},          {"spirv-asm", "spirv-asm"}, {"spirv-assembly", "spirv-asm"},
    {"glsl", "glsl"},            {"cuda", "cuda"},           {"cu", "cuda"},
    {"ptx", "ptx"},              {"host", "host"},           {"cpu", "host"},
    {"host-callable", "host"},   {"callable", "host"},       {"object", "object"},
    {"object-code", "object"},   {"llvm-ir", "llvm-ir"},
};
/// slangc targets Slope does not write: named as such rather than as unknown.
constexpr const char* kForeignTargets[] = {
    "hlsl", "dxbc", "dxbc-asm", "dxil", "dxil-asm", "c", "cpp", "c++", "cxx", "torch",
    "host-cpp", "exe", "executable", "sharedlib", "dll", "shader-sharedlib", "cuobj",
    "cubin", "metal", "metallib", "wgsl", "wgsl-spirv", "wgsl-spirv-asm", "slangvm",
    "host-host-callable", "none", "unknown"};

// ---- stages and profiles ---------------------------------------------------------------

constexpr const char* kStages[] = {
    "vertex", "hull", "tesscontrol", "domain", "tesseval", "geometry", "pixel", "fragment",
    "compute", "raygeneration", "intersection", "anyhit", "closesthit", "miss", "callable",
    "mesh", "amplification", "dispatch"};

bool CheckStage(const std::string& stage, std::string* error) {
  if (stage == "compute") return true;
  bool known = std::find(std::begin(kStages), std::end(kStages), stage) != std::end(kStages);
  if (known) {
    *error = "unsupported stage '" + stage + "'; only 'compute' is supported";
  } else {
    *error = "unknown stage '" + stage + "'" +
             Suggest(stage, std::vector<std::string>(std::begin(kStages), std::end(kStages)));
  }
  return false;
}

/// "1_5" in "spirv_1_5" -> 5; -1 when `s` is not `prefix` then 1_N with N in 0..6.
int SpirvMinor(const std::string& s, const std::string& prefix) {
  if (s.size() != prefix.size() + 3 || s.compare(0, prefix.size(), prefix) != 0) return -1;
  if (s[prefix.size()] != '1' || s[prefix.size() + 1] != '_') return -1;
  char minor = s[prefix.size() + 2];
  return minor >= '0' && minor <= '6' ? minor - '0' : -1;
}

/// Capabilities slangc accepts with -capability that mean something for the compute
/// shaders Slope writes: all of them only tell the compiler what the target supports.
const std::vector<std::string>& KnownCapabilities() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = {
        "spirv_latest", "spirv", "glsl", "hlsl", "cuda", "cpp", "c", "metal", "wgsl",
        "textualTarget", "compute", "vertex", "fragment", "pixel", "hull", "domain",
        "geometry", "mesh", "amplification", "raygen", "raygeneration", "intersection",
        "anyhit", "closesthit", "miss", "callable", "any_stage",
        // SPIR-V extensions.
        "SPV_EXT_fragment_shader_interlock", "SPV_EXT_physical_storage_buffer",
        "SPV_EXT_fragment_fully_covered", "SPV_EXT_descriptor_indexing",
        "SPV_EXT_shader_atomic_float_add", "SPV_EXT_shader_atomic_float16_add",
        "SPV_EXT_shader_atomic_float_min_max", "SPV_EXT_mesh_shader",
        "SPV_EXT_demote_to_helper_invocation", "SPV_EXT_replicated_composites",
        "SPV_KHR_maximal_reconvergence", "SPV_KHR_quad_control",
        "SPV_KHR_fragment_shader_barycentric", "SPV_KHR_non_semantic_info",
        "SPV_KHR_ray_tracing", "SPV_KHR_ray_query", "SPV_KHR_ray_tracing_position_fetch",
        "SPV_KHR_shader_clock", "SPV_KHR_subgroup_rotate", "SPV_KHR_compute_shader_derivatives",
        "SPV_KHR_vulkan_memory_model", "SPV_KHR_cooperative_matrix",
        "SPV_KHR_8bit_storage", "SPV_KHR_16bit_storage", "SPV_KHR_storage_buffer_storage_class",
        "SPV_KHR_variable_pointers", "SPV_KHR_physical_storage_buffer",
        "SPV_KHR_shader_draw_parameters", "SPV_KHR_float_controls", "SPV_KHR_shader_ballot",
        "SPV_KHR_subgroup_vote", "SPV_KHR_integer_dot_product",
        "SPV_KHR_workgroup_memory_explicit_layout", "SPV_KHR_subgroup_uniform_control_flow",
        "SPV_NV_shader_subgroup_partitioned", "SPV_NV_ray_tracing_motion_blur",
        "SPV_NV_shader_invocation_reorder", "SPV_NV_cluster_acceleration_structure",
        "SPV_NV_linear_swept_spheres", "SPV_NV_shader_image_footprint",
        "SPV_NV_cooperative_vector", "SPV_NV_tensor_addressing", "SPV_NV_cooperative_matrix2",
        "SPV_GOOGLE_user_type",
        // SPIR-V capabilities as slangc names them.
        "spvAtomicFloat32AddEXT", "spvAtomicFloat16AddEXT", "spvAtomicFloat64AddEXT",
        "spvInt64Atomics", "spvAtomicFloat32MinMaxEXT", "spvAtomicFloat16MinMaxEXT",
        "spvAtomicFloat64MinMaxEXT", "spvDerivativeControl", "spvImageQuery",
        "spvImageGatherExtended", "spvSparseResidency", "spvMinLod", "spvFragmentBarycentricKHR",
        "spvShaderClockKHR", "spvGroupNonUniformArithmetic", "spvGroupNonUniformBallot",
        "spvGroupNonUniformVote", "spvGroupNonUniformShuffle", "spvGroupNonUniformQuad",
        "spvVulkanMemoryModelKHR", "spvCooperativeMatrixKHR", "spvInt64",
        // Features.
        "subgroup_basic", "subgroup_ballot", "subgroup_vote", "subgroup_arithmetic",
        "subgroup_shuffle", "subgroup_shufflerelative", "subgroup_clustered", "subgroup_quad",
        "subgroup_partitioned", "subgroup_rotate", "atomic_glsl", "atomic_glsl_int64",
        "atomic_glsl_float1", "atomic_glsl_float2", "atomic_hlsl", "printf",
        "structuredbuffer", "structuredbuffer_rw", "byteaddressbuffer", "byteaddressbuffer_rw",
        "image_loadstore", "nonuniformqualifier", "memorybarrier", "bufferreference",
        "bufferreference_int64", "vk_mem_model", "cooperative_matrix", "cooperative_vector",
        "shadermemorycontrol", "shader5_sm_5_0", "pack_vector", "helper_lane", "quad_control",
        "breakpoint", "all"};
    for (int minor = 0; minor <= 6; ++minor) {
      std::string m = std::to_string(minor);
      v.push_back("spirv_1_" + m);
      v.push_back("SPIRV_1_" + m);
      v.push_back("glsl_spirv_1_" + m);
    }
    for (const char* sm : {"4_0", "4_1", "5_0", "5_1", "6_0", "6_1", "6_2", "6_3", "6_4", "6_5",
                           "6_6", "6_7", "6_8", "6_9"}) {
      v.push_back(std::string("sm_") + sm);
      v.push_back(std::string("sm_") + sm + "_version");
      v.push_back(std::string("DX_") + sm);
    }
    for (const char* g : {"110", "120", "130", "140", "150", "330", "400", "410", "420", "430",
                          "440", "450", "460"}) {
      v.push_back(std::string("GLSL_") + g);
      v.push_back(std::string("glsl_") + g);
    }
    for (const char* sm : {"1_0", "2_0", "3_0", "3_5", "4_0", "5_0", "6_0", "7_0", "8_0", "9_0"}) {
      v.push_back(std::string("cuda_sm_") + sm);
    }
    return v;
  }();
  return names;
}

/// Checks one capability name; notes a SPIR-V version below Slope's 1.3 (an error only
/// when a SPIR-V target is asked for, once every flag is read).
bool CheckCapability(CommandLine& cl, const std::string& name, const std::string& flag,
                     std::string* error) {
  const std::vector<std::string>& known = KnownCapabilities();
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    *error = "unknown capability '" + name + "' in " + flag + Suggest(name, known);
    return false;
  }
  int minor = SpirvMinor(name, "spirv_");
  if (minor < 0) minor = SpirvMinor(name, "SPIRV_");
  if (minor < 0) minor = SpirvMinor(name, "glsl_spirv_");
  if (minor >= 0 && minor < 3) {
    cl.wants_old_spirv = true;
    cl.old_spirv_flag = flag + " " + name;
  }
  return true;
}

bool CheckCapabilities(CommandLine& cl, const std::string& list, const std::string& flag,
                       std::string* error) {
  for (const std::string& name : SplitList(list, '+')) {
    if (!CheckCapability(cl, name, flag, error)) return false;
  }
  return true;
}

/// slangc's profiles: sm_X_Y (HLSL shader models), glsl_NNN, spirv_1_N, stage profiles
/// (cs_6_0; vs_/ps_/... name other stages), lib_6_x, and Slope's sm_NN for CUDA GPUs;
/// `+capability...` may follow.
bool ApplyProfile(CommandLine& cl, const std::string& value, std::string* error) {
  std::vector<std::string> parts = SplitList(value, '+');
  const std::string& p = parts[0];
  const std::string flag = "-profile " + value;
  auto is_shader_model = [](const std::string& s, size_t at) {
    return s.size() == at + 3 && s[at] >= '4' && s[at] <= '6' && s[at + 1] == '_' &&
           s[at + 2] >= '0' && s[at + 2] <= '9';
  };
  bool ok = false;
  if (p.rfind("sm_", 0) == 0 && IsDigits(p.substr(3))) {
    cl.gpu_arch = p;  // a CUDA GPU: sm_90
    ok = true;
  } else if (p.rfind("sm_", 0) == 0 && is_shader_model(p, 3)) {
    ok = true;  // an HLSL shader model: nothing to choose for Slope's targets
  } else if (p.rfind("lib_", 0) == 0 && is_shader_model(p, 4)) {
    ok = true;
  } else if (p.size() == 6 && p[2] == '_' && is_shader_model(p, 3)) {
    std::string stage = p.substr(0, 2);
    static const std::pair<const char*, const char*> kStageProfiles[] = {
        {"cs", "compute"}, {"vs", "vertex"}, {"ps", "pixel"}, {"gs", "geometry"},
        {"hs", "hull"},    {"ds", "domain"}, {"ms", "mesh"},  {"as", "amplification"}};
    for (const auto& [prefix, name] : kStageProfiles) {
      if (stage == prefix) {
        if (!CheckStage(name, error)) {
          *error = "-profile " + p + " names the " + name + " stage; only 'compute' is supported";
          return false;
        }
        ok = true;
      }
    }
  } else if (p.rfind("glsl_", 0) == 0 && IsDigits(p.substr(5))) {
    static const int kVersions[] = {110, 120, 130, 140, 150, 330, 400, 410, 420, 430, 440, 450, 460};
    int v = std::atoi(p.c_str() + 5);
    ok = std::find(std::begin(kVersions), std::end(kVersions), v) != std::end(kVersions);
    if (ok && v < 450) {
      cl.wants_old_glsl = true;
      cl.old_glsl_flag = flag;
    }
  } else if (SpirvMinor(p, "spirv_") >= 0) {
    ok = CheckCapability(cl, p, "-profile", error);
    if (!ok) return false;
  }
  if (!ok) {
    *error = "unknown profile '" + p +
             "'; expected sm_6_5 style (HLSL shader models), glsl_450, spirv_1_5, cs_6_0, or "
             "sm_90 style (a CUDA GPU, for -target ptx)";
    return false;
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    if (!CheckCapability(cl, parts[i], "-profile", error)) return false;
  }
  return true;
}

// ---- warnings ---------------------------------------------------------------------------

/// A warning id as slangc or Slope spells it: "W3102" / "3102" (a Slope warning: its
/// number), or slangc's five-digit numbers (39001), which name diagnostics Slope never
/// reports under that number: accepted, and -1 returned (nothing to do).
bool ParseWarningId(const std::string& id, int* number, std::string* error) {
  std::string digits = id;
  bool lettered = !id.empty() && (id[0] == 'W' || id[0] == 'w');
  if (lettered) digits = id.substr(1);
  if (!IsDigits(digits) || digits.size() > 6) {
    *error = "'" + id + "' is not a warning id; expected a number as W3102, 3102 or 39001";
    return false;
  }
  int n = std::atoi(digits.c_str());
  if (!lettered && digits.size() >= 5) {
    *number = -1;
    return true;
  }
  for (diag::DiagId d : diag::AllDiagIds()) {
    const diag::DiagInfo& info = diag::GetDiagInfo(d);
    if (info.number != n) continue;
    if (info.severity == diag::Severity::Warning) {
      *number = n;
      return true;
    }
  }
  *error = "'" + id + "' is not one of Slope's warnings (W codes in compiler/diag/diagnostics.def)";
  return false;
}

void Remove(std::vector<int>& v, int n) { v.erase(std::remove(v.begin(), v.end(), n), v.end()); }

bool DisableWarnings(CommandLine& cl, const std::string& list, std::string* error) {
  for (const std::string& id : SplitList(list, ',')) {
    int n = 0;
    if (!ParseWarningId(id, &n, error)) return false;
    if (n < 0) continue;
    Remove(cl.disabled_warnings, n);
    cl.disabled_warnings.push_back(n);
  }
  return true;
}

// ---- the flag table ---------------------------------------------------------------------

using Apply = decltype(Flag::apply);

Apply Set(bool CommandLine::*field, bool value = true) {
  return [field, value](CommandLine& cl, const std::string&, const std::string&, std::string*) {
    cl.*field = value;
    return true;
  };
}
Apply Store(std::string CommandLine::*field) {
  return [field](CommandLine& cl, const std::string& v, const std::string&, std::string*) {
    cl.*field = v;
    return true;
  };
}
/// Accepted and changes nothing in what Slope writes (docs/cli.md says why, per flag).
Apply NoEffect() {
  return [](CommandLine&, const std::string&, const std::string&, std::string*) { return true; };
}
/// A value from a fixed list; `effect` values change nothing for Slope, `refused`
/// values would change the output in a way Slope does not implement.
Apply OneOf(std::vector<std::string> accepted, std::vector<std::string> refused,
            std::string refusal) {
  return [accepted, refused, refusal](CommandLine&, const std::string& v,
                                      const std::string& spelling, std::string* error) {
    if (std::find(accepted.begin(), accepted.end(), v) != accepted.end()) return true;
    if (std::find(refused.begin(), refused.end(), v) != refused.end()) {
      *error = spelling + " " + v + " is not supported: " + refusal;
      return false;
    }
    std::vector<std::string> all = accepted;
    all.insert(all.end(), refused.begin(), refused.end());
    *error = "unknown value '" + v + "' for " + spelling + Suggest(v, all);
    return false;
  };
}
/// A slangc flag whose effect Slope does not implement: an error naming it.
Apply Refuse(std::string why) {
  return [why](CommandLine&, const std::string&, const std::string& spelling, std::string* error) {
    *error = spelling + " is not supported: " + why;
    return false;
  };
}

/// A flag of two values, which ParseCommandLine reads itself (ParseTwoValueFlag).
Apply TwoValues(std::string values) {
  return [values](CommandLine&, const std::string&, const std::string& spelling,
                  std::string* error) {
    *error = spelling + " needs two values: " + spelling + " " + values;
    return false;
  };
}

const std::vector<Flag>& Flags() {
  static const std::vector<Flag> flags = {
      // General.
      {{"-h", "-help", "--help"}, "", Group::General, "print this help and exit", Set(&CommandLine::help)},
      {{"-v", "-version", "--version"}, "", Group::General, "print slopec's version and exit",
       Set(&CommandLine::version)},
      {{"-entry"}, "<name>", Group::General,
       "an entry point to compile; needs only [numthreads]; repeatable (default: every "
       "[shader(\"compute\")] function)",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string*) {
         cl.entries.push_back({v, 0});
         return true;
       }},
      {{"-stage"}, "<stage>", Group::General, "the stage of -entry functions without [shader] (compute)",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string* error) {
         cl.stage = v;
         return CheckStage(v, error);
       }},
      {{"-o"}, "<path>", Group::General,
       "output file ('-': standard output); one per -target or -entry, or a template as "
       "out/{entry}.{ext} ({entry}, {ext}, {target})",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string*) {
         cl.outputs.push_back({v, 0});
         return true;
       }},
      {{"-target"}, "<target>", Group::General,
       "spirv (default), spirv-asm, glsl, cuda, ptx, host (cpu, host-callable), object, "
       "llvm-ir; repeatable",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string* error) {
         std::string canonical = CanonicalTarget(v);
         if (canonical.empty()) {
           bool foreign = std::find(std::begin(kForeignTargets), std::end(kForeignTargets), v) !=
                          std::end(kForeignTargets);
           std::vector<std::string> names;
           for (const TargetSpelling& t : kTargets) names.push_back(t.name);
           *error = foreign ? "-target " + v +
                                  " is not supported; Slope writes spirv, spirv-asm, glsl, cuda, "
                                  "ptx, host, object and llvm-ir"
                            : "unknown target '" + v + "'" + Suggest(v, names);
           return false;
         }
         cl.targets.push_back({canonical, 0});
         return true;
       }},
      {{"-profile"}, "<profile>", Group::General,
       "sm_90 style: the GPU -target ptx writes for (default sm_90); slangc's sm_6_5, "
       "glsl_450, spirv_1_5 and cs_6_0 profiles are accepted (+capability... may follow)",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string* error) {
         return ApplyProfile(cl, v, error);
       }},
      {{"-matrix-layout-row-major"}, "", Group::General,
       "lay matrices in buffers out row by row (the default)", Set(&CommandLine::column_major, false)},
      {{"-matrix-layout-column-major"}, "", Group::General,
       "lay matrices in buffers out column by column", Set(&CommandLine::column_major)},
      {{"-reflection-json"}, "<path>", Group::General,
       "also write the parameters, bindings, layouts and entry points as JSON",
       Store(&CommandLine::reflection_json)},
      {{"-depfile"}, "<path>", Group::General,
       "write a Makefile rule: the outputs depend on every file read (source, #includes, "
       "imported modules)",
       Store(&CommandLine::depfile)},
      {{"-module-name"}, "<name>", Group::General,
       "the module's name; a one-file compile writes nothing that names it",
       Store(&CommandLine::module_name)},
      {{"-lang"}, "<language>", Group::General, "the source language: slang",
       OneOf({"slang"}, {"hlsl", "glsl", "c", "C", "cpp", "c++", "C++", "cxx", "cu", "cuda"},
             "Slope reads Slang source only")},
      {{"-std"}, "<version>", Group::General,
       "the Slang language version files are read as unless a '#language slang V' line says "
       "otherwise: legacy (2018, default), 2025 (202a), 2026 (202b, latest), 202c (next)",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string* error) {
         cl.language_version = preprocess::ParseLanguageVersion(v);
         if (cl.language_version != 0) return true;
         *error = "unknown language version '" + v +
                  "'; expected legacy, 2018, 2025, 202a, 2026, 202b, latest, 202c or next";
         return false;
       }},
      {{"-ignore-capabilities"}, "", Group::General,
       "do not check capabilities (Slope has no capability checks to skip)", NoEffect()},
      {{"-preserve-params"}, "", Group::General,
       "keep unused resource parameters (Slope always keeps them)", NoEffect()},
      {{"-zero-initialize"}, "", Group::General,
       "start variables at zero (Slope always does)", NoEffect()},
      {{"-validate-ir"}, "", Group::General,
       "verify the IR after each pass (Slope verifies it after lowering and at the end)",
       NoEffect()},
      {{"-verbose-paths"}, "", Group::General,
       "diagnostics name files as given (Slope does not shorten paths)", NoEffect()},

      // Target.
      {{"-capability"}, "<cap>[+<cap>...]", Group::Target,
       "a capability the target has (spirv_1_5, SPV_KHR_..., subgroup_ballot): checked, "
       "and Slope's SPIR-V 1.3 output needs none",
       [](CommandLine& cl, const std::string& v, const std::string& spelling, std::string* error) {
         return CheckCapabilities(cl, v, spelling, error);
       }},
      {{"-g"}, "", Group::Target,
       "emit debug information (-g1..-g3 too; -g0: none): NonSemantic.Shader.DebugInfo.100",
       Set(&CommandLine::debug_info)},
      {{"-fvk-use-scalar-layout", "-force-glsl-scalar-layout"}, "", Group::Target,
       "lay buffers out by the scalar block layout instead of std430", Set(&CommandLine::scalar_layout)},
      // Two values each; ParseCommandLine reads them.
      {{"-fvk-b-shift", "-fvk-t-shift", "-fvk-u-shift", "-fvk-s-shift"}, "<N> <space>",
       Group::Target,
       "add N to the binding of register(bK/tK/uK/sK, spaceM) resources in space M (a number, "
       "or 'all')", TwoValues("<N> <space>")},
      {{"-fvk-bind-globals"}, "<N> <set>", Group::Target,
       "bind the block of global 'uniform' variables at binding N of set M",
       TwoValues("<N> <set>")},
      {{"-fvk-use-gl-layout"}, "", Group::Target,
       "std430 for raw buffer loads and stores (Slope always lays buffers out so)", NoEffect()},
      {{"-fvk-use-entrypoint-name"}, "", Group::Target,
       "keep a lone entry point's source name in OpEntryPoint instead of 'main'",
       Set(&CommandLine::use_entrypoint_name)},
      {{"-emit-spirv-directly"}, "", Group::Target,
       "write SPIR-V directly (the only way Slope writes it)", NoEffect()},
      {{"-line-directive-mode"}, "<mode>", Group::Target,
       "none, source-map or default: Slope's text outputs carry no #line directives",
       OneOf({"none", "source-map", "default"}, {"standard", "glsl"},
             "Slope's text outputs carry no #line directives")},
      {{"-emit-cuda-prelude"}, "<path>", Group::Target,
       "write slope_cuda_prelude.h, which -target cuda output includes", Store(&CommandLine::cuda_prelude)},

      // Optimization.
      {{"-O0", "-O1", "-O2", "-O3"}, "", Group::Optimization,
       "the SPIR-V optimization level (default -O1; also -Onone, -Odefault, -Ohigh, -Omaximal)",
       nullptr},
      {{"-fp-mode", "-floating-point-mode"}, "<mode>", Group::Optimization,
       "precise, default or fast: Slope compiles every mode as precise (fast permits it)",
       OneOf({"precise", "default", "fast"}, {}, "")},
      {{"-denorm-mode-fp16", "-denorm-mode-fp32", "-denorm-mode-fp64"}, "<mode>",
       Group::Optimization, "any: the target's default handling of denormals",
       OneOf({"any"}, {"preserve", "ftz"},
             "Slope sets no denormal execution mode; 'any' keeps the target's default")},
      {{"-minimum-slang-optimization", "-enable-experimental-passes"}, "", Group::Optimization,
       "accepted: Slope's passes are the same either way", NoEffect()},

      // Preprocessor.
      {{"-D"}, "<name>[=<value>]", Group::Preprocessor,
       "define a macro (-DNAME, -D NAME=VALUE; NAME alone is 1)",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string*) {
         cl.defines.push_back(v);
         return true;
       }},
      {{"-I"}, "<path>", Group::Preprocessor,
       "add a directory to the #include and import search path (-Ipath too)",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string*) {
         cl.include_paths.push_back(v);
         return true;
       }},
      {{"-E", "-output-preprocessor"}, "", Group::Preprocessor,
       "print the preprocessed source and stop", Set(&CommandLine::preprocess_only)},
      {{"-MD"}, "", Group::Preprocessor,
       "glslc's: also write a depfile (to -MF's path, else the output's path + .d)",
       Set(&CommandLine::depfile_next_to_output)},
      {{"-MF"}, "<path>", Group::Preprocessor, "glslc's: the depfile's path", Store(&CommandLine::depfile)},
      {{"-MT"}, "<target>", Group::Preprocessor, "glslc's: the depfile rule's target",
       Store(&CommandLine::depfile_target)},

      // Diagnostics.
      {{"-warnings-as-errors"}, "all|<id>[,<id>...]", Group::Diagnostics,
       "report all warnings, or these (W3102, 3102), as errors",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string* error) {
         if (v == "all") {
           cl.all_warnings_are_errors = true;
           return true;
         }
         for (const std::string& id : SplitList(v, ',')) {
           int n = 0;
           if (!ParseWarningId(id, &n, error)) return false;
           if (n >= 0) cl.error_warnings.push_back(n);
         }
         return true;
       }},
      {{"-warnings-disable"}, "<id>[,<id>...]", Group::Diagnostics,
       "do not report these warnings (slangc's 39001 style numbers are accepted)",
       [](CommandLine& cl, const std::string& v, const std::string&, std::string* error) {
         return DisableWarnings(cl, v, error);
       }},
      {{"-W<id>", "-Wno-<id>"}, "", Group::Diagnostics,
       "report (the default) or do not report a warning: -Wno-3102, -WW3102", nullptr},
      {{"-diagnostic-format"}, "text|json", Group::Diagnostics,
       "json: one JSON object per diagnostic on standard error",
       [](CommandLine& cl, const std::string& v, const std::string& spelling, std::string* error) {
         if (v != "text" && v != "json") {
           *error = "unknown value '" + v + "' for " + spelling + "; expected text or json";
           return false;
         }
         cl.json_diagnostics = v == "json";
         return true;
       }},
      {{"-error-limit"}, "<n>", Group::Diagnostics, "stop after this many errors (default 20, 0 = no limit)",
       [](CommandLine& cl, const std::string& v, const std::string& spelling, std::string* error) {
         if (!IsDigits(v) || v.size() > 9) {
           *error = spelling + " needs a number, not '" + v + "'";
           return false;
         }
         cl.error_limit = static_cast<uint32_t>(std::atoi(v.c_str()));
         return true;
       }},
      {{"-report-checkpoint-intermediates"}, "", Group::Diagnostics,
       "note what each backward derivative keeps per thread for its reverse sweep",
       Set(&CommandLine::report_checkpoints)},

      // Debugging.
      {{"-no-codegen", "-skip-codegen"}, "", Group::Debugging, "check the source only",
       Set(&CommandLine::no_codegen)},
      {{"-emit-module"}, "", Group::General,
       "write a module file for `import` (-o, else NAME.slang-module beside the source) "
       "instead of target code",
       Set(&CommandLine::emit_module)},
      {{"-emit-ir"}, "", Group::Debugging,
       "write Slope's IR after lowering (text slope-opt reads) instead of target code",
       Set(&CommandLine::emit_ir)},
      {{"-dump-ir"}, "", Group::Debugging, "print the IR after lowering", Set(&CommandLine::dump_ir)},
      {{"-dump-ir-after"}, "<pass>", Group::Debugging,
       "print the IR after the named pass of the target's pass list", Store(&CommandLine::dump_ir_after)},
      {{"-dump-ast"}, "", Group::Debugging, "print the syntax tree as parsed", Set(&CommandLine::dump_ast)},
      {{"-parse-only"}, "", Group::Debugging, "stop after parsing", Set(&CommandLine::parse_only)},
      {{"-skip-spirv-validation"}, "", Group::Debugging, "do not validate the SPIR-V output",
       Set(&CommandLine::skip_validation)},

      // slangc flags whose effect Slope does not implement: errors naming them.
      {{"-fvk-use-dx-layout"}, "", Group::Slope, "",
       Refuse("Slope lays buffers out by std430/std140 or the scalar layout only")},
      {{"-fvk-invert-y", "-fvk-use-dx-position-w"}, "", Group::Slope, "",
       Refuse("Slope compiles compute shaders only")},
      {{"-emit-spirv-via-glsl"}, "", Group::Slope, "",
       Refuse("Slope writes SPIR-V directly; -target glsl writes the GLSL")},
      {{"-specialize", "-obfuscate", "-r", "-source-embed-style",
        "-default-image-format-unknown", "-fspv-reflect", "-disable-specialization",
        "-disable-dynamic-dispatch", "-dump-intermediates", "-pass-through", "-incomplete-library",
        "-restrictive-capability-check", "-unscoped-enum", "-disable-short-circuit",
        "-enable-effect-annotations", "-bindless-space-index", "-heterogeneous", "-no-mangle",
        "-allow-glsl", "-output-includes", "-dump-repro", "-load-repro"},
       "", Group::Slope, "", Refuse("slopec does not implement this slangc option")},
  };
  return flags;
}

/// The spellings `-h` shows and suggestions choose from.
std::vector<std::string> AllSpellings() {
  std::vector<std::string> out;
  for (const Flag& f : Flags()) {
    for (const std::string& n : f.names) {
      if (n.find('<') == std::string::npos && n.rfind("--", 0) != 0) out.push_back(n);
    }
  }
  for (const char* extra : {"-g0", "-g1", "-g2", "-g3", "-Wno-", "-W"}) out.push_back(extra);
  return out;
}

const Flag* FindFlag(const std::string& name) {
  for (const Flag& f : Flags()) {
    for (const std::string& n : f.names) {
      if (n == name && f.apply) return &f;
    }
  }
  return nullptr;
}

/// -O<level>: 0..3 or slangc's names for them.
bool ParseOptLevel(const std::string& level, uint32_t* out) {
  static const std::pair<const char*, uint32_t> kLevels[] = {
      {"0", 0}, {"none", 0}, {"1", 1}, {"default", 1}, {"2", 2}, {"high", 2}, {"3", 3}, {"maximal", 3}};
  for (const auto& [name, value] : kLevels) {
    if (level == name) {
      *out = value;
      return true;
    }
  }
  return false;
}

/// -g, -g<level>: 0..3 or slangc's names; -g0 / -gnone turn debug information off.
bool ParseDebugLevel(const std::string& level, bool* out) {
  static const std::pair<const char*, bool> kLevels[] = {
      {"", true},     {"0", false}, {"none", false},    {"1", true},   {"minimal", true},
      {"2", true},    {"standard", true}, {"3", true},  {"maximal", true}};
  for (const auto& [name, value] : kLevels) {
    if (level == name) {
      *out = value;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string CanonicalTarget(const std::string& name) {
  for (const TargetSpelling& t : kTargets) {
    if (name == t.name) return t.canonical;
  }
  return "";
}

std::string TargetExtension(const std::string& target) {
  static const std::pair<const char*, const char*> kExt[] = {
      {"spirv", "spv"}, {"spirv-asm", "spv-asm"}, {"glsl", "glsl"}, {"cuda", "cu"},
      {"ptx", "ptx"},   {"host", "bc"},           {"object", "o"},  {"llvm-ir", "ll"}};
  for (const auto& [t, ext] : kExt) {
    if (target == t) return ext;
  }
  return "out";
}

std::string TargetOfPath(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  static const std::pair<const char*, const char*> kByExt[] = {
      {"spv", "spirv"}, {"spv-asm", "spirv-asm"}, {"spvasm", "spirv-asm"}, {"glsl", "glsl"},
      {"comp", "glsl"}, {"cu", "cuda"},           {"ptx", "ptx"},          {"o", "object"},
      {"obj", "object"}, {"ll", "llvm-ir"},       {"bc", "host"}};
  for (const auto& [e, t] : kByExt) {
    if (ext == e) return t;
  }
  return "";
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string Suggest(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  // Close enough to be a slip: a third of the word, at least two edits.
  if (best == nullptr || best_distance > std::max<size_t>(2, word.size() / 3)) return "";
  return "; did you mean '" + *best + "'?";
}

enum class TwoValueFlag { Other, Read, Wrong };

/// -fvk-{b,t,u,s}-shift N SPACE and -fvk-bind-globals N SET at args[*i]: Other when the
/// flag is another; Wrong, with `*error` set, on a mistake.
TwoValueFlag ParseTwoValueFlag(const std::vector<std::string>& args, size_t* i, CommandLine& cl,
                       const std::string& spelling, std::string* error) {
  const bool shift = spelling.size() == 12 && spelling.rfind("-fvk-", 0) == 0 &&
                     spelling.compare(6, 6, "-shift") == 0 &&
                     std::string_view("btus").find(spelling[5]) != std::string_view::npos;
  if (!shift && spelling != "-fvk-bind-globals") return TwoValueFlag::Other;
  const char* values = shift ? "<N> <space>" : "<N> <set>";
  if (*i + 2 >= args.size()) {
    *error = spelling + " needs two values: " + spelling + " " + values;
    return TwoValueFlag::Wrong;
  }
  const std::string& first = args[*i + 1];
  const std::string& second = args[*i + 2];
  *i += 2;
  auto number = [](const std::string& s) { return IsDigits(s) && s.size() <= 9; };
  if (!number(first)) {
    *error = spelling + ": " + (shift ? "the shift" : "the binding") +
             " must be a non-negative integer, not '" + first + "'";
    return TwoValueFlag::Wrong;
  }
  if (!number(second) && !(shift && second == "all")) {
    *error = spelling + ": " +
             (shift ? "the space must be a non-negative integer or 'all'"
                    : "the set must be a non-negative integer") +
             ", not '" + second + "'";
    return TwoValueFlag::Wrong;
  }
  const uint32_t n = static_cast<uint32_t>(std::stoul(first));
  if (!shift) {
    cl.globals_binding = n;
    cl.globals_set = static_cast<uint32_t>(std::stoul(second));
    return TwoValueFlag::Read;
  }
  CommandLine::RegisterShift s;
  s.register_class = spelling[5];
  s.amount = n;
  if (second != "all") s.space = static_cast<uint32_t>(std::stoul(second));
  cl.register_shifts.push_back(s);
  return TwoValueFlag::Read;
}

bool ParseCommandLine(const std::vector<std::string>& args, CommandLine* out, std::string* error) {
  CommandLine& cl = *out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      cl.inputs.insert(cl.inputs.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      cl.inputs.push_back(arg);
      continue;
    }
    // One dash or two: "--entry" is "-entry".
    std::string spelling = arg.rfind("--", 0) == 0 && arg.size() > 2 ? arg.substr(1) : arg;

    // Joined forms: -DNAME=VALUE, -Ipath, -O2, -g0, -W<id>, -Wno-<id>.
    if ((spelling[1] == 'D' || spelling[1] == 'I') && spelling.size() > 2) {
      (spelling[1] == 'D' ? cl.defines : cl.include_paths).push_back(spelling.substr(2));
      continue;
    }
    if (spelling[1] == 'O' && spelling.size() > 2) {
      if (!ParseOptLevel(spelling.substr(2), &cl.opt_level)) {
        *error = "unknown optimization level '" + arg + "'; expected -O0, -O1, -O2 or -O3";
        return false;
      }
      continue;
    }
    if (spelling.rfind("-g", 0) == 0 && ParseDebugLevel(spelling.substr(2), &cl.debug_info)) {
      continue;
    }
    if (spelling.rfind("-Wno-", 0) == 0) {
      if (!DisableWarnings(cl, spelling.substr(5), error)) return false;
      continue;
    }
    if (spelling.rfind("-W", 0) == 0 && spelling.size() > 2) {
      int n = 0;
      if (!ParseWarningId(spelling.substr(2), &n, error)) return false;
      if (n >= 0) Remove(cl.disabled_warnings, n);
      continue;
    }

    if (TwoValueFlag two = ParseTwoValueFlag(args, &i, cl, spelling, error);
        two != TwoValueFlag::Other) {
      if (two == TwoValueFlag::Wrong) return false;
      continue;
    }
    // "-name=value" or "-name value".
    size_t eq = spelling.find('=');
    std::string name = spelling.substr(0, eq);
    const Flag* flag = FindFlag(name);
    if (flag == nullptr) {
      *error = "unknown option '" + arg + "'";
      std::string hint = Suggest(name, AllSpellings());
      *error += hint.empty() ? " (slopec -h lists the options)" : hint;
      return false;
    }
    std::string value;
    if (!flag->value_name.empty()) {
      if (eq != std::string::npos) {
        value = spelling.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        *error = name + " needs a value: " + name + " " + flag->value_name;
        return false;
      }
    } else if (eq != std::string::npos) {
      *error = name + " takes no value";
      return false;
    }
    size_t outputs = cl.outputs.size(), targets = cl.targets.size(), entries = cl.entries.size();
    if (!flag->apply(cl, value, name, error)) return false;
    // Where the flag was: -o goes with the -target or -entry to its left.
    if (cl.outputs.size() > outputs) cl.outputs.back().position = i;
    if (cl.targets.size() > targets) cl.targets.back().position = i;
    if (cl.entries.size() > entries) cl.entries.back().position = i;
  }
  return true;
}

void PrintHelp(std::FILE* out) {
  std::fprintf(out,
               "Usage: slopec [options] <file>\n\n"
               "Compiles a Slang compute shader. Flags are spelled as slangc spells them (one\n"
               "dash; a value after a space or '='); docs/cli.md describes each one.\n");
  for (size_t g = 0; g < std::size(kGroupTitles); ++g) {
    if (static_cast<Group>(g) == Group::Slope) continue;  // the refused slangc flags
    std::fprintf(out, "\n%s:\n", kGroupTitles[g]);
    for (const Flag& f : Flags()) {
      if (static_cast<size_t>(f.group) != g) continue;
      std::string left;
      for (const std::string& n : f.names) {
        if (n.rfind("--", 0) == 0) continue;
        left += (left.empty() ? "" : ", ") + n;
      }
      if (!f.value_name.empty()) left += " " + f.value_name;
      if (left.size() <= 30) {
        std::fprintf(out, "  %-30s %s\n", left.c_str(), f.help.c_str());
      } else {
        std::fprintf(out, "  %s\n  %-30s %s\n", left.c_str(), "", f.help.c_str());
      }
    }
  }
}

}  // namespace slope::tools::slopec
