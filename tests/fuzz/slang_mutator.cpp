#include "tests/fuzz/slang_mutator.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

namespace slope::fuzz {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool IsPunct(const Tok& t, char c) {
  return t.kind == TokKind::Punct && t.text.size() == 1 && t.text[0] == c;
}
bool IsWord(const Tok& t, std::string_view w) { return t.kind == TokKind::Ident && t.text == w; }

/// The items of `list`, separated by '|'.
std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t bar = list.find('|', start);
    if (bar == std::string_view::npos) bar = list.size();
    out.emplace_back(list.substr(start, bar - start));
    start = bar + 1;
  }
  return out;
}

/// Words that are never renamed and never offered as a replacement name.
const std::set<std::string, std::less<>>& Keywords() {
  static const std::vector<std::string> kList = SplitList(
      "if|else|for|while|do|switch|case|default|return|break|continue|discard|struct|"
      "interface|enum|class|typealias|typedef|extension|import|module|namespace|using|static|"
      "const|inout|out|in|uniform|groupshared|let|var|true|false|this|This|__generic|__init|"
      "func|property|get|set|where|throws|try|sizeof|cbuffer|implementing|__include|export|"
      "public|private|internal|no_diff|fwd_diff|bwd_diff|detach|diffPair|associatedtype|"
      "__subscript|register|packoffset|row_major|column_major|precise|nointerpolation|"
      "override|__target_switch|spirv|cuda|glsl|defer|some|dyn|__ref|ref|static_assert|new|"
      "none");
  static const std::set<std::string, std::less<>> kWords(kList.begin(), kList.end());
  return kWords;
}

/// Type names offered for replacement (besides the program's own).
const std::vector<std::string>& BuiltinTypes() {
  static const std::vector<std::string> kTypes = SplitList(
      "float|int|uint|half|double|bool|float2|float3|float4|int2|int3|uint3|uint4|half3|"
      "double2|bool2|float2x2|float3x3|float4x4|float2x3|int64_t|uint64_t|int16_t|uint16_t|"
      "int8_t|uint8_t|void|vector<float, 3>|matrix<float, 2, 2>|DifferentialPair<float>|"
      "Array<float, 4>|Optional<int>|Tuple<int, float>|RWStructuredBuffer<float>|"
      "StructuredBuffer<float4>|Texture2D<float4>|ByteAddressBuffer|RWTexture2D<float>|"
      "SamplerState|Ptr<float>");
  return kTypes;
}

const std::vector<std::string>& Attributes() {
  static const std::vector<std::string> kAttrs = SplitList(
      "[Differentiable]|[ForceUnroll]|[MaxIters(4)]|[numthreads(1,1,1)]|[numthreads(64,1,1)]|"
      "[mutating]|[PreferRecompute]|[PreferCheckpoint]|[shader(\"compute\")]|[unroll]|[loop]|"
      "[noinline]|[ForceInline]|[TreatAsDifferentiable]|[NoDiffThis]|[BackwardDifferentiable]|"
      "[MaxIters(0)]|[MaxIters(65536)]|[unroll(3)]|[branch]|[flatten]|[require(spirv)]|"
      "[nodiscard]|[ForwardDifferentiable]");
  return kAttrs;
}

/// Attributes that name a function of the program.
const std::vector<std::string>& NamingAttributes() {
  static const std::vector<std::string> kAttrs = SplitList(
      "BackwardDerivative|ForwardDerivative|PrimalSubstitute|BackwardDerivativeOf|"
      "ForwardDerivativeOf|DerivativeMember");
  return kAttrs;
}

const std::vector<std::string>& Numbers() {
  static const std::vector<std::string> kNumbers = SplitList(
      "0|-1|1|2147483647|4294967295|-2147483648|65536|1e38|0.5|3.402823e+38|1e-45|0x7fffffff|"
      "1.0h|0.0|64|255|31|32|33|1000000|2|-0.0|1e308|9223372036854775807|"
      "0xffffffffffffffffull|3|4|1.5e-8");
  return kNumbers;
}

const std::vector<std::string>& Modifiers() {
  static const std::vector<std::string> kMods = SplitList(
      "inout|out|in|no_diff|const|static|precise|groupshared|uniform|static const|__ref|export|"
      "public|internal|nointerpolation");
  return kMods;
}

/// A small deterministic generator (splitmix64).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed * 0x2545f4914f6cdd1dull + 1) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }
  bool OneIn(size_t n) { return Below(n) == 0; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Below(v.size())];
  }

 private:
  uint64_t state_;
};

struct Range {
  size_t b;
  size_t e;  // one past the last token
};

struct Func {
  size_t name;
  size_t open;        // '(' of the parameters
  size_t close;       // its ')'
  size_t body_open;   // '{'
  size_t body_close;  // '}'
};

