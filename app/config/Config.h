// Configuration: `[tool.torchlint]` in pyproject.toml or a torchlint.toml, the nearest one
// above each file, merged with command-line options into the settings for that file.
#pragma once

#include "config/Requirements.h"
#include "lint/Rule.h"

#include <llvm/Support/Error.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace torchlint {

struct Config {
  std::string File; // the file it came from; empty for defaults
  std::string Root; // its directory: globs are relative to it
  std::optional<std::vector<std::string>> Select;
  std::vector<std::string> Ignore, ExtendSelect;
  std::vector<std::pair<std::string, std::vector<std::string>>> PerFileIgnores;
  std::optional<std::vector<std::string>> Exclude;
  std::vector<std::string> ExtendExclude;
  // Which files a folder walk lints (`include`, default defaultIncludes(); `extend-include`
  // adds to it), as in Ruff: notebooks are in by default, `extend-exclude = ["*.ipynb"]` opts out.
  std::optional<std::vector<std::string>> Include;
  std::vector<std::string> ExtendInclude;
  std::optional<TorchVersion> TargetTorch;
  // Codes whose fixes may be applied: `fixable` (default ALL) minus `unfixable`.
  std::optional<std::vector<std::string>> Fixable;
  std::vector<std::string> Unfixable;
};

/// What the command line says; it overrides the files.
struct CliOptions {
  std::optional<std::vector<std::string>> Select;
  std::vector<std::string> Ignore, ExtendSelect;
  std::optional<std::string> ConfigFile; // --config: use this one for every file
  std::optional<std::vector<std::string>> Fixable; // --fixable: replaces the files' `fixable`
  std::vector<std::string> Unfixable;             // --unfixable: added to the files'
};

/// Parses a config file. Returns nullopt for a pyproject.toml without [tool.torchlint];
/// an Error naming the file, the key and why for anything malformed.
llvm::Expected<std::optional<Config>> loadConfig(const std::string &Path, const Registry &R);
/// Parses config text (for tests and the LSP): \p Path only names it in messages.
llvm::Expected<std::optional<Config>> parseConfig(std::string_view Text, const std::string &Path,
                                                  const Registry &R);

llvm::Expected<TorchVersion> parseTorchVersion(std::string_view S);

/// The default excluded folders, like Ruff's.
const std::vector<std::string> &defaultExcludes();
/// The files a folder walk lints by default: Python files and notebooks (`*.py`, `*.pyi`,
/// `*.ipynb`), as Ruff's `include`.
const std::vector<std::string> &defaultIncludes();

/// Finds the nearest config above a path, caching per directory. Thread-safe.
class ConfigResolver {
public:
  ConfigResolver(const Registry &R, CliOptions Cli);
  /// The config that applies to \p Path (a file or directory); errors are remembered and
  /// returned each time.
  llvm::Expected<std::shared_ptr<const Config>> forPath(const std::string &Path);
  /// The same for a folder already known to be one, given as an absolute path without `.` or
  /// `..` (as discovery walks them): no system call to ask what it is.
  llvm::Expected<std::shared_ptr<const Config>> forDirectory(const std::string &Dir);
  /// The settings for one file: its rules, and the PyTorch it targets (`target-torch-version`,
  /// else what the project declares, see Requirements.h).
  LintSettings settingsFor(const Config &C, const std::string &FilePath) const;
  /// The sorted codes whose fixes may be applied under \p C and the command line; nullopt
  /// when every code may be fixed.
  std::optional<std::vector<std::string>> fixableFor(const Config &C) const;
  /// Whether \p Path (file or folder) is excluded by \p C's exclude/extend-exclude.
  bool isExcluded(const Config &C, const std::string &Path) const;
  /// Whether a folder walk lints the file \p Path under \p C's include/extend-include.
  bool isIncluded(const Config &C, const std::string &Path) const;
  const CliOptions &cli() const { return Cli; }

private:
  const Registry &Reg;
  CliOptions Cli;
  std::mutex Mu;
  std::map<std::string, std::shared_ptr<const Config>> Cache;
  std::map<std::string, std::string> Errors;
  std::shared_ptr<const Config> Defaults;
  /// The torch requirement declared above a folder, per folder.
  std::optional<DeclaredTorch> declaredAbove(const std::string &Dir) const;
  mutable std::mutex DeclaredMu;
  mutable std::map<std::string, std::optional<DeclaredTorch>> Declared;
};

/// Matches a gitignore/Ruff-style glob against a path relative to a root ("a/b/c.py").
/// Patterns without a slash match any path component.
bool matchesGlob(std::string_view Pattern, std::string_view RelPath);

} // namespace torchlint
