// `spirv_asm { ... }`: inline SPIR-V assembly. Instructions are separated by ';':
//   [%name | result] [: $$Type] = OpName operands...     (defines an id)
//   OpName operands...                                   (result type and id written
//                                                         as operands, if any)
// Operands: `$name` / `$(expr)` (a Slang value), `$$Type` (a Slang type), `%name` (an
// id of the block), `result`, integer and string literals, and enumerant names. The
// lexer makes `$` a token inside the braces only. Sema checks the instructions against
// the SPIR-V grammar.

#include "compiler/parse/parser_impl.h"

namespace slope::parse {

using diag::DiagId;

ast::Expr* Parser::ParseSpirvAsm() {
  source::SourceLoc begin = Advance().loc;  // spirv_asm
  Advance();                                // {
  auto* block = ctx_.New<ast::SpirvAsmExpr>(From(begin));
  uint32_t height = 0;
  while (!At(TokenKind::RBrace) && !At(TokenKind::EndOfFile)) {
    if (Consume(TokenKind::Semicolon)) continue;
    ast::SpirvAsmInst inst;
    if (!ParseSpirvAsmInst(&inst)) {
      // Skip to the block's end: one message per block.
      int depth = 1;
      while (!At(TokenKind::EndOfFile)) {
        if (At(TokenKind::LBrace)) ++depth;
        if (At(TokenKind::RBrace) && --depth == 0) break;
        Advance();
      }
      break;
    }
    for (const ast::SpirvAsmOperand& op : inst.operands) {
      if (op.value != nullptr) height = std::max(height, op.value->height);
    }
    block->insts.push_back(std::move(inst));
  }
  Expect(TokenKind::RBrace);
  block->range = From(begin);
  return SetHeight(block, height, block->range);
}

bool Parser::ParseSpirvAsmInst(ast::SpirvAsmInst* inst) {
  source::SourceLoc begin = Cur().loc;
  // A definition: `%name` or `result`, then `: $$T` and/or `=`.
  bool local_def = At(TokenKind::Percent) && Peek(1).Is(TokenKind::Identifier) &&
                   (Peek(2).Is(TokenKind::Colon) || Peek(2).Is(TokenKind::Equal));
  bool result_def =
      AtIdent("result") && (Peek(1).Is(TokenKind::Colon) || Peek(1).Is(TokenKind::Equal));
  if (local_def || result_def) {
    inst->has_def = true;
    if (!ParseSpirvAsmOperand(&inst->def)) return false;
    if (Consume(TokenKind::Colon)) {
      source::SourceLoc type_begin = Cur().loc;
      if (!Expect(TokenKind::Dollar) || !Expect(TokenKind::Dollar)) return false;
      inst->def_type = ParseType();
      if (panic_ || inst->def_type == nullptr) return false;
      inst->def_type->range = From(type_begin);
    }
    if (!Expect(TokenKind::Equal)) return false;
  }
  const Token* opcode = ExpectName("a SPIR-V opcode");
  if (opcode == nullptr) return false;
  inst->opcode = std::string(opcode->text);
  inst->opcode_range = opcode->Range();
  while (!At(TokenKind::Semicolon) && !At(TokenKind::RBrace) && !At(TokenKind::EndOfFile)) {
    ast::SpirvAsmOperand op;
    if (!ParseSpirvAsmOperand(&op)) return false;
    inst->operands.push_back(std::move(op));
  }
  inst->range = From(begin);
  return true;
}

bool Parser::ParseSpirvAsmOperand(ast::SpirvAsmOperand* op) {
  using Kind = ast::SpirvAsmOperand::Kind;
  source::SourceLoc begin = Cur().loc;
  const Token& tok = Cur();
  if (tok.Is(TokenKind::Dollar)) {
    Advance();
    if (Consume(TokenKind::Dollar)) {
      op->kind = Kind::Type;
      op->type = ParseType();
      if (panic_ || op->type == nullptr) return false;
    } else if (At(TokenKind::LParen)) {
      Advance();
      op->kind = Kind::Value;
      op->value = ParseExpr();
      if (panic_ || !Expect(TokenKind::RParen)) return false;
    } else if (At(TokenKind::Identifier)) {
      op->kind = Kind::Value;
      op->value = ParsePrimary();
      if (panic_) return false;
    } else {
      Error(DiagId::ExpectedToken, Cur().Range(), "a name, '(' or '$' after '$'", Describe(Cur()));
      return false;
    }
  } else if (tok.Is(TokenKind::Percent)) {
    Advance();
    const Token* name = ExpectName("an id name after '%'");
    if (name == nullptr) return false;
    op->kind = Kind::Local;
    op->text = std::string(name->text);
  } else if (tok.Is(TokenKind::Amp)) {
    Advance();
    op->kind = Kind::Address;
    op->value = ParsePrimary();
    if (panic_) return false;
  } else if (tok.Is(TokenKind::IntLiteral)) {
    Advance();
    op->kind = Kind::Int;
    op->number = tok.int_value;
  } else if (tok.Is(TokenKind::StringLiteral)) {
    ast::Expr* lit = ParsePrimary();
    op->kind = Kind::String;
    op->text = static_cast<ast::StringLiteralExpr*>(lit)->value;
  } else if (tok.Is(TokenKind::Identifier)) {
    Advance();
    if (tok.text == "result") {
      op->kind = Kind::Result;
    } else if (tok.text == "builtin" && At(TokenKind::LParen)) {
      // `builtin(Name:type)`: read to its ')' so that sema can name it.
      op->kind = Kind::Builtin;
      int depth = 0;
      while (!At(TokenKind::EndOfFile) && !At(TokenKind::Semicolon)) {
        if (At(TokenKind::LParen)) ++depth;
        if (At(TokenKind::RParen) && --depth == 0) {
          Advance();
          break;
        }
        Advance();
      }
    } else {
      op->kind = Kind::Name;
      op->text = std::string(tok.text);
    }
  } else {
    Error(DiagId::ExpectedToken, tok.Range(), "a spirv_asm operand", Describe(tok));
    return false;
  }
  op->range = From(begin);
  return true;
}

}  // namespace slope::parse
