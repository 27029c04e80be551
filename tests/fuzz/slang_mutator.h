#pragma once
// Structure-aware mutations of Slang source text for struct_fuzzer.cpp. The text is split
// into tokens (identifiers, numbers, punctuation, strings, comments and preprocessor
// lines kept whole), and a mutation edits whole statements, types, generic arguments,
// attributes, literals, parameters or function bodies, so that most results still parse
// and reach checking, lowering, autodiff and the writers. Every choice comes from the
// seed: the same input and seed give the same output.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace slope::fuzz {

enum class TokKind : uint8_t { Ident, Number, String, Punct, Preproc };

/// One significant token and the whitespace and comments before it.
struct Tok {
  TokKind kind;
  std::string text;
  std::string before;
};

/// The tokens of `text`; `*trailing` gets what follows the last one. Joining them back
/// gives `text` unchanged.
std::vector<Tok> Tokenize(std::string_view text, std::string* trailing);
std::string Join(const std::vector<Tok>& toks, std::string_view trailing);

/// One to three structural mutations of `text`. Returns false when none applied (the
/// caller then falls back to byte mutations) or when every result was over `max_size`.
bool MutateSlang(std::string_view text, size_t max_size, uint32_t seed, std::string* out);

/// A statement or declaration of `other` inserted into `text`, or put in place of one.
bool CrossOverSlang(std::string_view text, std::string_view other, size_t max_size, uint32_t seed,
                    std::string* out);

}  // namespace slope::fuzz
