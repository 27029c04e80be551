#include "stdlib/core_tokens.h"

#include <string>
#include <string_view>

#include "compiler/base/ice.h"
#include "stdlib/core_library.h"
#include "stdlib/core_tokens_data.h"

namespace slope::stdlib {

std::vector<preprocess::Token> CoreLibraryTokens(source::SourceManager& sources,
                                                 source::FileId* file) {
  using detail::kCoreTokens;
  const std::string_view source = CoreLibrarySource();
  if (source.size() != detail::kCoreSourceSize) {
    SLOPE_ICE("the core library's token table was made from another core.slang");
  }
  *file = sources.AddFile(std::string(kCoreLibraryPath), std::string(source));
  const std::string_view text = sources.Text(*file);
  const std::string_view extra = detail::kCoreExtraTextSize == 0
                                     ? std::string_view()
                                     : sources.AddScratchText(std::string_view(
                                           detail::kCoreExtraText, detail::kCoreExtraTextSize));
  std::vector<preprocess::Token> tokens;
  tokens.reserve(detail::kCoreTokenCount);
  for (size_t i = 0; i < detail::kCoreTokenCount; ++i) {
    const detail::CoreTokenRecord& r = kCoreTokens[i];
    preprocess::Token& t = tokens.emplace_back();
    t.kind = static_cast<preprocess::TokenKind>(r.kind);
    t.literal_type = static_cast<preprocess::LiteralType>(r.literal_type);
    t.at_line_start = (r.flags & detail::kAtLineStart) != 0;
    t.loc = source::SourceLoc{*file, r.loc_offset};
    const std::string_view from = (r.flags & detail::kExtraText) != 0 ? extra : text;
    t.text = r.text_length == 0 ? std::string_view() : from.substr(r.text_offset, r.text_length);
    if (t.kind == preprocess::TokenKind::FloatLiteral) {
      t.float_value = r.float_value;
    } else {
      t.int_value = r.int_value;
    }
  }
  return tokens;
}

}  // namespace slope::stdlib
