#include "compiler/ir/verify_diff.h"

#include <map>
#include <set>

namespace slope::ir {

namespace {

/// Which types carry a derivative and of what type, as autodiff::DifferentialType
/// decides, asked of a module that may not be changed: a differential is recognized
/// rather than made.
class Differentials {
 public:
  explicit Differentials(const TypeTable& types) : types_(types) {}

  /// Whether values of type `t` carry a derivative.
  bool Carries(const Type* t) {
    switch (t->Kind()) {
      case TypeKind::Float:
        return true;
      case TypeKind::Vector:
        return t->Element()->IsFloat();
      case TypeKind::Matrix:
        return t->Scalar()->IsFloat();
      case TypeKind::Array:
        return Carries(t->Element());
      case TypeKind::Pointer:
        return t->Space() == AddressSpace::Function && Carries(t->Element());
      case TypeKind::Struct: {
        if (const TypeTable::DifferentialLayout* layout = types_.FindDifferential(t)) {
          return layout->differential != nullptr;
        }
        auto [it, inserted] = carries_.emplace(t, false);
        if (!inserted) return it->second;
        bool any = false;
        for (const Type* m : t->Members()) any = Carries(m) || any;
        carries_[t] = any;
        return any;
      }
      default:
        return false;
    }
  }

  /// Whether `d` is the derivative type of `t` (which carries one).
  bool IsDifferentialOf(const Type* d, const Type* t) {
    switch (t->Kind()) {
      case TypeKind::Array:
        return d->IsArray() && d->Count() == t->Count() &&
               IsDifferentialOf(d->Element(), t->Element());
      case TypeKind::Pointer:
        return d->IsPointer() && d->Space() == AddressSpace::Function &&
               IsDifferentialOf(d->Element(), t->Element());
      case TypeKind::Struct: {
        if (const TypeTable::DifferentialLayout* layout = types_.FindDifferential(t)) {
          return d == layout->differential;
        }
        if (d == t) return AllSelf(t);
        if (!d->IsStruct() || d->StructName() != t->StructName() + ".Differential") return false;
        size_t k = 0;
        for (const Type* m : t->Members()) {
          if (!Carries(m)) continue;
          if (k >= d->Members().size() || !IsDifferentialOf(d->Members()[k], m)) return false;
          ++k;
        }
        return k == d->Members().size();
      }
      default:
        return d == t;
    }
  }

  /// How a message names the derivative type of `t`.
  std::string DifferentialName(const Type* t) {
    switch (t->Kind()) {
      case TypeKind::Array:
        return "array<" + DifferentialName(t->Element()) + ", " + std::to_string(t->Count()) + ">";
      case TypeKind::Pointer:
        return "ptr<function, " + DifferentialName(t->Element()) + ">";
      case TypeKind::Struct:
        if (const TypeTable::DifferentialLayout* layout = types_.FindDifferential(t)) {
          return layout->differential->Name();
        }
        return AllSelf(t) ? t->Name() : "struct<" + t->StructName() + ".Differential>";
      default:
        return t->Name();
    }
  }

 private:
  /// A struct every member of which is its own derivative is its own derivative.
  bool AllSelf(const Type* t) {
    for (const Type* m : t->Members()) {
      if (!Carries(m) || !IsDifferentialOf(m, m)) return false;
    }
    return !t->Members().empty();
  }

  const TypeTable& types_;
  std::map<const Type*, bool> carries_;
};

class FormChecker {
 public:
  FormChecker(const Module& module, std::vector<std::string>* errors)
      : module_(module), diffs_(module.Types()), errors_(errors) {}

