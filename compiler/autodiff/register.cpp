#include "compiler/autodiff/passes.h"

namespace slope::autodiff {

void RegisterPasses() {
  static const bool registered = [] {
    passes::RegisterPass({"fwd-diff",
                          "write the forward derivative of each function fwd_diff names, and of what it calls",
                          &ForwardDiff});
    passes::RegisterPass({"bwd-diff",
                          "write the backward derivative of each function bwd_diff names, and of what it calls",
                          &BackwardDiff});
    return true;
  }();
  (void)registered;
}

}  // namespace slope::autodiff
