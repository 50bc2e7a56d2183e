// Which files to lint: explicit files, and the files below directories that the configuration's
// `include` names (Python files and notebooks), skipping excluded folders (configuration,
// defaults) and what .gitignore files exclude.
#pragma once

#include "config/Config.h"

#include "config/Glob.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torchlint {

struct DiscoveredFile {
  std::string Path;
  std::shared_ptr<const Config> Cfg;
};

/// What discovery saw of the folders it listed: every entry's name and kind. Module
/// resolution and the project-root search ask it before the disk (Projects::useListings): a
/// run over a tree looks for modules and markers in the folders it has just listed, and a
/// system call per question cost project mode more than its summaries do.
class FolderListings {
public:
  enum class Answer : uint8_t {
    Unknown, // the folder was not listed: ask the disk
    Absent,
    File,   // a regular file
    Folder,
    Other, // a link or anything else: ask the disk what it leads to
  };
  /// Records the entries of folder \p Dir (an absolute path, as discovery walks it).
  void add(const std::string &Dir, std::vector<std::pair<std::string, Answer>> Entries);
  /// What the absolute path \p Path is, as its folder's listing says.
  Answer find(std::string_view Path) const;

private:
  std::unordered_map<std::string, std::vector<std::pair<std::string, Answer>>> Folders; // by name
};

struct Discovery {
  std::vector<DiscoveredFile> Files; // sorted by path, unique
  std::vector<std::string> Errors;   // one line each: path and why
  std::shared_ptr<const FolderListings> Listings; // of the folders walked
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
