// A workgroup size that specialization constants set (`[numthreads(kX, 1, 1)]` with
// `[vk::constant_id(3)] const uint kX = 64;`): the WorkgroupSize built-in, a uint3
// OpSpecConstantComposite of those constants and the other dimensions' literals. It
// overrides the entry point's LocalSize (which keeps the defaults) once the pipeline sets
// the constants, as glslang writes `layout(local_size_x_id = 3) in;`.

#include "compiler/targets/spirv/writer_internal.h"

namespace slope::targets::spirv {

void Writer::DeclareSpecWorkgroupSize(const ir::Function& entry) {
  const auto& spec = entry.entry.numthreads_spec;
  if (spec[0] == nullptr && spec[1] == nullptr && spec[2] == nullptr) return;
  const ir::Type* uint_type = module_.Types().Int(32, false);
  uint32_t uint_id = TypeId(uint_type);
  std::vector<uint32_t> operands{TypeId(module_.Types().Vector(uint_type, 3)), NewId()};
  uint32_t composite = operands[1];
  for (size_t i = 0; i < 3; ++i) {
    if (spec[i] == nullptr) {
      operands.push_back(U32Const(entry.entry.numthreads[i]));
    } else if (!spec[i]->GetType()->IsSigned()) {
      operands.push_back(values_.at(spec[i]));
    } else {
      // An int constant as a uint: `kX + 0u` (IAdd takes operands of either signedness).
      uint32_t as_uint = NewId();
      globals_.Emit(SpvOp::OpSpecConstantOp,
                    {uint_id, as_uint, static_cast<uint32_t>(SpvOp::OpIAdd), values_.at(spec[i]),
                     U32Const(0)});
      operands.push_back(as_uint);
    }
  }
  globals_.Emit(SpvOp::OpSpecConstantComposite, operands);
  decorations_.Emit(SpvOp::OpDecorate, {composite, static_cast<uint32_t>(spv::Decoration::BuiltIn),
                                        static_cast<uint32_t>(spv::BuiltIn::WorkgroupSize)});
  names_.Emit(SpvOp::OpName, Concat({composite}, NameWords("gl_WorkGroupSize")));
}

}  // namespace slope::targets::spirv
