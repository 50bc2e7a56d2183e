// The project a run lints: its root (found as Ruff and Pyright find theirs), its own modules
// resolved to files, and each module's summary, computed once per run on first use and shared
// by every file's lint. Summaries depend on their module's text alone, so whichever thread
// computes one first, every lint sees the same, and import cycles change nothing.
#pragma once

#include "driver/Cache.h"
#include "flow/Summary.h"
#include "project/ImportScan.h"
#include "semantic/Project.h"

#include <llvm/Support/FileSystem.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torchlint {

class FolderListings;

/// Where a file's project is: the nearest folder above \p Path (a file or folder) holding a
/// `pyproject.toml`, `setup.py`, `setup.cfg` or `.git`. Without one, the folder Python imports
/// the file's top package from (the parent of the outermost folder with an `__init__.py`
/// around it), where only that package is the project's (its neighbours in site-packages are
/// third-party), or for a script its own folder.
struct ProjectRoot {
  std::string Dir;
  std::string OnlyPackage; // when not empty, the one top-level package that is the project's
};
ProjectRoot findProjectRoot(const std::string &Path);
/// The same, remembering in \p Seen what each folder looked at holds (a marker; an
/// `__init__.py`): the folders of one tree share their ancestors, so a batch over a tree asks
/// the disk about each folder once rather than once per folder below it.
struct RootMarks {
  std::unordered_map<std::string, bool> Marker, Init;
};
/// With \p Listings, the folders discovery listed are answered from their listing.
ProjectRoot findProjectRoot(const std::string &Path, RootMarks &Seen, const FolderListings *Listings = nullptr);

class ProjectIndex {
public:
  /// \p Root is made absolute. \p Texts, when given, supplies a module's text before the disk
  /// does (the editor's unsaved documents): absolute path -> text, or nullopt to read the disk.
  using TextSource = std::function<std::optional<std::string>(const std::string &AbsPath)>;
  /// \p Listings, when given, answers for the folders it holds before the disk does; it must
  /// outlive the index.
  explicit ProjectIndex(ProjectRoot Root, TextSource Texts = nullptr, const FolderListings *Listings = nullptr);

  const std::string &root() const { return Root; }
  /// The dotted module name of the file at \p AbsPath (`pkg.data`; `pkg` for its `__init__.py`;
  /// the stem for a file outside the root) and whether it is a package.
  std::pair<std::string, bool> moduleOf(const std::string &AbsPath) const;
  /// The file of module \p Module imported from a file in \p FromDir: under the root, its
  /// `src/`, then beside the importing file (as Python finds a script's siblings); empty when
  /// the module is not the project's.
  std::string fileOf(std::string_view Module, const std::string &FromDir) const;
  /// The text of the module file \p AbsPath: the editor's, else the disk's; nullopt when unreadable.
  std::optional<std::string> text(const std::string &AbsPath) const;

  /// One file's view of the project, for its lint. Records the module files it read, so a
  /// cached result can tell when one of them changed.
  class FileView final : public ProjectView {
  public:
    FileView(ProjectIndex &Index, std::string AbsPath, bool ResolveStars = true);
    std::string_view moduleName() const override { return Module; }
    bool isPackage() const override { return Package; }
    std::vector<std::pair<std::string, std::string>> starImports(std::string_view Module) const override;
    const flow::ModuleSummary *definition(std::string_view Qualified, std::string &Name) const override;
    bool choosesDevice(std::string_view Qualified) const override;
    void analysed(const FileContext &File) const override;
    const std::string &path() const { return Path; }
    ProjectIndex &index() const { return Index; }
    /// The module files this view read, with the hash of the text it read, sorted by path.
    std::vector<std::pair<std::string, uint64_t>> dependencies() const;
    /// The modules this view looked for and did not find in the project (module, the folder
    /// it was looked up from): one of them appearing changes what the lint knew.
    std::vector<std::pair<std::string, std::string>> unresolved() const;
    /// Whether the lint asked for a module whose summary was still pending (see
    /// ProjectIndex::setPending) and which, now that it is known, has something to say: the
    /// file must be linted again.
    bool needsAnotherLint() const;
    /// Forgets what the last lint asked, before the file is linted again.
    void reset() const;

