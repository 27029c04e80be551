#pragma once
// Reverse mode: the body of each function lowering made for a `bwd_diff(f)` (marked
// `bwd_diff(@f)`), as linearize -> unzip -> transpose. See compiler/autodiff/README.md.

#include <functional>
#include <map>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/passes/passes.h"

namespace slope::autodiff::reverse {

/// What writing one backward derivative needs from the rest of the pass.
struct ReverseContext {
  ir::Module& module;
  const passes::Options& options;
  /// The `bwd_diff` form of a callee (declared on first request, written later).
  std::function<ir::Function*(ir::Function*)> bwd_of;
  /// Gives the function about to be linearized its body when it has none yet (a JVP
  /// or pair form the forward-mode pass declared and writes on demand); may be empty.
  std::function<void(ir::Function*)> ensure_body;
};

/// Writes the body of `bwd` (marked `bwd_diff(@f)`, bodiless): `f`'s custom backward
/// derivative when it has one, else `f` linearized by forward mode (its JVP), split into
/// its primal part (kept, in order) and its linear part (transposed, in reverse order).
void BuildBackward(const ReverseContext& context, ir::Function* bwd);

/// Writes backward derivatives on demand, each once: the `bwd_diff` forms of the
/// module (those already written are reused, never written again) and the backward
/// derivatives of the callees they reach, declared as needed. The `bwd-diff` pass uses
/// one for the whole module; the `fwd-diff` pass one for `fwd_diff(bwd_diff(f))`.
class BackwardWriter {
 public:
  /// `ensure_body` as ReverseContext's (may be empty).
  BackwardWriter(ir::Module& module, const passes::Options& options,
                 std::function<void(ir::Function*)> ensure_body = {});
  BackwardWriter(const BackwardWriter&) = delete;
  BackwardWriter& operator=(const BackwardWriter&) = delete;
  /// Writes `bwd` (a bodiless `bwd_diff` form) and every backward derivative it calls.
  void Write(ir::Function* bwd);
  /// Writes every bodiless `bwd_diff` form of the module; false when there was none.
  bool WriteAll();

 private:
  /// The backward derivative of callee `f` in bwd_diff form: its custom one, the one
  /// lowering declared for a `bwd_diff(f)`, or a new one (every pointer parameter of a
  /// differentiable type taken as an inout pair); null when `f` has none.
  ir::Function* BwdOf(ir::Function* f);
  /// A struct {p, d} of a value of type `t` and its derivative.
  const ir::Type* PairType(const ir::Type* t);
  /// Writes the queued derivatives, and those they request.
  void Drain();

  ir::Module& module_;
  ReverseContext context_;
  std::map<const ir::Function*, ir::Function*> forms_;
  std::vector<ir::Function*> queue_;
  size_t written_ = 0;  ///< queue_[0, written_) are written
};

}  // namespace slope::autodiff::reverse
