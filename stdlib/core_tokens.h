#pragma once
// The core library as tokens, preprocessed once at build time.

#include <vector>

#include "compiler/preprocess/lexer.h"
#include "compiler/source/source_manager.h"

namespace slope::stdlib {

/// Adds the core library's text to `sources` (its id in `*file`) and returns its tokens,
/// the same as preprocess::Preprocess gives for it (ending with EndOfFile), from the table
/// made at build time: a compile does not lex or expand the core library's macros.
std::vector<preprocess::Token> CoreLibraryTokens(source::SourceManager& sources,
                                                 source::FileId* file);

}  // namespace slope::stdlib
