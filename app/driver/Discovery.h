// Which files to lint: explicit files, and Python files below directories, skipping
// excluded folders (configuration, defaults) and what .gitignore files exclude.
#pragma once

#include "config/Config.h"

#include "config/Glob.h"

#include <memory>
#include <string>
#include <vector>

namespace torchlint {

struct DiscoveredFile {
  std::string Path;
  std::shared_ptr<const Config> Cfg;
};

struct Discovery {
  std::vector<DiscoveredFile> Files; // sorted by path, unique
  std::vector<std::string> Errors;   // one line each: path and why
};

/// \p ForceExclude applies `exclude` to files named on the command line too (pre-commit).
Discovery discoverFiles(const std::vector<std::string> &Paths, ConfigResolver &Resolver, bool ForceExclude);

/// The patterns of one .gitignore file, relative to its folder.
class GitIgnore {
public:
  GitIgnore(std::string Dir, std::string_view Text);
  /// 1 excluded, -1 re-included by a `!` pattern, 0 no pattern matched.
  int match(const std::string &AbsPath, bool IsDir) const;
  const std::string &dir() const { return Dir; }

private:
  struct Pattern {
    torchlint::Glob Glob; // compiled once, as match() runs for every path walked
    bool Negate, DirOnly, Anchored;
  };
  std::string Dir;
  std::vector<Pattern> Patterns;
};

} // namespace torchlint
