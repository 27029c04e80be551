#pragma once
// The Lowerer: private to lower/. Declarations and statements are in lower.cpp,
// expressions in lower_expr.cpp.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/base/ice.h"
#include "compiler/ir/builder.h"
#include "compiler/ir/ir.h"
#include "compiler/lower/bindings.h"
#include "compiler/sema/check.h"

namespace slope::lower {

using sema::IsCoreAtomic;

using ir::Op;
using ir::Value;

/// A place that can be read and written: a pointer, optionally narrowed to some
/// components of the vector it points at.
struct LValue {
  Value* ptr = nullptr;
  std::vector<uint32_t> swizzle;  ///< components written, in order
  Value* dynamic_index = nullptr; ///< v[i] on a vector
  /// `tex[coord]` of an RW texture: no pointer; the texel is read and written through
  /// `texture` instructions at `texel_coord`.
  Value* texture = nullptr;
  Value* texel_coord = nullptr;
};

/// Where `break` and `continue` go; a switch pushes its merge block and the enclosing
/// loop's continue block.
/// A type's name as it may appear in an IR identifier: "MyBuffer<float>" -> "MyBuffer.float".
std::string MangledTypeName(const sema::Type* t);

/// The IR name of the function `operator<op>` ("operator+" -> "operator.add").
std::string OperatorIrName(const std::string& name);

/// An `out` or `inout` argument: the temporary passed to the callee and the place it is
/// copied back to after the call.
struct OutArg {
  LValue place;
  Value* slot;
  /// For a property or subscript argument: the setter's call storing `slot` back.
  const ast::CallExpr* writeback = nullptr;
  /// For the hidden error result of a call that may throw: the error type; `slot` is
  /// then the callee's "threw" flag and `err_slot` its error value.
  const sema::Type* thrown = nullptr;
  Value* err_slot = nullptr;
};

struct LoopTargets {
  ir::Block* break_target;
  ir::Block* continue_target;
  /// `outer: for ...`: the loop's label, and the variable a `break outer;` (1) or
  /// `continue outer;` (2) from a nested loop or switch sets before leaving its own
  /// construct; each construct it crosses tests it after its end (see ExitPending).
  std::string label = {};
  ir::Value* exit_flag = nullptr;
  /// Indices in `loops_` of labeled loops that an exit from inside this one is heading to.
  std::vector<size_t> pending = {};
  /// How many `defer` scopes were open outside the construct (a jump out of it runs the
  /// deferred bodies of the ones above).
  size_t defer_depth = 0;
  /// The one-iteration loop of a `do`/`catch` (`exit_flag` says which clause runs; see
  /// lower_errors.cpp), or a switch: neither is what an unlabeled break or continue leaves.
  bool is_catch = false;
  bool is_switch = false;
};

class Lowerer {
 public:
  /// The shifts of `register` bindings (before Run).
  void SetBindingOptions(const BindingOptions& options) { binding_options_ = options; }
  Lowerer(const source::SourceManager& sources, sema::TypeContext& types)
      : sources_(sources), types_(types), module_(std::make_unique<ir::Module>()), b_(*module_) {}

  /// With `reachable_only` (and entry points), only what the entry points reach.
  std::unique_ptr<ir::Module> Run(const sema::CheckedModule& checked, bool reachable_only);