/// The structure found in a token list: bracket pairs, statement lists, functions,
/// generic argument lists, names.
struct Program {
  std::vector<Tok> toks;
  std::string trailing;
  std::vector<size_t> match;
  std::vector<std::vector<Range>> lists;  // the top level, then each { } block
  std::vector<bool> in_body;              // the token is inside a function body
  std::vector<Func> funcs;
  std::vector<Range> generics;  // '<' .. '>' inclusive
  std::vector<std::string> names;
  std::vector<std::string> types;
  std::vector<std::string> func_names;
  std::set<std::string, std::less<>> type_set;

  void Analyze();
  std::vector<Range> Split(size_t b, size_t e) const;
  size_t GenericEnd(size_t open) const;
  std::vector<Range> Args(size_t open) const;  // the comma-separated items of ( ) or < >
};

std::vector<Range> Program::Split(size_t b, size_t e) const {
  std::vector<Range> out;
  size_t i = b;
  while (i < e) {
    size_t j = i;
    while (j < e) {
      const Tok& t = toks[j];
      if (t.kind == TokKind::Preproc) {
        if (j == i) ++j;
        break;
      }
      if (IsPunct(t, ';')) {
        ++j;
        break;
      }
      if (IsPunct(t, '{') && match[j] != kNone && match[j] > j && match[j] < e) {
        j = match[j] + 1;
        if (j < e && (IsPunct(toks[j], ';') || IsWord(toks[j], "else") ||
                      IsWord(toks[j], "while") || IsPunct(toks[j], ','))) {
          continue;
        }
        break;
      }
      if ((IsPunct(t, '(') || IsPunct(t, '[')) && match[j] != kNone && match[j] > j &&
          match[j] < e) {
        j = match[j] + 1;
        continue;
      }
      ++j;
    }
    out.push_back({i, j});
    i = j;
  }
  return out;
}

size_t Program::GenericEnd(size_t open) const {
  int depth = 0;
  for (size_t j = open; j < toks.size() && j < open + 40; ++j) {
    const Tok& t = toks[j];
    if (IsPunct(t, '<')) {
      ++depth;
    } else if (IsPunct(t, '>')) {
      if (--depth == 0) return j;
    } else if (!(t.kind == TokKind::Ident || t.kind == TokKind::Number || IsPunct(t, ',') ||
                 IsPunct(t, '.') || IsPunct(t, ':') || IsPunct(t, '=') || IsPunct(t, '-'))) {
      return kNone;
    }
  }
  return kNone;
}

std::vector<Range> Program::Args(size_t open) const {
  std::vector<Range> out;
  size_t close = IsPunct(toks[open], '<') ? GenericEnd(open) : match[open];
  if (close == kNone || close <= open + 1) return out;
  size_t start = open + 1;
  int angle = 0;
  for (size_t j = open + 1; j < close; ++j) {
    const Tok& t = toks[j];
    if ((IsPunct(t, '(') || IsPunct(t, '[') || IsPunct(t, '{')) && match[j] != kNone &&
        match[j] > j && match[j] < close) {
      j = match[j];
      continue;
    }
    if (IsPunct(t, '<')) ++angle;
    if (IsPunct(t, '>') && angle > 0) --angle;
    if (IsPunct(t, ',') && angle == 0) {
      out.push_back({start, j});
      start = j + 1;
    }
  }
  out.push_back({start, close});
  return out;
}

