#include "tools/slope-run/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <sstream>

namespace slope::run {

namespace {

/// Whether `word` is a number slope-run prints; `*is_float` when it is not an integer.
bool ParseNumber(const std::string& word, double* value, bool* is_float) {
  char* end = nullptr;
  *value = std::strtod(word.c_str(), &end);
  if (word.empty() || end != word.c_str() + word.size()) return false;
  *is_float = word.find_first_of(".eEnNiI") != std::string::npos;
  return true;
}

}  // namespace

/// Whether two words agree: equal, or floats within `tolerance` of the larger magnitude
/// (at least 1), NaN with NaN.
bool SameWord(const std::string& a, const std::string& b, double tolerance) {
  if (a == b) return true;
  double x, y;
  bool x_float, y_float;
  if (!ParseNumber(a, &x, &x_float) || !ParseNumber(b, &y, &y_float)) return false;
  if (!x_float && !y_float) return false;  // integers: exactly
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y)) return x == y;
  double scale = std::max({1.0, std::fabs(x), std::fabs(y)});
  return std::fabs(x - y) <= tolerance * scale;
}

/// The lines of `text` that are results (not the -time line).
std::vector<std::string> ResultLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("kernel time:", 0) != 0) lines.push_back(line);
  }
  return lines;
}

/// Where two outputs first disagree ("" when they agree): the line, and the two words.
std::string FirstDifference(const std::string& a, const std::string& b, double tolerance) {
  std::vector<std::string> la = ResultLines(a), lb = ResultLines(b);
  for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
    if (i >= la.size() || i >= lb.size()) {
      return "line " + std::to_string(i + 1) + " is missing from one: '" +
             (i < la.size() ? la[i] : lb[i]) + "'";
    }
    std::istringstream wa(la[i]), wb(lb[i]);
    std::vector<std::string> xs{std::istream_iterator<std::string>(wa), {}};
    std::vector<std::string> ys{std::istream_iterator<std::string>(wb), {}};
    for (size_t k = 0; k < std::max(xs.size(), ys.size()); ++k) {
      std::string x = k < xs.size() ? xs[k] : "(nothing)";
      std::string y = k < ys.size() ? ys[k] : "(nothing)";
      if (!SameWord(x, y, tolerance)) {
        return "line " + std::to_string(i + 1) + " ('" + (xs.empty() ? "" : xs[0]) +
               "'), word " + std::to_string(k + 1) + ": " + x + " vs " + y;
      }
    }
  }
  return "";
}

}  // namespace slope::run