 private:
  BindingOptions binding_options_;
  std::function<bool(const ast::FuncDecl*)> check_deferred_body_;  ///< CheckedModule's
  /// The IR type of `t` in the function being lowered (its generic parameters bound).
  const ir::Type* LowerType(const sema::Type* t);
  /// `t` with the generic parameters of the function being lowered replaced.
  const sema::Type* Concrete(const sema::Type* t) { return types_.Substitute(t, subst_); }
  /// The IR function for `decl` specialized for `args` (one per generic parameter in
  /// decl->generic_context); created and queued for lowering on first use.
  ir::Function* Instance(const ast::FuncDecl* decl, const std::vector<const sema::Type*>& args);
  /// The specialized function a call resolves to once the caller's types are concrete:
  /// interface requirements are replaced by their implementations here.
  ir::Function* Callee(const ast::CallExpr* call);
  /// The instance of `f` with its generic parameters bound by `context` and, for its
  /// own parameters, by the generic arguments of `call` (when given).
  ir::Function* InstanceIn(const ast::FuncDecl* f, sema::Subst context, const ast::CallExpr* call);
  /// As InstanceIn, with f's own generic parameters bound to `own` (concrete types).
  ir::Function* InstanceWith(const ast::FuncDecl* f, sema::Subst context,
                             const std::vector<const sema::Type*>& own);
  /// Buffers, cbuffers and ConstantBuffer<T> globals (sema's `resources`, in source
  /// order): explicit bindings first (`[[vk::binding(b, s)]]`, `register(xN, spaceM)`),
  /// then the next free binding of set 0 for the rest.
  void DeclareGlobals(const std::vector<ast::Decl*>& resources);
  /// `groupshared` variables: globals that point into workgroup memory.
  void DeclareGroupShared(const std::vector<ast::VarDecl*>& vars);
  /// Non-const `static` globals: globals of type `ptr<private, T>`, remembered so that
  /// each entry point can initialize them (InitializeStatics).
  void DeclareStatics(const std::vector<ast::VarDecl*>& vars);
  /// Specialization constants: IR globals read as values, their defaults the literals
  /// sema folded their initializers to.
  void DeclareSpecConstants(const std::vector<ast::VarDecl*>& vars);
  /// At the start of an entry point: stores each static global's initial value (its
  /// initializer, else the type's default value: field defaults for a struct, else zero).
  void InitializeStatics();
  std::vector<const ast::VarDecl*> statics_;
  /// The push-constant block of entry point `decl`'s `uniform` parameters, made on first
  /// use: a struct of them, in parameter order.
  ir::Global* PushConstantsOf(const ast::FuncDecl* decl);
  /// The globals of struct global `var` holding buffers (sema's ResourceStruct or
  /// ParameterBlock), appended to `made` as (global, explicitly bound); a ParameterBlock's
  /// come with their set and bindings already chosen.
  /// `register(xN, spaceM)`: binding N (shifted by the class's shifts), set M.
  bool RegisterBinding(const std::vector<std::string>& args, uint32_t* binding,
                       uint32_t* set) const;
  void DeclareBufferArray(const ast::VarDecl* var, std::vector<std::pair<ir::Global*, bool>>* made,
                          std::set<std::pair<uint32_t, uint32_t>>* used);
  void DeclareResourceStruct(const ast::VarDecl* var,
                             std::vector<std::pair<ir::Global*, bool>>* made);
  /// The value of struct global `var` holding buffers: its members put together from
  /// their globals (legalize-resources resolves the buffers back to the globals).
  Value* LoadResourceStruct(const ast::VarDecl* var);
  /// The pointer to a local's, a parameter's, a groupshared variable's or uniform data's
  /// storage.
  Value* StorageOf(const ast::VarDecl* var) {
    auto it = locals_.find(var);
    if (it != locals_.end()) return it->second;
    if (var->uniform_kind == ast::UniformKind::CBufferMember) {
      return b_.MemberPtr(uniform_blocks_.at(var->uniform_block), var->uniform_index);
    }
    if (var->uniform_kind == ast::UniformKind::ConstantBuffer) {
      return b_.MemberPtr(globals_.at(var), 0);  // the one member of its block
    }
    return globals_.at(var);
  }
  void LowerFunction(const ast::FuncDecl* decl, ir::Function* f);
  void RemoveDeadBlocks(ir::Function* f);
  /// Appends `body`, the block after `entry` that LowerFunction lowers a body into, to
  /// `entry` (unless another branch enters it).
  void JoinEntryBlock(ir::Function* f, ir::Block* entry, ir::Block* body);
  /// The block LowerFunction lowers the body into, while it does.
  ir::Block* body_ = nullptr;

  // Statements.
  void LowerStmt(const ast::Stmt* stmt);

