#pragma once
// Identifiers for the names a module carries (functions, structs, members, buffers):
// legal in the target language and unique where they must be.

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace slope::targets::ctext {

/// Hands out identifiers: each one made of letters, digits and single underscores, not
/// starting with a digit, not a reserved word, not starting with a reserved prefix, and
/// different from every identifier this table gave before (a copy of the table keeps
/// the names given so far, so a function's locals can avoid the module's names).
class NameTable {
 public:
  NameTable(std::vector<std::string_view> reserved_words,
            std::vector<std::string_view> reserved_prefixes);
  /// A legal identifier close to `hint` (`Foo<int>` -> `Foo_int`), unique in this table.
  std::string Make(std::string_view hint);
  /// `hint` made legal but not reserved for uniqueness (struct member names, which only
  /// need to differ within their struct: the caller checks that).
  std::string Legal(std::string_view hint) const;
  /// Marks `name` as used without handing it out.
  void Take(const std::string& name) { taken_.insert(name); }

 private:
  bool Reserved(const std::string& name) const;
  std::set<std::string, std::less<>> reserved_words_;
  std::vector<std::string> reserved_prefixes_;
  std::set<std::string, std::less<>> taken_;
};

}  // namespace slope::targets::ctext
