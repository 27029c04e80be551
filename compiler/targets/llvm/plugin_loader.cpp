#include "compiler/targets/llvm/plugin_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace slope::targets::llvm {
namespace {

std::string ProgramDir() {
  std::vector<char> path(4096);
  ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) return "";
  std::string exe(path.data(), static_cast<size_t>(n));
  size_t slash = exe.rfind('/');
  return slash == std::string::npos ? "" : exe.substr(0, slash);
}

struct Loaded {
  const Api* api = nullptr;
  std::string error;
};

Loaded Load() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("SLOPE_LLVM_PLUGIN"); env != nullptr && *env != '\0') {
    candidates.push_back(env);
  } else {
    std::string dir = ProgramDir();
    if (!dir.empty()) {
      candidates.push_back(dir + "/libslope_llvm.so");
#ifdef SLOPE_LLVM_PLUGIN_INSTALL_RELDIR
      // The install layout: bin/slopec finds lib/slope/libslope_llvm.so.
      candidates.push_back(dir + "/" SLOPE_LLVM_PLUGIN_INSTALL_RELDIR "/libslope_llvm.so");
#endif
    }
#ifdef SLOPE_LLVM_PLUGIN_BUILD_PATH
    candidates.push_back(SLOPE_LLVM_PLUGIN_BUILD_PATH);
#endif
  }
  Loaded out;
  std::string tried;
  for (const std::string& path : candidates) {
    if (access(path.c_str(), R_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      out.error = "cannot open the LLVM plugin " + path + ": " + dlerror();
      return out;
    }
    using Entry = const Api* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "slope_llvm_plugin_api"));
    const Api* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr || api->version != kApiVersion) {
      out.error = "the LLVM plugin " + path + " is from another build of Slope";
      return out;
    }
    out.api = api;
    return out;
  }
  out.error = "the LLVM targets need libslope_llvm.so, which is not installed (looked for " + tried + ")";
  return out;
}

}  // namespace

const Api* LoadLlvmPlugin(std::string* error) {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] { loaded = Load(); });
  if (loaded.api == nullptr) *error = loaded.error;
  return loaded.api;
}

}  // namespace slope::targets::llvm