  // lower_errors.cpp: blocks with `defer`, `return`, break/continue, error handling.
  /// A block: its statements, then (if it ends normally) its deferred bodies.
  void LowerBlock(const std::vector<ast::Stmt*>& stmts);
  /// Lowers the deferred bodies of the scopes from the innermost down to `down_to`
  /// (excluded below), last deferred first: code leaving those scopes runs them.
  void RunDefers(size_t down_to);
  void LowerReturn(const ast::ReturnStmt* s);
  /// An unlabeled `break` or `continue`; `run_defers` is false when a `do`/`catch` passes
  /// on one that already ran them.
  void LowerJump(bool is_continue, bool run_defers);
  /// Leaves for the end of the `do`/`catch` loop `loops_[index]` with `code` in its flag.
  void JumpToCatch(size_t index, int64_t code);
  void LowerDoCatch(const ast::DoCatchStmt* s);
  /// An error `value` of type `err` leaving here: to the innermost `catch` of its type,
  /// else out of the function through its hidden error result.
  void LowerThrow(const sema::Type* err, Value* value);
  /// After a call that may throw: passes its error on when its flag is set.
  void LowerCallError(const OutArg& out);
  /// A throwing function's hidden parameters: `ptr<function, bool>` set when it throws,
  /// and `ptr<function, E>` receiving the error.
  void AddErrorParams(const ast::FuncDecl* decl, ir::Function* f);
  /// The `defer` bodies of the blocks being lowered, innermost last.
  std::vector<std::vector<const ast::Stmt*>> defer_scopes_;
  /// The `do` bodies being lowered, innermost last: their clauses' types and error slots.
  struct CatchTarget {
    size_t loop_index = 0;
    size_t defer_depth = 0;
    std::vector<const sema::Type*> types;
    std::vector<Value*> slots;
    bool uses_break = false;
    bool uses_continue = false;
  };
  std::vector<CatchTarget> catches_;
  Value* throw_flag_ = nullptr;  ///< the function's hidden "threw" parameter, or null
  Value* throw_err_ = nullptr;   ///< the function's hidden error parameter, or null
  void LowerIf(const ast::IfStmt* s);
  /// A loop; `imms` are its `loop`'s: the unrolling hint (an ir::LoopControl) and the
  /// [MaxIters] bound, or none.
  /// `break label;` / `continue label;`.
  void LowerLabeledExit(const std::string& label, bool is_continue);
  /// After a loop or switch ends: continues the multi-level exits that crossed it.
  void ExitPending(const std::vector<size_t>& pending);
  std::string next_loop_label_;  ///< the label of the loop LowerLoop lowers next
  /// `continue_throws`: the step (or a do-while's condition) holds a `try`, so it is
  /// evaluated at the end of the body, which is wrapped in a one-iteration loop that
  /// `continue` leaves (the continue construct of SPIR-V cannot branch to a catch).
  void LowerLoop(const ast::Stmt* init, const ast::Expr* cond, const ast::Expr* step,
                 const ast::Stmt* body, bool test_first, std::vector<uint32_t> imms = {},
                 bool continue_throws = false);
  /// `body` in a loop that runs once (a `do`/`catch`, or a loop body before a throwing
  /// step), with `target` (its clauses' types and slots) as the innermost catch and
  /// `which` as its flag; returns the target with what the body used (uses_break, ...).
  CatchTarget LowerOnceLoop(const ast::Stmt* body, Value* which, CatchTarget target);
  /// Runs `body` when the flag `which` holds `code`.
  void WhenFlag(Value* which, int64_t code, const std::function<void()>& body);
  /// A new int variable set to 0: a one-iteration loop's flag.
  Value* NewExitFlag();
  /// The body of a loop whose step throws, in its one-iteration loop (LowerLoop).
  void LowerBodyBeforeThrowingStep(const ast::Stmt* body);
  void LowerLocal(const ast::VarDecl* var);
  /// A `switch`: one block per clause (labels without statements share the next one's).
  void LowerSwitch(const ast::SwitchStmt* s);
  /// Starts a fresh block for code that follows a jump (it is unreachable).
  void StartDeadBlock();
  /// Whether no branch reaches the insertion block yet (after a jump, or after an `if`
  /// whose branches all jumped) or it is already terminated.
  bool InsertBlockUnreachable() const;
  /// The block StartDeadBlock placed last: no branch targets it.
  ir::Block* dead_block_ = nullptr;
  ir::Block* NewBlock() { return module_->AddBlock(func_); }
  void Place(ir::Block* block) {
    func_->blocks.push_back(block);
    b_.SetInsertBlock(block);
  }
  void Loc(source::SourceRange r) { b_.SetLoc(r.begin); }

