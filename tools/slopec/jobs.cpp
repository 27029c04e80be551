#include "tools/slopec/jobs.h"

#include <algorithm>
#include <set>

namespace slope::tools::slopec {
namespace {

bool IsTemplate(const std::string& path) { return path.find('{') != std::string::npos; }

/// The nearest flag of `list` before `position`, or nullptr.
const Positioned* LeftOf(const std::vector<Positioned>& list, size_t position) {
  const Positioned* found = nullptr;
  for (const Positioned& p : list) {
    if (p.position < position) found = &p;
  }
  return found;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

std::string ExpandTemplate(const std::string& path, const std::string& target,
                           const std::string& entry) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    auto at = [&](const char* word) { return path.compare(i, std::string(word).size(), word) == 0; };
    if (at("{entry}")) {
      out += entry;
      i += 6;
    } else if (at("{ext}")) {
      out += TargetExtension(target);
      i += 4;
    } else if (at("{target}")) {
      out += target;
      i += 7;
    } else {
      out += path[i];
    }
  }
  return out;
}

bool PlanJobs(const CommandLine& cl, std::vector<Job>* jobs, std::string* error) {
  std::vector<std::string> targets;
  for (const Positioned& t : cl.targets) {
    if (!Contains(targets, t.value)) targets.push_back(t.value);
  }
  std::vector<std::string> entries;
  for (const Positioned& e : cl.entries) entries.push_back(e.value);
  const std::vector<Positioned>& outputs = cl.outputs;

  // No -target: the first output's extension names it, else SPIR-V.
  if (targets.empty()) {
    std::string inferred = outputs.empty() ? "" : TargetOfPath(outputs[0].value);
    targets.push_back(inferred.empty() ? "spirv" : inferred);
  }

  bool has_template = std::any_of(outputs.begin(), outputs.end(),
                                  [](const Positioned& o) { return IsTemplate(o.value); });
  if (has_template) {
    if (outputs.size() != 1) {
      *error = "a template -o (" + outputs[0].value + ") must be the only -o";
      return false;
    }
    const std::string& path = outputs[0].value;
    std::string rest = path;
    for (const char* word : {"{entry}", "{ext}", "{target}"}) {
      for (size_t at; (at = rest.find(word)) != std::string::npos;) rest.erase(at, std::string(word).size());
    }
    if (rest.find_first_of("{}") != std::string::npos) {
      *error = "-o " + path + ": a template names {entry}, {ext} and {target} only";
      return false;
    }
    bool per_entry = path.find("{entry}") != std::string::npos;
    if (targets.size() > 1 && path.find("{ext}") == std::string::npos &&
        path.find("{target}") == std::string::npos) {
      *error = "-o " + path + " gives every -target the same file; add {ext} or {target}";
      return false;
    }
    for (const std::string& target : targets) {
      if (!per_entry) {
        jobs->push_back({target, entries, ExpandTemplate(path, target, ""), false});
      } else if (!entries.empty()) {
        for (const std::string& entry : entries) {
          jobs->push_back({target, {entry}, ExpandTemplate(path, target, entry), false});
        }
      } else {
        jobs->push_back({target, {}, path, true});
      }
    }
    return true;
  }

  if (outputs.size() <= 1) {
    if (targets.size() > 1) {
      *error = "several -target values need an -o each (or one template, as -o out/{entry}.{ext})";
      return false;
    }
    jobs->push_back({targets[0], entries, outputs.empty() ? "-" : outputs[0].value, false});
    return true;
  }

  if (entries.size() <= 1) {
    // Each -o goes with the -target to its left (or the one its extension names).
    if (targets.size() == 1) {
      *error = "several -o paths for one -target and one entry point";
      return false;
    }
    std::set<std::string> given;
    for (const Positioned& o : outputs) {
      const Positioned* t = LeftOf(cl.targets, o.position);
      std::string target = t != nullptr ? t->value : TargetOfPath(o.value);
      if (!Contains(targets, target)) {
        *error = "-o " + o.value + " follows no -target, and its extension names none of them";
        return false;
      }
      if (!given.insert(target).second) {
        *error = "-target " + target + " has two -o paths";
        return false;
      }
      jobs->push_back({target, entries, o.value, false});
    }
    for (const std::string& target : targets) {
      if (given.count(target) == 0) {
        *error = "-target " + target + " has no -o; with several targets each needs its own";
        return false;
      }
    }
    return true;
  }

  // Several entry points: each -o goes with the -entry to its left; with several
  // targets the path's extension says which.
  std::set<std::pair<std::string, std::string>> given;
  for (const Positioned& o : outputs) {
    const Positioned* e = LeftOf(cl.entries, o.position);
    if (e == nullptr) {
      *error = "-o " + o.value + " comes before every -entry; with several entry points each -o follows its -entry";
      return false;
    }
    std::string target = targets.size() == 1 ? targets[0] : TargetOfPath(o.value);
    if (!Contains(targets, target)) {
      *error = "-o " + o.value + ": its extension names none of the -target values";
      return false;
    }
    if (!given.insert({target, e->value}).second) {
      *error = "-entry " + e->value + " has two -o paths for -target " + target;
      return false;
    }
    jobs->push_back({target, {e->value}, o.value, false});
  }
  if (targets.size() == 1) {
    for (const std::string& entry : entries) {
      if (given.count({targets[0], entry}) == 0) {
        *error = "-entry " + entry + " has no -o; with several -o each entry point needs its own";
        return false;
      }
    }
  }
  return true;
}

}  // namespace slope::tools::slopec
