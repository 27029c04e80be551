// reject-recursion: reports every call that closes a cycle of the call graph, naming
// the functions of the cycle in call order (E3016, as sema reports recursion in source).
// Sema already rejects recursion it can see; this pass guards IR that comes from
// elsewhere (IR text, generated derivatives) before a target that cannot recurse.
// The IR is left as it was.

#include <functional>
#include <map>
#include <set>

#include "compiler/passes/passes.h"

namespace slope::passes {

Result RejectRecursion(ir::Module& module, const Options& options) {
  // Depth-first over calls in module order; a call to a function still on the stack is
  // a back edge, reported once per function it returns to.
  enum class Mark { None, Active, Done };
  std::map<const ir::Function*, Mark> marks;
  std::vector<const ir::Function*> stack;
  std::set<const ir::Function*> reported;
  std::function<void(const ir::Function*)> visit = [&](const ir::Function* f) {
    marks[f] = Mark::Active;
    stack.push_back(f);
    for (const ir::Block* b : f->blocks) {
      for (const ir::Inst* inst : b->insts) {
        if (inst->GetOp() != ir::Op::Call) continue;
        const ir::Function* callee = inst->callee;
        Mark m = marks[callee];
        if (m == Mark::None) {
          visit(callee);
        } else if (m == Mark::Active && reported.insert(callee).second) {
          std::string cycle;
          size_t start = 0;
          while (stack[start] != callee) ++start;
          for (size_t i = start; i < stack.size(); ++i) cycle += "'" + stack[i]->Name() + "' calls ";
          ReportError(options, diag::DiagId::RecursiveCall, inst->loc, cycle + "'" + callee->Name() + "'");
        }
      }
    }
    stack.pop_back();
    marks[f] = Mark::Done;
  };
  for (const ir::Function* f : module.functions) {
    if (marks[f] == Mark::None) visit(f);
  }
  return {};
}

}  // namespace slope::passes