  // Expressions.
  Value* LowerExpr(const ast::Expr* e);
  Value* LowerCall(const ast::CallExpr* call);
  /// A call of a `[__intrinsic_op]` function (lower_intrinsic.cpp): the IR intrinsic,
  /// or the arithmetic it stands for on types the intrinsic does not take.
  Value* LowerIntrinsicCall(const ast::CallExpr* call);
  /// A call of an atomic, barrier or wave function: its `atomic`, `barrier` or `wave`
  /// instruction; an atomic takes a pointer to its destination, not a copy.
  Value* LowerSyncCall(const ast::CallExpr* call);
  Value* LowerPrintf(const ast::CallExpr* call);
  /// A `spirv_asm` block: one `spirv_asm` (or, computing a value only, `spirv_asm_value`)
  /// instruction whose operands are the block's values and, for each `$$T`, a zero of T
  /// standing for the type.
  Value* LowerSpirvAsm(const ast::SpirvAsmExpr* e);
  /// A buffer method call (lower_resources.cpp).
  Value* LowerBufferMethod(const ast::CallExpr* call);
  /// Texture methods and `tex[coord]` reads (lower_texture.cpp).
  Value* LowerTextureMethod(const ast::CallExpr* call);
  Value* LowerTextureDims(const ast::CallExpr* call);
  /// `tex[coord]` as a value: a fetch of mip 0 (sampled) or a read (RW).
  Value* LowerTextureIndex(const ast::IndexExpr* e);
  /// The whole texel an LValue with a texture names, and its write.
  Value* LoadTexel(const LValue& lv);
  void StoreTexel(const LValue& lv, Value* value);
  /// A pointer to word `word` after byte offset `offset` of a byte address buffer.
  Value* WordPtr(Value* buffer, Value* offset, uint32_t word);
  /// Load<T> / Store<T>: a value of `t` from (into) consecutive words from `*word` on.
  Value* LoadWords(Value* buffer, Value* offset, const ir::Type* t, uint32_t* word);
  void StoreWords(Value* buffer, Value* offset, Value* value, uint32_t* word);
  /// A value of `t` made of 32-bit words in order (a struct's fields, an array's
  /// elements, a vector's lanes), each word from `next` reinterpreted as its scalar.
  Value* AssembleWords(const ir::Type* t, const std::function<Value*()>& next);
  /// The 32-bit words of `value` in that order, each as a uint given to `sink`.
  void DisassembleWords(Value* value, const std::function<void(Value*)>& sink);
  /// `reinterpret<T>(x)` between aggregates of 32-bit scalars: x's words fill T's in
  /// order, the rest zero.
  Value* ReinterpretWords(Value* value, const ir::Type* to);
  Value* LowerBinary(const ast::BinaryExpr* e);
  Value* LowerUnary(const ast::UnaryExpr* e);
  Value* LowerAssign(const ast::AssignExpr* e);
  Value* LowerShortCircuit(const ast::BinaryExpr* e);
  Value* LowerConditional(const ast::ConditionalExpr* e);
  /// A switch on `index` with `count` case blocks (the last also the default) and a new
  /// merge block; `merged` is its parameter of type `result` (null for void). Callers
  /// fill each case, branch to `merge` and place it.
  struct CaseSwitch {
    std::vector<ir::Block*> cases;
    ir::Block* merge = nullptr;
    ir::Param* merged = nullptr;
  };
  CaseSwitch SwitchOver(Value* index, size_t count, const ir::Type* result);
  /// `bufs[i]` on an array of buffers at an index not written as a constant.
  Value* LowerBufferChoice(const ast::IndexExpr* e);
  /// The `bufs[i]` (i not a constant, not yet fixed) that `e` uses directly as the
  /// buffer it reads, writes or passes: `bufs[i][j]`, `bufs[i][j] = v`, `f(bufs[i])`,
  /// `InterlockedAdd(bufs[i][j], v)`; null for anything else.
  const ast::IndexExpr* BufferChoiceIn(const ast::Expr* e);
  /// `e` lowered once per element of the array `choice` indexes, in a switch on the
  /// index (evaluated once): each case uses one global buffer.
  Value* LowerPerBuffer(const ast::Expr* e, const ast::IndexExpr* choice);
  /// The element each `bufs[i]` stands for while LowerPerBuffer lowers one case.
  std::map<const ast::IndexExpr*, uint32_t> fixed_choices_;
  /// `value is T` / `value as T` on an existential (lower/lower_existential.cpp).
  Value* LowerTypeTest(const ast::TypeTestExpr* e);
  Value* ArithmeticOp(ast::OpKind op, Value* a, Value* b);
  /// The IR name of struct type `t` ("geo.Ray", "Pair.float").
  std::string StructIrName(const sema::Type* t);