  private:
    const flow::ModuleSummary *definitionFrom(std::string_view Qualified, const std::string &FromDir,
                                              std::string &Name, std::set<std::string> &Seen) const;
    void starNames(const std::string &File, std::vector<std::pair<std::string, std::string>> &Out,
                   std::set<std::string> &Seen) const;
    friend class ProjectIndex;
    ProjectIndex &Index;
    std::string Path, Dir, Module;
    bool Package = false, ResolveStars;
    mutable std::map<std::string, uint64_t> Read, StarRead; // StarRead: the import tables of star imports
    mutable std::set<std::pair<std::string, std::string>> Absent;
    // What the lint asked of modules whose summaries were pending: qualified names, and star
    // imports as "*module".
    mutable std::vector<std::string> Waiting;
    mutable bool StarsPending = false;
  };

  /// The import table of \p AbsPath when it is already known and says the module does not
  /// define \p Name itself (ModuleSummary::Defined): then it answers for the name as the full
  /// summary would, through its imports and star imports, without a parse. nullptr otherwise.
  const flow::ModuleSummary *tableWithout(const std::string &AbsPath, std::string_view Name, uint64_t *Hash);
  /// The summary of the module file \p AbsPath (nullptr when it cannot be read or parsed).
  /// With \p TableOnly, only its imports, star imports and `__all__` are needed, which never
  /// read another module.
  /// \p Pending, when given, is set (and nullptr returned) for a module whose summary is
  /// pending: it is in the files being linted and will come from its own lint.
  const flow::ModuleSummary *summary(const std::string &AbsPath, bool TableOnly, uint64_t *Hash = nullptr,
                                     bool *Pending = nullptr);
  /// The summary of every name of \p AbsPath, for a name a batch's summary of it did not cover
  /// (ModuleSummary::covers): parsed and summarised again, once.
  const flow::ModuleSummary *completeSummary(const std::string &AbsPath, uint64_t *Hash = nullptr);
  /// The files a batch lint is about to lint (absolute paths): their summaries are taken from
  /// their own lints (ProjectView::analysed) rather than from a parse of their own. Until a
  /// file's lint has given its summary, a view asking for it is told nothing and remembers it;
  /// after the pass, `setPending({})` and FileView::needsAnotherLint() say which files to lint
  /// again. The results are those of a run where every summary was known from the start.
  /// \p Wants, the imports of the batch's files (scanImports), limits each summary to the
  /// names some file may ask for.
  void setPending(const std::vector<std::string> &AbsPaths, ImportWants Wants = {});
  /// Stores the summary of the pending file \p AbsPath from its lint's analyses; only its import
  /// table where its star imports were themselves pending (the summary would lack their names).
  void store(const std::string &AbsPath, const FileContext &File, bool StarsResolved,
             std::vector<std::pair<std::string, uint64_t>> Reads);
  /// Summaries kept from an earlier run (the result cache), taken instead of a parse where the
  /// module and what it read have the content they had; \p HashNow gives a file's content
  /// hash now. Both must outlive the index's use.
  void useStored(const StoredSummaries *S, std::function<uint64_t(const std::string &)> HashNow);
  /// The summaries this run computed or took, to keep for the next (the fullest of each module).
  std::vector<std::pair<std::string, StoredSummary>> summariesToKeep() const;
  /// How many summaries were taken from the stored ones rather than parsed (for tests).
  size_t reused() const;
  /// How many module files were summarised (for tests and the benchmark).
  size_t summarised() const;
  /// Forgets what was read of \p AbsPath (the editor changed it, or the disk did): the next
  /// lint that needs it summarises it again. An empty path forgets everything, and which
  /// modules exist too.
  void invalidate(const std::string &AbsPath);

private:
  struct Entry {
    std::unique_ptr<flow::ModuleSummary> Full, Table;
    std::unique_ptr<flow::ModuleSummary> Complete; // of every name, where Full covers only some
    uint64_t Hash = 0; // of the text summarised
    bool Unreadable = false;
  };
  std::string Root, OnlyPackage;
  TextSource Texts;
  const FolderListings *Listings;
  mutable std::mutex Lock;
  std::unordered_map<std::string, Entry> Entries;
  std::unordered_set<std::string> Pending;
  ImportWants Wants; // of the pending batch
  /// Builds the summary (or just the import table) of a parsed module, of the names in \p Only
  /// when given.
  std::unique_ptr<flow::ModuleSummary> build(const std::string &AbsPath, const FileContext &File,
                                             std::string_view Module, bool TableOnly,
                                             const std::set<std::string, std::less<>> *Only = nullptr) const;
  /// \p AbsPath as notes name it: relative to the root when under it.
  std::string display(const std::string &AbsPath) const;
  /// Reads and parses \p AbsPath and builds its summary; nullptr when it cannot be read or parsed.
  /// With \p Complete, only a summary of every name will do.
  std::unique_ptr<flow::ModuleSummary> parseAndBuild(const std::string &AbsPath, bool TableOnly, uint64_t &Hash,
                                                     bool Complete = false);
  /// A stored summary of \p AbsPath that still holds for text of hash \p Hash, or nullptr.
  const flow::ModuleSummary *storedSummary(const std::string &AbsPath, uint64_t Hash, bool Complete) const;
  mutable std::unordered_map<std::string, std::string> Files; // "module\0fromdir" -> file
  size_t Count = 0;
  const StoredSummaries *Stored = nullptr;
  std::function<uint64_t(const std::string &)> HashNow;
  mutable size_t Reused = 0;
};

