#include "tools/slope-run/via_glsl.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/targets/spirv/validate.h"

namespace slope::run {
namespace {

bool ReadAll(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

/// Runs `argv` with its standard output and error going to `log`; returns its exit status
/// (-1 when it could not be started or did not exit normally).
int RunLogged(const std::vector<std::string>& argv, const std::string& log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    std::FILE* out = std::freopen(log.c_str(), "w", stdout);
    if (out == nullptr || dup2(fileno(stdout), fileno(stderr)) < 0) _exit(127);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s\n", args[0]);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace

bool CompileGlslToSpirv(const std::string& glsl, const std::string& entry, bool scalar_layout,
                        std::vector<uint32_t>* spirv, std::string* error) {
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "slope-run-glsl-XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr) {
    *error = "cannot make a temporary directory";
    return false;
  }
  std::filesystem::path dir = dir_template;
  std::string source = (dir / "kernel.comp").string();
  std::string binary = (dir / "kernel.spv").string();
  std::string log = (dir / "glslang.log").string();
  bool ok = false;
  {
    std::ofstream out(source, std::ios::binary);
    out << glsl;
  }
  int status = RunLogged({SLOPE_GLSLANG_VALIDATOR, "-V", "--target-env", "vulkan1.1", "-e", entry,
                          "--source-entrypoint", "main", "-o", binary, source},
                         log);
  std::string messages, words;
  ReadAll(log, &messages);
  if (status != 0) {
    *error = "glslang rejected the GLSL output (exit " + std::to_string(status) + "):\n" +
             messages + "--- GLSL ---\n" + glsl;
  } else if (!ReadAll(binary, &words) || words.size() % 4 != 0 || words.empty()) {
    *error = "glslang wrote no SPIR-V:\n" + messages;
  } else {
    spirv->assign(words.size() / 4, 0);
    std::memcpy(spirv->data(), words.data(), words.size());
    std::string why;
    if (!targets::spirv::ValidateSpirv(*spirv, &why, scalar_layout)) {
      *error = "glslang's SPIR-V failed validation: " + why;
    } else {
      ok = true;
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return ok;
}

}  // namespace slope::run
