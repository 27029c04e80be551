#include "tests/unit/runtime/glsl_to_spirv.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

namespace slope::runtime::testing {
namespace {

// glslang's process-wide tables live exactly as long as one compile (it counts calls).
class GlslangProcess {
 public:
  GlslangProcess() { glslang::InitializeProcess(); }
  ~GlslangProcess() { glslang::FinalizeProcess(); }
  GlslangProcess(const GlslangProcess&) = delete;
  GlslangProcess& operator=(const GlslangProcess&) = delete;
};

}  // namespace

bool CompileGlslCompute(const std::string& source, const std::string& entry,
                        std::vector<uint32_t>* spirv, std::string* error) {
  GlslangProcess process;
  glslang::TShader shader(EShLangCompute);
  const char* text = source.c_str();
  shader.setStrings(&text, 1);
  shader.setEntryPoint(entry.c_str());
  shader.setSourceEntryPoint("main");
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages)) {
    *error = std::string(shader.getInfoLog()) + shader.getInfoDebugLog();
    return false;
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    *error = std::string(program.getInfoLog()) + program.getInfoDebugLog();
    return false;
  }
  spirv->clear();
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), *spirv);
  return true;
}

}  // namespace slope::runtime::testing