/// A file's text as read from disk, with its status taken just before the read (what a
/// result-cache entry records of it): the import scan's read of a file, handed on to the
/// file's lint so that a batch reads each file once.
struct ReadFile {
  std::string Text;
  llvm::sys::fs::file_status Status;
};

/// The projects of one run: an index per project root, each file's root found once per
/// folder. Disabled (`--no-project`), every file is analysed alone.
class Projects {
public:
  /// \p RootOverride (`--project-root`), when not empty, is every file's root.
  explicit Projects(std::string RootOverride = {}, bool Enabled = true,
                    ProjectIndex::TextSource Texts = nullptr);
  /// ProjectIndex::invalidate on every project.
  void invalidate(const std::string &AbsPath);
  /// The index of the project \p Path belongs to; nullptr when disabled.
  ProjectIndex *forFile(const std::string &Path);
  /// The view of \p Path for its lint (nullopt when disabled).
  std::optional<ProjectIndex::FileView> viewFor(const std::string &Path);
  using Views = std::vector<std::optional<ProjectIndex::FileView>>;
  /// Starts a batch lint of \p Paths: their views, with every one of them pending in its
  /// project (ProjectIndex::setPending) until its own lint gives its summary. \p Order, when
  /// given, receives the indices of \p Paths in the order to lint them: the modules a file
  /// imports before it, so that fewer files ask for a summary still pending.
  /// \p Kept, when given, receives (by index of \p Paths) the texts the import scan read
  /// from disk, for the files' lints to take instead of reading them again: as many as fit
  /// in KeptTextBytes, the rest (and every text from the index's TextSource) left unset.
  Views beginBatch(const std::vector<std::string> &Paths, std::vector<size_t> *Order = nullptr,
                   std::vector<std::optional<ReadFile>> *Kept = nullptr);
  /// The most text beginBatch hands on (a batch of a larger tree reads the rest twice rather
  /// than hold the whole tree's text at once).
  static constexpr size_t KeptTextBytes = size_t(32) << 20;
  /// Ends the batch: nothing is pending any more, and the indices returned are the files whose
  /// lint asked too early and must be linted again (their views are reset for it).
  std::vector<size_t> endBatch(Views &V);
  /// The content hash of the file at \p AbsPath now (0 when it cannot be read), read once per
  /// run: what a cached result's dependencies are checked against.
  uint64_t currentHash(const std::string &AbsPath);
  /// Every project index, present and to come, takes summaries from \p S (ProjectIndex::useStored).
  void useStored(const StoredSummaries *S);
  /// What discovery saw of the folders it walked (Discovery::Listings): the project roots and
  /// modules are looked for there before the disk. Set before the first file is asked about.
  void useListings(std::shared_ptr<const FolderListings> L) { Listings = std::move(L); }
  /// ProjectIndex::summariesToKeep of every project.
  std::vector<std::pair<std::string, StoredSummary>> summariesToKeep() const;
  /// Whether a cached result still holds for the project: every module it read has the content
  /// it had, and none it looked for in vain has appeared.
  bool resultCurrent(const CacheEntry &E);

private:
  std::string Override;
  bool Enabled;
  ProjectIndex::TextSource Texts;
  mutable std::mutex Lock;
  std::unordered_map<std::string, ProjectRoot> RootOfDir;
  RootMarks Marks; // under Lock, with RootOfDir
  std::map<std::string, std::unique_ptr<ProjectIndex>> Indexes;
  std::unordered_map<std::string, uint64_t> Hashes;
  const StoredSummaries *Stored = nullptr;
  std::shared_ptr<const FolderListings> Listings;
};

} // namespace torchlint