  // lower_pack.cpp: variadic generics.
  /// A variadic parameter: one IR parameter (and slot) per element of its pack.
  void LowerPackParam(const ast::VarDecl* param, ir::Function* f);
  /// A variadic argument (a group or an `expand`): one value per element, appended.
  void LowerPackArg(const ast::Expr* arg, std::vector<Value*>* out);
  /// `expand e`: e lowered once per element of the packs it captures, in order.
  std::vector<Value*> LowerExpand(const ast::PackExpr* e);
  Value* LowerPackExpr(const ast::PackExpr* e);
  /// The slot of the element `each v` reads in the current expansion.
  Value* EachSlot(const ast::PackExpr* e);
  /// The slots of the elements of each variadic parameter of the function being lowered.
  std::map<const ast::VarDecl*, std::vector<Value*>> pack_locals_;
  /// The element an `expand` is being lowered for; -1 outside one.
  int expand_index_ = -1;

  // lower_pointer.cpp
  /// Whether `e` is a place reached through a pointer (`*p`, `p->f`, `p[i].v[2]`).
  bool IsThroughPointer(const ast::Expr* e) const;
  /// The null device pointer of `type`.
  Value* NullPointer(const ir::Type* type);
  /// `pointer + count` or `pointer - count` (op Add or Sub), in elements.
  Value* OffsetPointer(ast::OpKind op, Value* pointer, Value* count);
  /// A device pointer's 64 bits (for comparisons).
  Value* PointerBits(Value* pointer);
  /// `*p`, `&x`, and `++`/`--` of a pointer.
  Value* LowerPointerUnary(const ast::UnaryExpr* e);
  Value* ConvertValue(Value* v, const ir::Type* to);
  Value* Zero(const ir::Type* t);
  /// Whether a field of struct `t`, or of a struct field inside it, has an initializer.
  bool HasFieldInitializers(const sema::Type* t);
  std::map<const sema::Type*, bool> has_field_inits_;
  Value* Zero(const ir::Type* t, std::map<const ir::Type*, Value*>* made);
  Value* ZeroOnce(const ir::Type* t, std::map<const ir::Type*, Value*>* made);
  Value* One(const ir::Type* t);
  LValue LowerLValue(const ast::Expr* e);
  Value* LoadLValue(const LValue& lv);
  void StoreLValue(const LValue& lv, Value* value);

  // Matrices (lower_matrix.cpp).
  /// A matrix of type `t` with every element `scalar`.
  Value* SplatMatrix(Value* scalar, const ir::Type* t);
  /// `m._m01_m10`: the elements `lanes` names (row * 4 + column each).
  Value* MatrixElements(Value* m, const std::vector<uint32_t>& lanes);
  /// `float2x2(a, b, c, d)`, `float2x2(row0, row1)` and mixes.
  Value* LowerMatrixConstructor(const ast::CallExpr* call);

  // Arrays, initializer lists and `out` arguments (lower_array.cpp).
  /// `a[i]` on an array value: an element pointer when `a` has storage, else a copy.
  Value* LowerArrayIndex(const ast::IndexExpr* e);
  /// `{...}` as a value of its (array or struct) type; missing elements are defaults.
  Value* LowerInitList(const ast::InitListExpr* e);
  /// Whether `e` names storage LowerLValue can point at without a copy.
  bool IsAddressable(const ast::Expr* e) const;
  /// The arguments of `call`; an `out`/`inout` one becomes a pointer to a temporary
  /// (holding the argument's value for `inout`), recorded in `outs`.
  std::vector<Value*> LowerArgs(const ast::CallExpr* call, std::vector<OutArg>* outs);
  /// Calls setter `set` (a write-back made by sema) with `value` as the value stored;
  /// a [mutating] setter updates a copy of its object that is stored back.
  void StoreThroughSetter(const ast::CallExpr* set, Value* value);
  /// The object a setter call `set` writes through: for a [mutating] setter, the place it
  /// lives and its value, copied and stored back by CallSetter; else its value, if any.
  struct SetterObject {
    bool mutating = false;
    LValue place;
    Value* value = nullptr;
  };
  SetterObject ObjectOfSetter(const ast::CallExpr* set);
  /// Calls setter `set` on `object` with subscript `index` and the new `value`.
  void CallSetter(const ast::CallExpr* set, const SetterObject& object,
                  const std::vector<Value*>& index, Value* value, source::SourceRange range);
  /// After the call: copies each temporary back to its argument, in order.
  void CopyBack(const std::vector<OutArg>& outs);

