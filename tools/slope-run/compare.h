#pragma once
// Comparing what two backends printed for one execution test (slope-run -backend=all).

#include <string>
#include <vector>

namespace slope::run {

/// Whether two printed words agree: equal text, or floats within `tolerance` of the
/// larger magnitude (at least 1), NaN with NaN, infinities of one sign. Integers (words
/// without '.', an exponent, nan or inf) agree only when equal.
bool SameWord(const std::string& a, const std::string& b, double tolerance);

/// The lines of `text` that are results: all but the -time line ("kernel time: ...").
std::vector<std::string> ResultLines(const std::string& text);

/// Where two outputs first disagree, for a message ("line 2 ('out:'), word 3: 1 vs 1.5");
/// "" when every line and word agrees.
std::string FirstDifference(const std::string& a, const std::string& b, double tolerance);

}  // namespace slope::run
