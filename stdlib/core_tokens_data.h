#pragma once
// The core library's tokens as the preprocessor gives them, made once at build time by
// core_tokens_gen (core_tokens.cpp turns them back into preprocess::Token values).

#include <cstddef>
#include <cstdint>

namespace slope::stdlib::detail {

/// One token, with its text and place as offsets into the core library's text, or
/// (for a token made by `##`) into the table's extra text.
struct CoreTokenRecord {
  uint8_t kind;          ///< preprocess::TokenKind
  uint8_t literal_type;  ///< preprocess::LiteralType
  uint8_t flags;         ///< kAtLineStart | kExtraText
  uint32_t loc_offset;   ///< where it is in core.slang
  uint32_t text_offset;  ///< where its text is: core.slang, or the extra text
  uint32_t text_length;
  uint64_t int_value;
  double float_value;
};

inline constexpr uint8_t kAtLineStart = 1;
inline constexpr uint8_t kExtraText = 2;

extern const CoreTokenRecord kCoreTokens[];
extern const size_t kCoreTokenCount;
/// Texts of tokens that core.slang does not spell (made by `##`), one after another.
extern const char kCoreExtraText[];
extern const size_t kCoreExtraTextSize;
/// The size of the text the table was made from, to tell a stale table from a fresh one.
extern const size_t kCoreSourceSize;

}  // namespace slope::stdlib::detail