  // Structs (lower_struct.cpp).
  const ir::Type* LowerStructType(const sema::Type* t);
  /// The IR member holding field `field` of the concrete struct `t`: fields that take no
  /// storage (TypeContext::FieldIsAbsent) have none, and -1 is returned for them.
  int MemberIndex(const sema::Type* t, size_t field);
  /// The field of the concrete struct `t` that IR member `member` holds.
  size_t FieldOfMember(const sema::Type* t, size_t member);
  /// A place for a field that takes no storage: a fresh variable, whose stores go nowhere.
  LValue AbsentFieldPlace(const sema::Type* field_type);
  /// The default value of any type: DefaultValue for structs, per element for arrays,
  /// zero otherwise (IDefaultInitializable's synthesized `__init()`).
  Value* DefaultOf(const sema::Type* t);
  /// What `S s;` holds: each field's default value, else zero.
  Value* DefaultValue(const sema::Type* t);
  /// `S(...)`: an `__init` call, the default value or the member-wise construction.
  Value* LowerStructConstructor(const ast::CallExpr* call);
  /// A method call; a [mutating] one copies its receiver in and back out.
  Value* LowerMethodCall(const ast::CallExpr* call);
  // Properties, subscripts and user-defined operators (lower_accessors.cpp).
  /// An assignment through a setter (`e->setter`) or a user operator (`e->op_call`): the
  /// target's object and index arguments are evaluated once.
  Value* LowerUserAssign(const ast::AssignExpr* e);
  /// Calls the operator `call` resolved to with `first` as its first operand (the value
  /// its first argument stands for) and the other arguments lowered.
  Value* CallOperator(const ast::CallExpr* call, Value* first);

