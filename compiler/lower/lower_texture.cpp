// Lowering of texture methods and `tex[coord]` (sema/check_texture.cpp) to `texture`
// instructions (ir::TextureOp). Load's mip level travels as its own operand; Sample
// becomes SampleLevel at level 0 (a compute kernel has no derivatives); GetDimensions
// is one size query whose components go to the `out` arguments.

#include "compiler/base/ice.h"
#include "compiler/lower/lowerer.h"

namespace slope::lower {

using ir::Op;
using ir::TextureOp;
using ir::Value;

namespace {

uint32_t Imm(TextureOp op) { return static_cast<uint32_t>(op); }

}  // namespace

Value* Lowerer::LoadTexel(const LValue& lv) {
  const ir::Type* tex = lv.texture->GetType();
  if (tex->IsWritable()) {
    return b_.Emit(Op::Texture, tex->Element(), {lv.texture, lv.texel_coord},
                   {Imm(TextureOp::Read)});
  }
  // `tex[c]` on a sampled texture reads mip level 0.
  Value* lod = module_->ConstInt(module_->Types().Int(32, true), 0);
  return b_.Emit(Op::Texture, tex->Element(), {lv.texture, lv.texel_coord, lod},
                 {Imm(TextureOp::Fetch)});
}

void Lowerer::StoreTexel(const LValue& lv, Value* value) {
  b_.Emit(Op::Texture, module_->Types().Void(), {lv.texture, lv.texel_coord, value},
          {Imm(TextureOp::Write)});
}

Value* Lowerer::LowerTextureIndex(const ast::IndexExpr* e) {
  LValue lv;
  lv.texture = LowerExpr(e->base);
  lv.texel_coord = LowerExpr(e->index);
  Loc(e->range);
  return LoadTexel(lv);
}

Value* Lowerer::LowerTextureMethod(const ast::CallExpr* call) {
  Value* tex = LowerExpr(call->receiver);
  std::vector<Value*> args;
  // A combined texture and sampler (Sampler2D) is its own sampler argument: the same value.
  for (const ast::Expr* a : call->args) args.push_back(a == call->receiver ? tex : LowerExpr(a));
  Loc(call->range);
  auto op = static_cast<TextureOp>(call->buffer_imm & 0xff);
  const ir::Type* result = LowerType(call->value_type);
  std::vector<Value*> operands{tex};
  std::vector<uint32_t> imms{Imm(op)};
  switch (op) {
    case TextureOp::Fetch: {
      if (tex->GetType()->IsTexelBuffer()) {
        // A typed buffer's Load(index): its one level.
        operands.push_back(args[0]);
        operands.push_back(module_->ConstInt(module_->Types().Int(32, true), 0));
        break;
      }
      // Load(int3(x, y, mip)): the coordinate, then the level.
      Value* packed = args[0];
      uint32_t n = packed->GetType()->Count() - 1;
      Value* coord = n == 1 ? static_cast<Value*>(b_.Extract(packed, 0))
                            : b_.Shuffle(packed, packed, [&] {
                                std::vector<uint32_t> lanes;
                                for (uint32_t i = 0; i < n; ++i) lanes.push_back(i);
                                return lanes;
                              }());
      operands.push_back(coord);
      operands.push_back(b_.Extract(packed, n));
      if (args.size() == 2) operands.push_back(args[1]);  // the texel offset
      break;
    }
    case TextureOp::Read:
      operands.push_back(args[0]);
      break;
    case TextureOp::SampleLevel: {
      // {sampler, coord, [lod], [offset]}: the level (0 for Sample) goes before the offset.
      bool no_lod = (call->buffer_imm & ast::kTextureNoLod) != 0;
      size_t before_offset = no_lod ? 2 : 3;
      operands.insert(operands.end(), args.begin(), args.begin() + before_offset);
      if (no_lod) operands.push_back(module_->ConstFloat(module_->Types().Float(32), 0.0));
      if (args.size() > before_offset) operands.push_back(args[before_offset]);
      break;
    }
    case TextureOp::SampleGrad:
    case TextureOp::SampleCmpLevelZero:
      operands.insert(operands.end(), args.begin(), args.end());
      break;
    case TextureOp::Gather:
      operands.insert(operands.end(), args.begin(), args.end());
      imms.push_back((call->buffer_imm >> 8) & 0xff);
      break;
    case TextureOp::Write:
    case TextureOp::Size:
    case TextureOp::Levels:
    case TextureOp::Atomic:
      SLOPE_ICE("texture method of an unexpected kind reached lowering");
  }
  return b_.Emit(Op::Texture, result, std::move(operands), std::move(imms));
}

Value* Lowerer::LowerTextureDims(const ast::CallExpr* call) {
  Value* tex = LowerExpr(call->receiver);
  const ir::Type* t = tex->GetType();
  const bool with_mip = (call->buffer_imm & 1) != 0;
  Loc(call->range);
  uint32_t sizes = static_cast<uint32_t>(call->args.size()) - (with_mip ? 2 : 0);
  const ir::Type* u32 = module_->Types().Int(32, false);
  std::vector<Value*> operands{tex};
  if (!t->IsWritable()) {
    // Sampled textures are queried at a level (0 unless given).
    Value* lod = with_mip ? LowerExpr(call->args[0]) : module_->ConstInt(u32, 0);
    operands.push_back(lod);
  }
  Loc(call->range);
  Value* size = b_.Emit(Op::Texture, module_->Types().Vector(u32, sizes), std::move(operands),
                        {Imm(TextureOp::Size)});
  size_t first = with_mip ? 1 : 0;
  for (uint32_t i = 0; i < sizes; ++i) {
    Value* part = sizes == 1 ? size : b_.Extract(size, i);
    const ast::Expr* out = call->args[first + i];
    StoreLValue(LowerLValue(out), ConvertValue(part, LowerType(out->type)));
  }
  if (with_mip) {
    Value* levels = b_.Emit(Op::Texture, u32, {tex}, {Imm(TextureOp::Levels)});
    const ast::Expr* out = call->args.back();
    StoreLValue(LowerLValue(out), ConvertValue(levels, LowerType(out->type)));
  }
  return nullptr;
}

}  // namespace slope::lower