  void Run() {
    bool pending = false;
    for (const Function* f : module_.functions) {
      if (!Acyclic(*f)) continue;
      bool bodiless = f->blocks.empty();
      if (f->autodiff.fwd_diff_of != nullptr && bodiless) {
        pending = true;
        CheckFwd(*f, Primal(*f->autodiff.fwd_diff_of), *f,
                 "fwd_diff(@" + f->autodiff.fwd_diff_of->Name() + ")");
      }
      if (f->autodiff.bwd_diff_of != nullptr && bodiless) {
        pending = true;
        CheckBwd(*f, Primal(*f->autodiff.bwd_diff_of), *f,
                 "bwd_diff(@" + f->autodiff.bwd_diff_of->Name() + ")");
      }
    }
    if (!pending) return;
    for (const Function* f : module_.functions) {
      const Function* subst = f->autodiff.primal_substitute;
      if (subst != nullptr && !SameSignature(*f, *subst)) {
        Fail(*f, "primal_subst(@" + subst->Name() +
                     ") must have the function's parameter and result types");
      }
      if (const Function* g = f->autodiff.custom_fwd)
        CheckFwd(*g, *f, *f, "custom_fwd(@" + g->Name() + ")");
      if (const Function* g = f->autodiff.custom_bwd)
        CheckBwd(*g, *f, *f, "custom_bwd(@" + g->Name() + ")");
    }
  }

 private:
  void Fail(const Function& f, const std::string& msg) {
    errors_->push_back("in function @" + f.Name() + ": " + msg);
  }

  /// The function a derivative of `f` differentiates: its primal substitute, if any.
  static const Function& Primal(const Function& f) {
    return f.autodiff.primal_substitute != nullptr ? *f.autodiff.primal_substitute : f;
  }

  static bool SameSignature(const Function& a, const Function& b) {
    if (a.ResultType() != b.ResultType() || a.params.size() != b.params.size()) return false;
    for (size_t i = 0; i < a.params.size(); ++i) {
      if (a.params[i]->GetType() != b.params[i]->GetType()) return false;
    }
    return true;
  }

  /// Following fwd_diff / bwd_diff links from `f` never comes back to `f`.
  bool Acyclic(const Function& f) {
    std::set<const Function*> seen{&f};
    const Function* g = &f;
    while (true) {
      g = g->autodiff.fwd_diff_of != nullptr ? g->autodiff.fwd_diff_of : g->autodiff.bwd_diff_of;
      if (g == nullptr) return true;
      if (g == &f) {
        Fail(f, "its fwd_diff and bwd_diff links form a cycle");
        return false;
      }
      if (!seen.insert(g).second) return true;  // a cycle further on: reported there
    }
  }

  /// Whether parameter `i` of `f` is a location its derivatives take as the pair `t`.
  static bool IsPtrPair(const Function& f, size_t i, const Type* t) {
    for (const auto& [index, pair] : f.autodiff.ptr_params) {
      if (index == i && pair == t) return true;
    }
    return false;
  }

  /// Whether `t` is a pair struct {p, dp}.
  bool IsPair(const Type* t, const Type* p) {
    return t->IsStruct() && t->Members().size() == 2 && t->Members()[0] == p &&
           diffs_.IsDifferentialOf(t->Members()[1], p);
  }
  std::string PairName(const Type* p) {
    return "a pair {" + p->Name() + ", " + diffs_.DifferentialName(p) + "}";
  }
  static bool IsFunctionPointer(const Type* t) {
    return t->IsPointer() && t->Space() == AddressSpace::Function;
  }

  /// `form` (`label`: fwd_diff or custom_fwd of `f`) in the pair form of `f`'s
  /// signature; a problem is reported in function `named`.
  void CheckFwd(const Function& form, const Function& f, const Function& named,
                const std::string& label) {
    std::string head = label + " needs the pair form of @" + f.Name() + "'s signature: ";
    if (form.params.size() != f.params.size()) {
      Fail(named, head + std::to_string(f.params.size()) + " parameters, not " +
                      std::to_string(form.params.size()));
      return;
    }
    for (size_t i = 0; i < f.params.size(); ++i) {
      const Type* pt = f.params[i]->GetType();
      const Type* t = form.params[i]->GetType();
      if (t == pt || IsPtrPair(f, i, t)) continue;
      std::string expected = pt->Name();
      if (diffs_.Carries(pt)) {
        bool pointer = pt->IsPointer();
        const Type* value = pointer ? pt->Element() : pt;
        if (pointer ? IsFunctionPointer(t) && IsPair(t->Element(), value) : IsPair(t, value))
          continue;
        expected += pointer ? " or a pointer to " + PairName(value) : " or " + PairName(value);
      }
      Fail(named, head + "parameter " + std::to_string(i) + " has type " + t->Name() +
                      ", expected " + expected);
      return;
    }
    const Type* r = f.ResultType();
    bool carries = diffs_.Carries(r) && !f.autodiff.no_diff_result;
    if (carries ? !IsPair(form.ResultType(), r) : form.ResultType() != r) {
      Fail(named, head + "the result has type " + form.ResultType()->Name() + ", expected " +
                      (carries ? PairName(r) : r->Name()));
      return;
    }
    // The pair form of a function with a custom derivative calls it with its parameters.
    CheckCustomMatch(form, f, label, form.autodiff.fwd_diff_of, f.autodiff.custom_fwd,
                     "custom_fwd");
  }