  // Interface-typed values (lower_existential.cpp). An existential of interface I is a
  // struct { tag, one member per concrete type packed into I }; its members, and the
  // bodies of the functions that pack, dispatch on and zero it, are made once lowering
  // has met every concrete type (FinishExistentials).
  struct Dispatch {
    const ast::FuncDecl* req;
    const sema::Type* via;                 ///< the interface `req` belongs to
    ir::Function* function;
    std::vector<ir::Function*> targets;    ///< one per concrete type, by tag
    std::vector<const sema::Type*> own;    ///< a generic requirement's own arguments
  };
  struct Existential {
    const sema::Type* iface;
    const ir::Type* type;
    std::vector<const sema::Type*> concrete;  ///< the packed types; the tag is the index
    std::vector<ir::Function*> packs;         ///< one per concrete type
    /// Per concrete type, when `is` / `as` asked for it: whether the value holds that
    /// type (-> bool), and the value of that type it holds (zero when another).
    std::vector<ir::Function*> tests, unpacks;
    std::vector<Dispatch> dispatchers;
    ir::Function* zero = nullptr;
    /// With [anyValueSize]: the stored form (lower_dynamic.cpp), the functions that
    /// convert to and from it, and whether a value may hold no type (kNoTag), as one read
    /// from memory with an id of no conforming type does.
    const ir::Type* stored = nullptr;
    ir::Function* load = nullptr;
    ir::Function* store = nullptr;
    bool dynamic = false;
  };
  /// The tag of an existential that holds no value: requirement calls on it return zero.
  static constexpr uint32_t kNoTag = 0xffffffffu;
  /// The id of no conforming type, which stored values of no type hold.
  static constexpr uint32_t kNoConformance = 0xffffffffu;
  /// The stored form of `iface` (with [anyValueSize]): a struct of 32-bit words, the
  /// header (type id, its high word, conformance id, its high word) then the payload.
  const ir::Type* StoredType(const sema::Type* iface);
  /// The existential whose stored form is `type`, or null.
  Existential* ExistentialByStored(const ir::Type* type);
  /// The existential a stored value holds, and the stored form of an existential.
  Value* LoadStored(Value* stored);
  Value* StoreStored(Value* value, const ir::Type* stored);
  /// `createDynamicObject<IFoo>(id, data)`.
  Value* LowerDynamicObject(const ast::CallExpr* call);
  /// The bodies of the load and store functions of `e`.
  void WriteStoredConversions(Existential& e);
  Existential& ExistentialOf(const sema::Type* iface);
  /// The existential whose IR struct is `type`, or null.
  Existential* ExistentialByType(const ir::Type* type);
  /// The IR struct that holds existentials of `iface`.
  const ir::Type* ExistentialType(const sema::Type* iface);
  /// `value` (of the concrete type `from`) packed into the interface type `iface`.
  Value* Pack(Value* value, const sema::Type* from, const sema::Type* iface);
  /// The tag of concrete type `from` in `e`, adding the type when it is new.
  size_t TagOf(Existential& e, const sema::Type* from);
  /// The function that calls requirement `req` (of interface `via`) on the concrete
  /// value inside an existential of `iface`, chosen by its tag.
  ir::Function* Dispatcher(const sema::Type* iface, const ast::FuncDecl* req, const sema::Type* via,
                           const ast::CallExpr* call);
  /// A zero existential (the tag of the first type, zero members).
  Value* ZeroExistential(const ir::Type* type);
  /// Adds each concrete type's implementation to every dispatcher; false when nothing
  /// was added.
  bool ExpandDispatchers();
  /// Defines the existential structs and writes the bodies of their functions.
  void FinishExistentials();
  /// The body of a dispatcher: a switch on the tag with one call per concrete type.
  void WriteDispatcher(const Existential& e, const Dispatch& d);
  /// The specialized implementation of requirement `req` of `iface` for `owner`.
  ir::Function* WitnessInstance(const sema::Type* owner, const ast::FuncDecl* req,
                                const sema::Type* iface, const ast::CallExpr* call,
                                const std::vector<const sema::Type*>* own = nullptr);
  /// `S.dzero()`, `S.dadd(a, b)` or `S.dmul(s, a)` of a struct whose IDifferentiable
  /// conformance sema synthesized: a function made once per struct type and operation.
  ir::Function* SynthesizedDiffOp(const sema::Type* owner, const ast::FuncDecl* req,
                                  const sema::Type* iface);
  /// a + b (scale null) or scale * b (a null), leaf by leaf over the float parts of a
  /// value of type `t`; parts of other scalar kinds carry no derivative and keep b's.
  Value* DiffLeaves(const ir::Type* t, Value* a, Value* b, Value* scale);
  /// `base`, or `base.N` with the first N that no function of the module has.
  std::string UniqueFunctionName(const std::string& base);
  /// The names of the module's functions, of its first `function_names_seen_` ones
  /// (UniqueFunctionName adds those added since): a lookup per new function rather than
  /// a walk of all of them (10^5 functions took a minute).
  std::unordered_set<std::string> function_names_;
  size_t function_names_seen_ = 0;
  /// Per base name, the suffix N to try first (the ones below are taken).
  std::unordered_map<std::string, int> next_suffix_;
  /// When only reachable functions are lowered: each non-generic function's IR name and
  /// its place among them in source order, taken before any is made.
  std::unordered_map<const ast::FuncDecl*, std::pair<std::string, size_t>> reserved_names_;
  std::unordered_map<const ir::Function*, size_t> source_index_;
  std::vector<std::unique_ptr<Existential>> existentials_;  ///< in creation order

  // Differentiation (lower_diff.cpp).
  /// Marks `f` (lowered from `decl`, specialized with `args`) [Differentiable] and links
  /// its custom derivative, specialized with the same arguments.
  void MarkDifferentiable(const ast::FuncDecl* decl, ir::Function* f,
                          const std::vector<const sema::Type*>& args = {});
  /// `fwd_diff(f)(args)`: a call of the function FwdDiffFunction makes.
  Value* LowerFwdDiffCall(const ast::CallExpr* call);
  /// The function a (non-nested) `fwd_diff`/`bwd_diff` operand names, as a call would.
  ir::Function* DiffOperandFunction(const ast::DiffExpr* diff);
  /// `fwd_diff(sin)` / `bwd_diff(pow)` of a built-in: a [Differentiable] function
  /// whose body applies the intrinsic to its parameters, one per instance.
  ir::Function* IntrinsicWrapper(const ast::DiffExpr* diff);
  /// The IR function `diff` denotes: bodiless, marked `fwd_diff(@f)` for the forward-mode
  /// pass to write; one per differentiated function.
  ir::Function* FwdDiffFunction(const ast::DiffExpr* diff);
  /// `bwd_diff(f)(args)`: a call of the function BwdDiffFunction makes (lower_bwd_diff.cpp).
  Value* LowerBwdDiffCall(const ast::CallExpr* call);
  /// The IR function `bwd_diff(f)` (or `bwd_diff(fwd_diff(f))`) denotes: bodiless,
  /// marked `bwd_diff(@f)` for the reverse-mode pass to write; one per differentiated
  /// function.
  ir::Function* BwdDiffFunction(const ast::DiffExpr* diff);
  /// The type of `this` in the backward derivative `bwd_diff(obj.method)` calls (that of
  /// `bwd_diff(S.method)`: a pair when the receiver's type, once specialized, is
  /// differentiable), and its direction.
  const sema::Type* BoundThisType(const ast::DiffExpr* diff, ast::ParamDirection* direction);
  /// For a chain with `receiver_first` (outermost operator `diff`, innermost `inner`):
  /// appends the receiver to `args` as the first parameter takes it, paired with zero
  /// derivatives at every level (through a `var` for an inout parameter, not copied back).
  void PushReceiverFirst(const ast::DiffExpr* diff, const ast::DiffExpr* inner,
                         std::vector<Value*>* args);
  /// `v` without its derivative (`detach`, `no_diff`): a call of an identity function
  /// that is not [Differentiable], one per type.
  Value* Detach(Value* v);

