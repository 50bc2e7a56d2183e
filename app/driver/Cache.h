// The result cache (`.torchlint_cache`): a file's diagnostics, kept between runs and keyed
// by the file's content, the settings it was linted with and the torchlint build, so a
// re-run on an unchanged tree parses nothing and reads only the files it must show.
#pragma once

#include "diag/Diagnostic.h"
#include "flow/Summary.h"
#include "lint/Rule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace torchlint {

/// One file's cached result.
struct CacheEntry {
  std::string Path;          // as discovered (the key)
  uint64_t Size = 0;         // stat fields: a match lets the file go unread
  int64_t MTimeNs = 0;
  bool Racy = false;         // modified too close to the run that stored it: always verify content
  uint64_t ContentHash = 0;  // xxHash64 of the bytes
  uint64_t SettingsHash = 0; // settingsHash() of what it was linted with
  std::vector<Diagnostic> Diagnostics;
  /// The project modules whose summaries the lint used (absolute path, content hash of the
  /// text read): the result holds only while each still has that content.
  std::vector<std::pair<std::string, uint64_t>> Dependencies;
  /// The modules the lint looked for in the project and did not find (module, folder it was
  /// looked up from): the result holds only while none of them appears.
  std::vector<std::pair<std::string, std::string>> Unresolved;
};

/// A project module's summary kept between runs, so that a run which re-lints only what
/// changed need not parse the unchanged modules the changed files import. It holds while the
/// module's file has \p ContentHash and each file in `Summary.Reads` keeps its hash.
struct StoredSummary {
  uint64_t ContentHash = 0;
  flow::ModuleSummary Summary;
  bool operator==(const StoredSummary &) const = default;
};
using StoredSummaries = std::unordered_map<std::string, StoredSummary>; // by absolute path

/// Stable across runs: the enabled codes and the target version.
uint64_t settingsHash(const LintSettings &S);
uint64_t contentHash(std::string_view Text);

/// What identifies this torchlint build: version, grammar, and the executable's own size
/// and modification time, so a rebuilt binary never trusts results of the old one.
std::string toolKey(std::string_view Version);

class ResultCache {
public:
  /// The cache of \p Dir for \p ToolKey; empty when there is none, when it belongs to
  /// another build or version, or when it cannot be read. A damaged cache is never fatal and
  /// never served: what fails its checksums is dropped (and its files linted again), and
  /// problem() says so. Anything there but a regular file is neither opened nor read.
  static ResultCache load(std::string Dir, std::string ToolKey);
  /// Why the stored cache was not (wholly) used, one line for the user; empty when it was
  /// sound, absent, or another build's.
  const std::string &problem() const { return Problem; }

  const std::string &dir() const { return Dir; }
  /// Whether an entry for \p Path is stored, whatever its settings.
  bool holds(const std::string &Path) const { return Entries.count(Path) != 0; }
  /// The stored entry for \p Path linted with \p SettingsHash, if any.
  const CacheEntry *find(const std::string &Path, uint64_t SettingsHash) const;
  /// Records this run's entries; saved by save().
  void update(std::vector<CacheEntry> Fresh);
  /// Writes the cache atomically (temporary file, then rename) when anything changed.
  /// Returns an empty string or why it could not be written.
  std::string save() const;
  size_t size() const { return Entries.size(); }
  /// The module summaries kept from earlier runs.
  const StoredSummaries &summaries() const { return Summaries; }
  /// Records this run's summaries (absolute path, summary), replacing those of the same files.
  void updateSummaries(std::vector<std::pair<std::string, StoredSummary>> Fresh);

  /// The on-disk form, exposed for tests.
  std::string serialize() const;
  struct Contents {
    std::vector<CacheEntry> Entries;
    std::vector<std::pair<std::string, StoredSummary>> Summaries;
    /// Empty when every checksum held; else what was damaged, and the records above are those
    /// read before it.
    std::string Damage;
  };
  /// nullopt for another version's or another build's cache (no damage: replaced without a word).
  static std::optional<Contents> deserialize(std::string_view Bytes, std::string_view ToolKey);
  /// The file's framing (header, record heads, checksums) around raw record bodies, for tests
  /// and the fuzzer.
  static std::string seal(std::string_view ToolKey, const std::vector<std::string> &EntryBodies,
                          const std::vector<std::string> &SummaryBodies);
  /// \p Bytes with every checksum recomputed, as far as its framing reads: the fuzzer cannot
  /// forge a hash, and reaches the records' own reader this way.
  static std::string reseal(std::string_view Bytes);

private:
  std::string Dir, Key, Problem;
  std::unordered_map<std::string, CacheEntry> Entries;
  StoredSummaries Summaries;
  bool Dirty = false;
};

/// Seconds within which a file's modification time is too recent to trust a stat match
/// (it may change again within the clock's granularity without its size or mtime moving).
inline constexpr int64_t RacyWindowNs = 2'000'000'000;

} // namespace torchlint