  /// `form`, a derivative of `f` (`derivative_of` set) where `f` has the custom one
  /// `custom` (`kind`: custom_fwd or custom_bwd), has exactly its types.
  void CheckCustomMatch(const Function& form, const Function& f, const std::string& label,
                        const Function* derivative_of, const Function* custom,
                        const char* kind) {
    if (derivative_of == nullptr || custom == nullptr || SameSignature(form, *custom)) return;
    Fail(form, label + " must have the parameter and result types of @" + f.Name() + "'s " +
                   kind + "(@" + custom->Name() + ")");
  }

  /// `form` (`label`: bwd_diff or custom_bwd of `f`) in the backward form of `f`'s
  /// signature; a problem is reported in function `named`.
  void CheckBwd(const Function& form, const Function& f, const Function& named,
                const std::string& label) {
    std::string head = label + " needs the backward form of @" + f.Name() + "'s signature: ";
    const Type* r = f.ResultType();
    bool dresult = diffs_.Carries(r);
    size_t n = f.params.size();
    if (form.params.size() != n && !(dresult && form.params.size() == n + 1)) {
      Fail(named, head + std::to_string(n) + (dresult ? " or " + std::to_string(n + 1) : "") +
                      " parameters, not " + std::to_string(form.params.size()));
      return;
    }
    if (!form.ResultType()->IsVoid()) {
      Fail(named, head + "the result has type " + form.ResultType()->Name() + ", expected void");
      return;
    }
    for (size_t i = 0; i < n; ++i) {
      const Type* pt = f.params[i]->GetType();
      const Type* t = form.params[i]->GetType();
      if (t == pt || IsPtrPair(f, i, t)) continue;
      std::string expected = pt->Name();
      if (diffs_.Carries(pt)) {
        bool pointer = pt->IsPointer();
        const Type* value = pointer ? pt->Element() : pt;
        if (IsFunctionPointer(t) && IsPair(t->Element(), value)) continue;
        if (pointer && diffs_.IsDifferentialOf(t, value)) continue;
        expected += " or a pointer to " + PairName(value);
        if (pointer) expected += " or " + diffs_.DifferentialName(value);
      }
      Fail(named, head + "parameter " + std::to_string(i) + " has type " + t->Name() +
                      ", expected " + expected);
      return;
    }
    if (form.params.size() == n + 1 && !diffs_.IsDifferentialOf(form.params[n]->GetType(), r)) {
      Fail(named, head + "parameter " + std::to_string(n) + " has type " +
                      form.params[n]->GetType()->Name() + ", expected " +
                      diffs_.DifferentialName(r));
      return;
    }
    CheckCustomMatch(form, f, label, form.autodiff.bwd_diff_of, f.autodiff.custom_bwd,
                     "custom_bwd");
  }

  const Module& module_;
  Differentials diffs_;
  std::vector<std::string>* errors_;
};

}  // namespace

void VerifyDerivativeForms(const Module& module, std::vector<std::string>* errors) {
  FormChecker(module, errors).Run();
}

bool IsDifferentialOf(const TypeTable& types, const Type* d, const Type* t) {
  Differentials diffs(types);
  return diffs.Carries(t) && diffs.IsDifferentialOf(d, t);
}

}  // namespace slope::ir