void Program::Analyze() {
  size_t n = toks.size();
  match.assign(n, kNone);
  std::vector<size_t> stack;
  for (size_t i = 0; i < n; ++i) {
    const Tok& t = toks[i];
    if (t.kind != TokKind::Punct || t.text.size() != 1) continue;
    char c = t.text[0];
    if (c == '(' || c == '[' || c == '{') {
      stack.push_back(i);
    } else if (c == ')' || c == ']' || c == '}') {
      char open = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (!stack.empty() && toks[stack.back()].text[0] == open) {
        match[i] = stack.back();
        match[stack.back()] = i;
        stack.pop_back();
      }
    }
  }
  lists.clear();
  lists.push_back(Split(0, n));
  for (size_t i = 0; i < n; ++i) {
    if (IsPunct(toks[i], '{') && match[i] != kNone && match[i] > i) {
      lists.push_back(Split(i + 1, match[i]));
    }
  }
  funcs.clear();
  in_body.assign(n, false);
  static const std::set<std::string, std::less<>> kNotFunctions = {
      "if", "for", "while", "switch", "return", "sizeof", "catch", "__target_switch"};
  for (size_t p = 1; p < n; ++p) {
    if (!IsPunct(toks[p], '(') || match[p] == kNone || match[p] < p) continue;
    const Tok& name = toks[p - 1];
    if (name.kind != TokKind::Ident || kNotFunctions.count(name.text) != 0) continue;
    size_t q = match[p];
    for (size_t k = q + 1; k < n && k < q + 10; ++k) {
      const Tok& t = toks[k];
      if (IsPunct(t, '{')) {
        if (match[k] != kNone && match[k] > k) {
          funcs.push_back({p - 1, p, q, k, match[k]});
          for (size_t j = k + 1; j < match[k]; ++j) in_body[j] = true;
        }
        break;
      }
      if (!(t.kind == TokKind::Ident || IsPunct(t, ':') || IsPunct(t, '-') || IsPunct(t, '>') ||
            IsPunct(t, '<') || IsPunct(t, ','))) {
        break;
      }
    }
  }
  generics.clear();
  for (size_t i = 1; i < n; ++i) {
    if (!IsPunct(toks[i], '<') || toks[i - 1].kind != TokKind::Ident) continue;
    size_t end = GenericEnd(i);
    if (end != kNone) generics.push_back({i, end + 1});
  }
  std::set<std::string> name_set;
  std::set<std::string> type_names;
  std::set<std::string> func_set;
  for (size_t i = 0; i < n; ++i) {
    const Tok& t = toks[i];
    if (t.kind != TokKind::Ident || Keywords().count(t.text) != 0) continue;
    name_set.insert(t.text);
    if (i > 0 && (IsWord(toks[i - 1], "struct") || IsWord(toks[i - 1], "interface") ||
                  IsWord(toks[i - 1], "enum") || IsWord(toks[i - 1], "class") ||
                  IsWord(toks[i - 1], "typealias") || IsWord(toks[i - 1], "associatedtype"))) {
      type_names.insert(t.text);
    }
  }
  for (const Range& g : generics) {
    // Generic parameters: a name right after '<' or ',' followed by ',', '>', ':' or '='.
    for (size_t j = g.b + 1; j + 1 < g.e; ++j) {
      if (toks[j].kind != TokKind::Ident || Keywords().count(toks[j].text) != 0) continue;
      const Tok& prev = toks[j - 1];
      const Tok& next = toks[j + 1];
      if ((IsPunct(prev, '<') || IsPunct(prev, ',')) &&
          (IsPunct(next, ',') || IsPunct(next, '>') || IsPunct(next, ':') || IsPunct(next, '='))) {
        type_names.insert(toks[j].text);
      }
    }
  }
  for (const Func& f : funcs) func_set.insert(toks[f.name].text);
  names.assign(name_set.begin(), name_set.end());
  func_names.assign(func_set.begin(), func_set.end());
  types = BuiltinTypes();
  types.insert(types.end(), type_names.begin(), type_names.end());
  type_set.clear();
  for (const std::string& t : types) {
    if (t.find('<') == std::string::npos) type_set.insert(t);
  }
}

std::vector<Tok> Lex(std::string_view text) {
  std::string trailing;
  std::vector<Tok> toks = Tokenize(text, &trailing);
  for (Tok& t : toks) {
    if (t.before.empty()) t.before = " ";
  }
  // Punctuation reads better unspaced; either way the compiler sees the same tokens.
  for (size_t i = 0; i < toks.size(); ++i) {
    if (toks[i].kind == TokKind::Punct || (i > 0 && toks[i - 1].kind == TokKind::Punct)) {
      toks[i].before.clear();
    }
  }
  return toks;
}

/// Replaces toks[b, e) with `repl`, which takes over the layout before toks[b].
void Splice(std::vector<Tok>& toks, size_t b, size_t e, std::vector<Tok> repl) {
  if (b < toks.size() && !repl.empty()) {
    std::string before = toks[b].before;
    if (b == e) {
      toks[b].before = before.find('\n') != std::string::npos ? "\n" : " ";
    }
    repl[0].before = std::move(before);
  }
  if (!repl.empty() && repl[0].before.empty()) repl[0].before = " ";
  toks.erase(toks.begin() + static_cast<std::ptrdiff_t>(b),
             toks.begin() + static_cast<std::ptrdiff_t>(e));
  toks.insert(toks.begin() + static_cast<std::ptrdiff_t>(b), repl.begin(), repl.end());
}

std::vector<Tok> Copy(const std::vector<Tok>& toks, Range r) {
  return std::vector<Tok>(toks.begin() + static_cast<std::ptrdiff_t>(r.b),
                          toks.begin() + static_cast<std::ptrdiff_t>(r.e));
}

/// Swaps two disjoint ranges.
void SwapRanges(std::vector<Tok>& toks, Range a, Range b) {
  if (a.b > b.b) std::swap(a, b);
  if (a.e > b.b) return;
  std::vector<Tok> ca = Copy(toks, a);
  std::vector<Tok> cb = Copy(toks, b);
  Splice(toks, b.b, b.e, std::move(ca));
  Splice(toks, a.b, a.e, std::move(cb));
}

