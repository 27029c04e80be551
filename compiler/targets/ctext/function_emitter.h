#pragma once
// The language-independent half of printing one IR function as C-like source: which
// SSA values become expressions inside their single use and which become variables,
// block parameters as variables assigned on the edges that pass arguments, and the
// structured control flow of `if`, `loop` and `switch` as `if`/`else`, `while (true)`
// and `switch` statements with `break` and `continue`. A language writer (GLSL, CUDA
// C++) derives from FunctionEmitter and supplies types, literals and instructions.
//
// Every value that is not folded into its use is a variable declared at the top of the
// function, so a value defined in one construct and used after it needs no scoping
// care, and a block reached along two paths that are not structured merges may be
// printed twice (the copies compute the same values into the same variables).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/targets/ctext/expr.h"
#include "compiler/targets/ctext/names.h"
#include "compiler/targets/ctext/text_writer.h"

namespace slope::targets::ctext {

class FunctionEmitter {
 public:
  FunctionEmitter(const ir::Function& f, NameTable names);
  virtual ~FunctionEmitter() = default;
  FunctionEmitter(const FunctionEmitter&) = delete;
  FunctionEmitter& operator=(const FunctionEmitter&) = delete;

  /// The statements of the function body at indentation `indent`: the variable
  /// declarations, then the code. Call once.
  std::string EmitBody(int indent);

 protected:
  // ---- Supplied by the language writer.
  /// A declaration of `name` with type `t` (`vec3 v1`, `float v2[4]`), no semicolon.
  virtual std::string Declare(const ir::Type* t, const std::string& name) = 0;
  /// A literal of scalar constant `c`.
  virtual Expr ConstantExpr(const ir::Constant& c) = 0;
  /// The expression a global stands for (a buffer's array, a workgroup variable).
  virtual Expr GlobalExpr(const ir::Global& g) = 0;
  /// The expression a function parameter stands for (its name, or a built-in).
  virtual Expr FunctionParamExpr(const ir::Param& p, size_t index) = 0;
  /// The expression an instruction computes: called for instructions folded into
  /// their use and for pointers (which are always expressions, lvalues).
  virtual Expr InstExpr(const ir::Inst& inst) = 0;
  /// Prints a non-terminator instruction that is not folded: assigns its value to
  /// ResultName(inst) when it has a used result, otherwise runs it for its effect.
  virtual void EmitInst(const ir::Inst& inst) = 0;
  /// False when the language cannot print `inst` as one expression (it needs
  /// statements), so it never folds into its use.
  virtual bool IsExpression(const ir::Inst& inst) const = 0;
  /// The case label of switch value `c` for a selector printed as SwitchSelector.
  virtual std::string CaseLabel(const ir::Constant& c) = 0;
  /// The selector expression of a switch (a conversion where the language needs one).
  virtual Expr SwitchSelector(const ir::Value* selector) { return ValueExpr(selector); }
  /// False when no value may be folded into its use (every result then goes through a
  /// variable, so that a qualifier on the variables reaches every operation).
  virtual bool FoldsValues() const { return true; }
  /// Whether `value`, used once by `user`, must still be a named variable (a writer that
  /// prints it several times in `user`'s text).
  virtual bool KeepsNamed(const ir::Inst& user, const ir::Inst& value) const { return false; }
  /// Whether `inst` is printed in every use instead of once (its operands then stay
  /// named): a device pointer the target cannot hold as a value, such as a row of a
  /// column-major matrix, which is only ever a place of its base (DevicePlace).
  virtual bool AlwaysFolds(const ir::Inst& inst) const { return false; }
  /// Whether `inst` is an element pointer into a device matrix laid out by `layout` when
  /// that is column-major (a row, or an element of one), which the C-like targets cannot
  /// hold as a pointer value: their AlwaysFolds.
  static bool DeviceMatrixRow(const ir::Inst& inst, ir::MatrixLayout layout);
  /// The language's boolean type and literal spelling.
  virtual std::string BoolType() const { return "bool"; }

  // ---- For the language writer.
  /// True for a pointer the text spells as the place it points at (an lvalue
  /// expression, never a variable); device pointers (`T*`) are values like any other.
  static bool IsPlace(const ir::Type* t) { return t->IsPointer() && !t->IsDevicePointer(); }
  /// True when `inst` is printed inside its one use rather than held in a variable.
  bool IsFolded(const ir::Inst& inst) const {
    return folded_.count(&inst) != 0 || AlwaysFolds(inst);
  }
  /// The expression of any value: a literal, a variable, or the folded expression.
  Expr ValueExpr(const ir::Value* v);
  /// The place a device pointer points at: a member or element of the place of a
  /// member or element pointer folded into this use, else DeviceDeref(p).
  Expr DevicePlace(const ir::Value* ptr);
  /// What `*p` is on the target (`*p` in C++, `p.v` for a glsl buffer reference).
  virtual Expr DeviceDeref(const Expr& p) { return Prefix("*", p); }
  /// The name of member `index` of struct `s`, as the target's declarations spell it.
  virtual std::string StructMemberName(const ir::Type* s, size_t index) = 0;
  /// The variable holding `inst`'s result (declared at the top of the function).
  const std::string& ResultName(const ir::Inst& inst);
  /// True when the result of `inst` is used.
  bool IsUsed(const ir::Inst& inst) const { return uses_.count(&inst) != 0; }
  /// A new variable of type `t` declared at the top of the function.
  std::string NewVariable(const ir::Type* t, std::string_view hint);
  TextWriter& Out() { return *out_; }
  const ir::Function& function_;
  NameTable names_;

 private:
  enum class Kind : uint8_t { Loop, Selection, Switch };
  struct Construct {
    Kind kind = Kind::Selection;
    const ir::Block* header = nullptr;
    const ir::Block* merge = nullptr;
    const ir::Block* cont = nullptr;           // loops
    std::vector<const ir::Block*> case_order;  // switches: targets in print order
    const ir::Block* next_case = nullptr;      // switches: the target printed next
    std::string break_flag;                    // loops: set before leaving from a switch
    bool flag_used = false;                    // switches: a loop break went through
  };
  void PlanFolding();
  void EmitBlock(const ir::Block* b);
  void EmitBlockInsts(const ir::Block* b);
  void EmitTerminator(const ir::Inst& t);
  /// Control goes from the current point to `to` passing `args`: assigns the block
  /// parameters, then breaks, continues, falls through or prints `to` in place.
  void EmitBranch(const ir::Block* to, const std::vector<ir::Value*>& args);
  void AssignParams(const ir::Block* to, const std::vector<ir::Value*>& args);
  void EmitIf(const ir::Inst& t);
  void EmitLoop(const ir::Block* header);
  void EmitSwitch(const ir::Inst& t);

  TextWriter* out_ = nullptr;
  std::map<const ir::Value*, uint32_t> uses_;
  std::set<const ir::Inst*> folded_;
  std::map<const ir::Value*, std::string> variables_;
  std::vector<std::string> declarations_;
  std::vector<Construct> constructs_;
  uint32_t next_temp_ = 0;
  int depth_ = 0;  ///< blocks being printed inside one another
};

}  // namespace slope::targets::ctext
