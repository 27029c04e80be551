#pragma once
// Runs work on a thread of its own with a stack of a known size.
//
// The front end and the passes walk trees whose height the parser bounds (4096 levels,
// parse/parser.h), not the depth the caller's stack happens to allow: the main thread of
// a process started with `ulimit -s 2048`, a host program's worker thread or a sanitizer
// build's larger frames would all overflow at a different depth. A compile therefore
// runs on a thread whose stack is sized for the limits (the memory is reserved, and
// only the pages used are ever touched).

#include <cstddef>
#include <functional>

namespace slope::base {

/// The stack every compile runs on: enough for the deepest tree the limits allow, with
/// the frames of an ASan/UBSan build.
inline constexpr size_t kCompileStackBytes = size_t{512} << 20;

/// Calls `work` on a new thread with a stack of `bytes` and waits for it; an exception
/// `work` throws is rethrown here. Falls back to calling it directly when no thread can
/// be made.
void RunWithStack(size_t bytes, const std::function<void()>& work);

}  // namespace slope::base