std::vector<Tok> Concat(std::vector<Tok> a, const std::vector<Tok>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// A random statement: the list it is in and its index there.
bool PickStatement(const Program& p, Rng& rng, size_t* list, size_t* index, bool body_only) {
  std::vector<std::pair<size_t, size_t>> all;
  for (size_t l = 0; l < p.lists.size(); ++l) {
    for (size_t s = 0; s < p.lists[l].size(); ++s) {
      if (body_only && !p.in_body[p.lists[l][s].b]) continue;
      all.emplace_back(l, s);
    }
  }
  if (all.empty()) return false;
  auto [l, s] = all[rng.Below(all.size())];
  *list = l;
  *index = s;
  return true;
}

/// A random place to insert a statement: the start of one, or the end of a list.
size_t PickInsertPoint(const Program& p, Rng& rng, bool body_only) {
  std::vector<size_t> points;
  for (const std::vector<Range>& list : p.lists) {
    for (const Range& r : list) {
      if (!body_only || p.in_body[r.b]) points.push_back(r.b);
    }
    if (!list.empty() && list.back().e < p.toks.size() &&
        (!body_only || p.in_body[list.back().e])) {
      points.push_back(list.back().e);
    }
  }
  if (points.empty()) return kNone;
  return points[rng.Below(points.size())];
}

std::vector<size_t> Tokens(const Program& p, bool (*keep)(const Program&, size_t)) {
  std::vector<size_t> out;
  for (size_t i = 0; i < p.toks.size(); ++i) {
    if (keep(p, i)) out.push_back(i);
  }
  return out;
}

// ---- the mutations; each returns false when the program has nothing it applies to ----

bool DeleteStatement(Program& p, Rng& rng) {
  size_t l, s;
  if (!PickStatement(p, rng, &l, &s, false)) return false;
  Range r = p.lists[l][s];
  Splice(p.toks, r.b, r.e, {});
  return true;
}

/// Renames what a copied declaration declares (the name after its type), so that the copy
/// does not just redefine it.
void RenameDeclared(std::vector<Tok>& copy) {
  for (size_t k = 1; k + 1 < copy.size(); ++k) {
    const Tok& prev = copy[k - 1];
    const Tok& next = copy[k + 1];
    if (copy[k].kind != TokKind::Ident || Keywords().count(copy[k].text) != 0) continue;
    if (!(prev.kind == TokKind::Ident || IsPunct(prev, '>') || IsPunct(prev, ']'))) continue;
    if (IsPunct(next, '=') || IsPunct(next, ';') || IsPunct(next, '(') || IsPunct(next, '[') ||
        IsPunct(next, ':') || IsPunct(next, '{') || IsPunct(next, '<')) {
      copy[k].text += "_c";
      return;
    }
  }
}

bool DuplicateStatement(Program& p, Rng& rng) {
  size_t l, s;
  if (!PickStatement(p, rng, &l, &s, false)) return false;
  Range r = p.lists[l][s];
  std::vector<Tok> copy = Copy(p.toks, r);
  if (!rng.OneIn(4)) RenameDeclared(copy);
  Splice(p.toks, r.e, r.e, std::move(copy));
  return true;
}

bool SwapStatements(Program& p, Rng& rng) {
  std::vector<size_t> lists;
  for (size_t l = 0; l < p.lists.size(); ++l) {
    if (p.lists[l].size() >= 2) lists.push_back(l);
  }
  if (lists.empty()) return false;
  const std::vector<Range>& list = p.lists[rng.Pick(lists)];
  size_t a = rng.Below(list.size());
  size_t b = rng.Below(list.size() - 1);
  if (b >= a) ++b;
  SwapRanges(p.toks, list[a], list[b]);
  return true;
}

bool CopyStatementElsewhere(Program& p, Rng& rng) {
  size_t l, s;
  bool body = rng.OneIn(2);
  if (!PickStatement(p, rng, &l, &s, body)) return false;
  size_t at = PickInsertPoint(p, rng, body);
  if (at == kNone) return false;
  Range r = p.lists[l][s];
  std::vector<Tok> copy = Copy(p.toks, r);
  if (rng.OneIn(3) && at < r.b) {
    // Move rather than copy.
    Splice(p.toks, r.b, r.e, {});
  } else if (!rng.OneIn(4)) {
    RenameDeclared(copy);
  }
  Splice(p.toks, at, at, std::move(copy));
  return true;
}

bool IsName(const Program& p, size_t i) {
  return p.toks[i].kind == TokKind::Ident && Keywords().count(p.toks[i].text) == 0;
}

bool ReplaceName(Program& p, Rng& rng) {
  std::vector<size_t> at = Tokens(p, IsName);
  if (at.empty() || p.names.size() < 2) return false;
  size_t i = rng.Pick(at);
  std::string name = rng.Pick(p.names);
  if (name == p.toks[i].text) return false;
  p.toks[i].text = name;
  return true;
}

bool ReplaceType(Program& p, Rng& rng) {
  std::vector<size_t> at;
  for (size_t i = 0; i < p.toks.size(); ++i) {
    if (p.toks[i].kind == TokKind::Ident && p.type_set.count(p.toks[i].text) != 0) {
      at.push_back(i);
    }
  }
  if (at.empty()) return false;
  size_t i = rng.Pick(at);
  Splice(p.toks, i, i + 1, Lex(rng.Pick(p.types)));
  return true;
}

std::string GenericArg(const Program& p, Rng& rng) {
  if (rng.OneIn(4)) return rng.Pick(Numbers());
  return rng.Pick(p.types);
}

bool MutateGenerics(Program& p, Rng& rng) {
  switch (rng.Below(4)) {
    case 0: {  // replace an argument
      if (p.generics.empty()) return false;
      std::vector<Range> args = p.Args(rng.Pick(p.generics).b);
      if (args.empty()) return false;
      Range a = rng.Pick(args);
      Splice(p.toks, a.b, a.e, Lex(GenericArg(p, rng)));
      return true;
    }
    case 1: {  // delete an argument, or all of them
      if (p.generics.empty()) return false;
      Range g = rng.Pick(p.generics);
      std::vector<Range> args = p.Args(g.b);
      if (args.size() < 2 || rng.OneIn(4)) {
        Splice(p.toks, g.b, g.e, {});
        return true;
      }
      size_t k = rng.Below(args.size());
      Range a = args[k];
      // Take the comma before it (or after the first).
      if (k > 0) {
        a.b -= 1;
      } else {
        a.e += 1;
      }
      Splice(p.toks, a.b, a.e, {});
      return true;
    }
    case 2: {  // add an argument
      if (p.generics.empty()) return false;
      Range g = rng.Pick(p.generics);
      Splice(p.toks, g.e - 1, g.e - 1, Lex(", " + GenericArg(p, rng)));
      return true;
    }
    default: {  // give a name generic arguments: a call's callee or a type
      std::vector<size_t> at;
      for (size_t i = 0; i + 1 < p.toks.size(); ++i) {
        if (!IsName(p, i) && p.type_set.count(p.toks[i].text) == 0) continue;
        if (IsPunct(p.toks[i + 1], '(') || p.type_set.count(p.toks[i].text) != 0) {
          at.push_back(i);
        }
      }
      if (at.empty()) return false;
      size_t i = rng.Pick(at);
      std::string args = GenericArg(p, rng);
      if (rng.OneIn(3)) args += ", " + GenericArg(p, rng);
      Splice(p.toks, i + 1, i + 1, Lex("<" + args + ">"));
      return true;
    }
  }
}

/// The '[' of attributes: a bracket group that starts a statement or declaration.
std::vector<Range> AttributeGroups(const Program& p) {
  std::vector<Range> out;
  for (size_t i = 0; i + 1 < p.toks.size(); ++i) {
    if (!IsPunct(p.toks[i], '[') || p.match[i] == kNone || p.match[i] < i) continue;
    if (p.toks[i + 1].kind != TokKind::Ident) continue;
    if (i > 0) {
      const Tok& prev = p.toks[i - 1];
      if (!(IsPunct(prev, ';') || IsPunct(prev, '{') || IsPunct(prev, '}') || IsPunct(prev, ']') ||
            IsPunct(prev, '(') || IsPunct(prev, ',') || prev.kind == TokKind::Preproc)) {
        continue;
      }
    }
    out.push_back({i, p.match[i] + 1});
  }
  return out;
}

std::string NewAttribute(const Program& p, Rng& rng) {
  if (!p.func_names.empty() && rng.OneIn(4)) {
    return "[" + rng.Pick(NamingAttributes()) + "(" + rng.Pick(p.func_names) + ")]";
  }
  return rng.Pick(Attributes());
}

bool MutateAttributes(Program& p, Rng& rng) {
  std::vector<Range> groups = AttributeGroups(p);
  size_t what = rng.Below(4);
  if (groups.empty()) what = 2 + rng.Below(2);
  if (what == 0) {
    Range g = rng.Pick(groups);
    Splice(p.toks, g.b, g.e, {});
    return true;
  }
  if (what == 1) {
    Range g = rng.Pick(groups);
    Splice(p.toks, g.b, g.e, Lex(NewAttribute(p, rng)));
    return true;
  }
  if (what == 2) {  // before a statement or declaration
    size_t at = PickInsertPoint(p, rng, rng.OneIn(2));
    if (at == kNone) return false;
    Splice(p.toks, at, at, Lex(NewAttribute(p, rng)));
    return true;
  }
  // Before a function.
  if (p.funcs.empty()) return false;
  const Func& f = rng.Pick(p.funcs);
  // The start of its declaration: back over the return type and earlier attributes.
  size_t at = f.name;
  while (at > 0 && (p.toks[at - 1].kind == TokKind::Ident || IsPunct(p.toks[at - 1], '>') ||
                    IsPunct(p.toks[at - 1], ']'))) {
    const Tok& prev = p.toks[at - 1];
    if (IsPunct(prev, ']') || IsPunct(prev, '>')) {
      // Do not walk into brackets: stop before them.
      break;
    }
    --at;
  }
  Splice(p.toks, at, at, Lex(NewAttribute(p, rng)));
  return true;
}

bool IsNumber(const Program& p, size_t i) { return p.toks[i].kind == TokKind::Number; }

bool ReplaceNumber(Program& p, Rng& rng) {
  std::vector<size_t> at = Tokens(p, IsNumber);
  if (at.empty()) return false;
  size_t i = rng.Pick(at);
  Splice(p.toks, i, i + 1, Lex(rng.Pick(Numbers())));
  return true;
}

/// An operand inside a function body: a name, a number, a call or a parenthesized group.
bool PickOperand(const Program& p, Rng& rng, Range* out, bool calls_only) {
  std::vector<Range> at;
  for (size_t i = 0; i < p.toks.size(); ++i) {
    if (!p.in_body[i]) continue;
    const Tok& t = p.toks[i];
    bool call = i + 1 < p.toks.size() && IsPunct(p.toks[i + 1], '(') && p.match[i + 1] != kNone &&
                p.match[i + 1] > i;
    if (calls_only) {
      if (call && IsName(p, i)) at.push_back({i, p.match[i + 1] + 1});
      continue;
    }
    if (call && IsName(p, i)) {
      at.push_back({i, p.match[i + 1] + 1});
    } else if (IsName(p, i) || t.kind == TokKind::Number) {
      // Not a declaration's name or type: skip names followed by a name.
      if (i + 1 < p.toks.size() && p.toks[i + 1].kind == TokKind::Ident) continue;
      at.push_back({i, i + 1});
    } else if (IsPunct(t, '(') && p.match[i] != kNone && p.match[i] > i && i > 0 &&
               p.toks[i - 1].kind == TokKind::Punct) {
      at.push_back({i, p.match[i] + 1});
    }
  }
  if (at.empty()) return false;
  *out = rng.Pick(at);
  return true;
}

bool WrapOperand(Program& p, Rng& rng) {
  if (rng.OneIn(2)) {
    // A call of one of the program's functions through its derivative.
    Range call;
    if (!PickOperand(p, rng, &call, true)) return false;
    std::string callee = p.toks[call.b].text;
    static const std::vector<std::string> kOps = {"fwd_diff", "bwd_diff", "__fwd_diff",
                                                  "__bwd_diff"};
    std::string op = rng.Pick(kOps);
    std::vector<Range> args = p.Args(call.b + 1);
    if (op == "fwd_diff" && rng.OneIn(2)) {
      // Pair each argument with a tangent, as a forward derivative takes them.
      std::vector<Tok> out = Lex(op + "(" + callee + ")(");
      for (size_t k = 0; k < args.size(); ++k) {
        out = Concat(std::move(out), Lex(k > 0 ? ", diffPair(" : "diffPair("));
        out = Concat(std::move(out), Copy(p.toks, args[k]));
        out = Concat(std::move(out), Lex(rng.OneIn(2) ? ", 1.0)" : ")"));
      }
      out = Concat(std::move(out), Lex(")"));
      Splice(p.toks, call.b, call.e, std::move(out));
      return true;
    }
    Splice(p.toks, call.b, call.b + 1, Lex(op + "(" + callee + ")"));
    return true;
  }
  Range r;
  if (!PickOperand(p, rng, &r, false)) return false;
  static const std::vector<std::string> kWraps = {"detach(",  "no_diff(", "diffPair(",
                                                  "(float)(", "(int)(",   "-("};
  std::vector<Tok> out = Lex(rng.Pick(kWraps));
  out = Concat(std::move(out), Copy(p.toks, r));
  out = Concat(std::move(out), Lex(")"));
  Splice(p.toks, r.b, r.e, std::move(out));
  return true;
}

bool MutateParameters(Program& p, Rng& rng) {
  std::vector<size_t> opens;
  for (size_t i = 1; i < p.toks.size(); ++i) {
    if (IsPunct(p.toks[i], '(') && p.toks[i - 1].kind == TokKind::Ident && p.match[i] != kNone &&
        p.match[i] > i + 1) {
      opens.push_back(i);
    }
  }
  // Half the time a function's parameters rather than any call's arguments.
  if (!p.funcs.empty() && rng.OneIn(2)) {
    opens.clear();
    for (const Func& f : p.funcs) {
      if (f.close > f.open + 1) opens.push_back(f.open);
    }
  }
  if (opens.empty()) return false;
  size_t open = rng.Pick(opens);
  std::vector<Range> args = p.Args(open);
  if (args.empty()) return false;
  size_t k = rng.Below(args.size());
  Range a = args[k];
  switch (rng.Below(3)) {
    case 0:  // delete
      if (args.size() > 1) {
        if (k > 0) {
          a.b -= 1;
        } else {
          a.e += 1;
        }
      }
      Splice(p.toks, a.b, a.e, {});
      return true;
    case 1: {  // duplicate, the copy renamed when its last token is a name
      std::vector<Tok> copy = Copy(p.toks, a);
      if (!copy.empty() && copy.back().kind == TokKind::Ident && rng.OneIn(2)) {
        copy.back().text += "_1";
      }
      Splice(p.toks, a.e, a.e, Concat(Lex(","), copy));
      return true;
    }
    default: {  // a modifier in front
      if (a.b >= a.e) return false;
      Splice(p.toks, a.b, a.b, Lex(rng.Pick(Modifiers())));
      return true;
    }
  }
}

bool MutateBodies(Program& p, Rng& rng) {
  if (p.funcs.size() < 2) return false;
  size_t a = rng.Below(p.funcs.size());
  size_t b = rng.Below(p.funcs.size() - 1);
  if (b >= a) ++b;
  Range ra{p.funcs[a].body_open, p.funcs[a].body_close + 1};
  Range rb{p.funcs[b].body_open, p.funcs[b].body_close + 1};
  // Nested bodies (a method inside a struct inside ...) overlap: not swapped.
  if ((ra.b <= rb.b && rb.b < ra.e) || (rb.b <= ra.b && ra.b < rb.e)) return false;
  if (rng.OneIn(3)) {
    Splice(p.toks, ra.b, ra.e, Copy(p.toks, rb));  // a copy of one body in place of another
  } else {
    SwapRanges(p.toks, ra, rb);
  }
  return true;
}

bool MutateModifiers(Program& p, Rng& rng) {
  size_t at = PickInsertPoint(p, rng, rng.OneIn(2));
  if (at == kNone) return false;
  Splice(p.toks, at, at, Lex(rng.Pick(Modifiers())));
  return true;
}

bool ReplaceOperator(Program& p, Rng& rng) {
  static const std::string kOps = "+-*/%&|^";
  std::vector<size_t> at;
  for (size_t i = 1; i + 1 < p.toks.size(); ++i) {
    const Tok& t = p.toks[i];
    if (!p.in_body[i] || t.kind != TokKind::Punct || kOps.find(t.text[0]) == std::string::npos) {
      continue;
    }
    // Binary operators only, and not part of '++', '+=', '&&', '->' and the like.
    const Tok& prev = p.toks[i - 1];
    const Tok& next = p.toks[i + 1];
    if (next.before.empty() && next.kind == TokKind::Punct) continue;
    if (t.before.empty() && prev.kind == TokKind::Punct && !IsPunct(prev, ')') &&
        !IsPunct(prev, ']')) {
      continue;
    }
    if (prev.kind == TokKind::Punct && !IsPunct(prev, ')') && !IsPunct(prev, ']')) continue;
    at.push_back(i);
  }
  if (at.empty()) return false;
  size_t i = rng.Pick(at);
  p.toks[i].text = std::string(1, kOps[rng.Below(kOps.size())]);
  return true;
}

bool MutateControl(Program& p, Rng& rng) {
  if (rng.OneIn(3)) {
    size_t at = PickInsertPoint(p, rng, true);
    if (at == kNone) return false;
    static const std::vector<std::string> kStatements = {
        "return;",     "break;", "continue;", "discard;",   "return 0;",
        "return 0.5;", "{ }",    ";",         "return {};", "defer {}"};
    Splice(p.toks, at, at, Lex(rng.Pick(kStatements)));
    return true;
  }
  size_t l, s;
  if (!PickStatement(p, rng, &l, &s, true)) return false;
  Range r = p.lists[l][s];
  static const std::vector<std::string> kHeads = {
      "for (int fz_i = 0; fz_i < 3; fz_i++) {",
      "[ForceUnroll] for (int fz_i = 0; fz_i < 2; fz_i++) {",
      "[MaxIters(4)] for (uint fz_i = 0; fz_i < 100; fz_i++) {",
      "for (int fz_i = 5; fz_i > 0; fz_i--) {",
      "[loop] while (true) {",
      "if (true) {",
      "if (false) {",
      "do {",
      "{",
      "switch (0) { case 0: {",
  };
  size_t h = rng.Below(kHeads.size());
  std::string head = kHeads[h];
  std::string tail = head == "do {"                                   ? "} while (false);"
                     : head.find("switch") == 0                       ? "break; } default: break; }"
                     : head.find("while (true)") != std::string::npos ? "break; }"
                                                                      : "}";
  std::vector<Tok> out = Concat(Lex(head), Copy(p.toks, r));
  out = Concat(std::move(out), Lex(tail));
  Splice(p.toks, r.b, r.e, std::move(out));
  return true;
}

using Mutation = bool (*)(Program&, Rng&);

struct Weighted {
  Mutation run;
  size_t weight;
};

const std::vector<Weighted>& Mutations() {
  static const std::vector<Weighted> kMutations = {
      {DeleteStatement, 6},  {DuplicateStatement, 4},
      {SwapStatements, 4},   {CopyStatementElsewhere, 4},
      {ReplaceName, 8},      {ReplaceType, 8},
      {MutateGenerics, 5},   {MutateAttributes, 6},
      {ReplaceNumber, 5},    {WrapOperand, 6},
      {MutateParameters, 6}, {MutateBodies, 3},
      {MutateModifiers, 2},  {ReplaceOperator, 3},
      {MutateControl, 5},
  };
  return kMutations;
}

Mutation PickMutation(Rng& rng) {
  size_t total = 0;
  for (const Weighted& w : Mutations()) total += w.weight;
  size_t r = rng.Below(total);
  for (const Weighted& w : Mutations()) {
    if (r < w.weight) return w.run;
    r -= w.weight;
  }
  return Mutations().back().run;
}

Program Parse(std::string_view text) {
  Program p;
  p.toks = Tokenize(text, &p.trailing);
  p.Analyze();
  return p;
}

}  // namespace

