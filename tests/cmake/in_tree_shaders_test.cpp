// slope_add_shaders used inside Slope's build (tests/cmake/CMakeLists.txt): the embedded
// arrays hold exactly the files slopec wrote, and those are what the targets ask for.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "slope_in_tree_shaders/blur.spv-asm.h"
#include "slope_in_tree_shaders/blur.spv.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool Same(const char* name, const unsigned char* data, std::size_t size) {
  std::string file = ReadFile(std::string(SHADER_OUTPUT_DIR) + "/" + name);
  bool same = !file.empty() && file.size() == size && std::memcmp(file.data(), data, size) == 0 &&
              data[size] == 0;
  std::printf("%s: embedded %s equals the file slopec wrote (%zu bytes)\n", same ? "ok" : "FAILED",
              name, size);
  return same;
}

}  // namespace

int main() {
  namespace s = slope_in_tree_shaders;
  uint32_t magic = 0;
  std::memcpy(&magic, s::blur_spv, sizeof magic);
  bool spirv = magic == 0x07230203u && s::blur_spv_size % 4 == 0;
  std::printf("%s: blur.spv starts with the SPIR-V magic number\n", spirv ? "ok" : "FAILED");
  std::string text(reinterpret_cast<const char*>(s::blur_spv_asm));
  bool asm_ok = text.find("OpEntryPoint GLCompute") != std::string::npos;
  std::printf("%s: blur.spv-asm is the disassembly of a compute shader\n", asm_ok ? "ok" : "FAILED");
  bool same = Same("blur.spv", s::blur_spv, s::blur_spv_size) &
              Same("blur.spv-asm", s::blur_spv_asm, s::blur_spv_asm_size);
  return spirv && asm_ok && same ? 0 : 1;
}