  /// The IR function name of a function or method ("f", "S.f", "S.__init").
  std::string FunctionName(const ast::FuncDecl* decl) const;

  const source::SourceManager& sources_;
  sema::TypeContext& types_;
  sema::Subst subst_;  ///< the generic arguments of the function being lowered
  struct Pending {
    const ast::FuncDecl* decl;
    std::vector<const sema::Type*> args;
    ir::Function* function;
  };
  std::vector<Pending> pending_;
  std::map<std::pair<const ast::FuncDecl*, std::vector<const sema::Type*>>, ir::Function*>
      instances_;
  std::unordered_map<const ir::Function*, const ast::FuncDecl*> instance_decls_;  ///< reverse
  /// By SynthesizedDiffOp, per (struct type, operation name).
  std::map<std::pair<const sema::Type*, std::string>, ir::Function*> synthesized_ops_;
  std::set<const ast::FuncDecl*> entries_;
  std::unique_ptr<ir::Module> module_;
  ir::Builder b_;
  std::map<const sema::Type*, const ir::Type*> type_cache_;
  /// Structs whose member types are being lowered (a pointer field may name one).
  std::set<const sema::Type*> structs_in_progress_;
  /// (primal, `this` bound by `fwd_diff(obj.method)`) -> its fwd_diff form.
  std::map<std::pair<const ir::Function*, bool>, ir::Function*> fwd_functions_;
  /// primal -> its bwd_diff form.
  std::map<const ir::Function*, ir::Function*> bwd_functions_;
  std::map<const ir::Type*, ir::Function*> detach_functions_;   ///< type -> identity
  std::map<std::pair<const ast::FuncDecl*, std::vector<const sema::Type*>>, ir::Function*>
      intrinsic_wrappers_;  ///< built-in and generic arguments -> IntrinsicWrapper
  std::map<const ast::VarDecl*, ir::Global*> globals_;
  /// The counter of each Append/ConsumeStructuredBuffer global.
  std::map<const ast::VarDecl*, ir::Global*> counters_;
  std::map<const ast::VarDecl*, ir::Global*> spec_constants_;
  /// `RWStructuredBuffer<int> bufs[2];`: one global per element, bound one after another.
  std::map<const ast::VarDecl*, std::vector<ir::Global*>> buffer_arrays_;
  std::map<const ast::AggregateDecl*, ir::Global*> uniform_blocks_;  ///< cbuffer -> global
  std::map<const ast::FuncDecl*, ir::Global*> push_constants_;       ///< entry -> its block
  /// A global struct holding buffers (or a ParameterBlock): per member of the struct, the
  /// buffer global bound for it, or the uniform buffer holding it and its index there.
  struct ResourceStructGlobals {
    std::vector<std::pair<ir::Global*, uint32_t>> members;
  };
  std::map<const ast::VarDecl*, ResourceStructGlobals> resource_structs_;
  uint32_t next_block_set_ = 1;  ///< the set the next ParameterBlock takes
  std::map<const ast::VarDecl*, Value*> locals_;
  std::vector<LoopTargets> loops_;
  ir::Function* func_ = nullptr;
  const ast::FuncDecl* decl_ = nullptr;  ///< the function being lowered
  base::IceLocationScope* ice_ = nullptr;  ///< names the statement being lowered in ICEs
};

}  // namespace slope::lower