std::vector<Tok> Tokenize(std::string_view s, std::string* trailing) {
  std::vector<Tok> toks;
  std::string before;
  size_t i = 0;
  size_t n = s.size();
  bool line_start = true;
  while (i < n) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      if (c == '\n') line_start = true;
      before += c;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && (s[i + 1] == '/' || s[i + 1] == '*')) {
      size_t end;
      if (s[i + 1] == '/') {
        end = s.find('\n', i);
        if (end == std::string_view::npos) end = n;
      } else {
        end = s.find("*/", i + 2);
        end = end == std::string_view::npos ? n : end + 2;
      }
      before.append(s.substr(i, end - i));
      i = end;
      continue;
    }
    size_t start = i;
    TokKind kind;
    if (c == '#' && line_start) {
      // A preprocessor line, with its continuations.
      while (i < n && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
          i += 2;
        } else {
          ++i;
        }
      }
      kind = TokKind::Preproc;
    } else if (IsIdentStart(c)) {
      while (i < n && IsIdentChar(s[i])) ++i;
      kind = TokKind::Ident;
    } else if (IsDigit(c) || (c == '.' && i + 1 < n && IsDigit(s[i + 1]))) {
      bool hex = c == '0' && i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
      ++i;
      while (i < n) {
        char d = s[i];
        if (IsIdentChar(d) || d == '.') {
          ++i;
        } else if ((d == '+' || d == '-') && !hex && (s[i - 1] == 'e' || s[i - 1] == 'E')) {
          ++i;
        } else {
          break;
        }
      }
      kind = TokKind::Number;
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      if (i < n && s[i] == c) ++i;
      kind = TokKind::String;
    } else {
      ++i;
      kind = TokKind::Punct;
    }
    line_start = false;
    toks.push_back({kind, std::string(s.substr(start, i - start)), std::move(before)});
    before.clear();
  }
  *trailing = std::move(before);
  return toks;
}

std::string Join(const std::vector<Tok>& toks, std::string_view trailing) {
  std::string out;
  for (const Tok& t : toks) {
    out += t.before;
    out += t.text;
  }
  out += trailing;
  return out;
}

bool MutateSlang(std::string_view text, size_t max_size, uint32_t seed, std::string* out) {
  Rng rng(seed);
  Program original = Parse(text);
  if (original.toks.empty()) return false;
  for (int attempt = 0; attempt < 8; ++attempt) {
    Program p = original;
    size_t count = 1 + (rng.OneIn(3) ? 1 + rng.Below(2) : 0);
    size_t applied = 0;
    for (size_t k = 0; k < count; ++k) {
      if (k > 0) p.Analyze();
      if (PickMutation(rng)(p, rng)) ++applied;
    }
    if (applied == 0) continue;
    std::string result = Join(p.toks, p.trailing);
    if (result.size() > max_size || result == text) continue;
    *out = std::move(result);
    return true;
  }
  return false;
}

bool CrossOverSlang(std::string_view text, std::string_view other, size_t max_size, uint32_t seed,
                    std::string* out) {
  Rng rng(seed);
  Program p = Parse(text);
  Program q = Parse(other);
  for (int attempt = 0; attempt < 4; ++attempt) {
    size_t l, s;
    bool body = rng.OneIn(2);
    if (!PickStatement(q, rng, &l, &s, body) && !PickStatement(q, rng, &l, &s, false)) {
      return false;
    }
    std::vector<Tok> piece = Copy(q.toks, q.lists[l][s]);
    // A whole declaration of the other program (a function, a struct) often.
    if (l == 0 || rng.OneIn(2)) {
      if (!q.lists[0].empty()) piece = Copy(q.toks, rng.Pick(q.lists[0]));
      std::vector<Tok> toks = p.toks;
      size_t at = p.lists[0].empty() ? toks.size() : rng.Pick(p.lists[0]).b;
      if (rng.OneIn(3) && !p.lists[0].empty()) {
        Range r = rng.Pick(p.lists[0]);
        Splice(toks, r.b, r.e, piece);
      } else {
        Splice(toks, at, at, piece);
      }
      std::string result = Join(toks, p.trailing);
      if (result.size() <= max_size) {
        *out = std::move(result);
        return true;
      }
      continue;
    }
    std::vector<Tok> toks = p.toks;
    size_t pl, ps;
    if (rng.OneIn(3) && PickStatement(p, rng, &pl, &ps, true)) {
      Range r = p.lists[pl][ps];
      Splice(toks, r.b, r.e, piece);
    } else {
      size_t at = PickInsertPoint(p, rng, true);
      if (at == kNone) at = toks.size();
      Splice(toks, at, at, piece);
    }
    std::string result = Join(toks, p.trailing);
    if (result.size() <= max_size) {
      *out = std::move(result);
      return true;
    }
  }
  return false;
}

}  // namespace slope::fuzz
