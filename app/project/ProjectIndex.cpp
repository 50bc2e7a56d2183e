// Module resolution within the project and the per-run store of module summaries.
#include "project/ProjectIndex.h"

#include "config/Requirements.h"
#include "driver/Cache.h"
#include "driver/Discovery.h"
#include "driver/Driver.h"
#include "parse/Tree.h"
#include "semantic/Walker.h"
#include "source/Strings.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace torchlint {

namespace {

std::string absolute(const std::string &Path) { return absolutePath(Path); }

/// Whether \p P is a regular file (\p File), a folder (\p Folder), or either: from its folder's
/// listing where discovery made one, else from the disk (\p Disk).
template <class DiskAnswer>
bool probe(const std::string &P, const FolderListings *L, bool File, bool Folder, DiskAnswer Disk) {
  switch (L ? L->find(P) : FolderListings::Answer::Unknown) {
  case FolderListings::Answer::File:
    return File;
  case FolderListings::Answer::Folder:
    return Folder;
  case FolderListings::Answer::Absent:
    return false;
  default:
    return Disk(P);
  }
}
bool isFile(const std::string &P, const FolderListings *L) {
  return probe(P, L, true, false, [](const std::string &Q) { return llvm::sys::fs::is_regular_file(Q); });
}
bool exists(const std::string &P, const FolderListings *L) {
  return probe(P, L, true, true, [](const std::string &Q) { return llvm::sys::fs::exists(Q); });
}
bool isFolder(const std::string &P, const FolderListings *L) {
  return probe(P, L, false, true, [](const std::string &Q) { return llvm::sys::fs::is_directory(Q); });
}

std::string parentOf(const std::string &P) { return std::string(llvm::sys::path::parent_path(P)); }

} // namespace

ProjectRoot findProjectRoot(const std::string &Path) {
  RootMarks Seen;
  return findProjectRoot(Path, Seen);
}

ProjectRoot findProjectRoot(const std::string &Path, RootMarks &Seen, const FolderListings *Listings) {
  auto Ask = [](std::unordered_map<std::string, bool> &Known, const std::string &Dir, auto Look) {
    auto [It, New] = Known.try_emplace(Dir, false);
    if (New)
      It->second = Look();
    return It->second;
  };
  auto HasMarker = [&](const std::string &Dir) {
    return Ask(Seen.Marker, Dir, [&] {
      return hasProjectMarker(Dir, [&](const std::string &P) { return exists(P, Listings); });
    });
  };
  auto HasInit = [&](const std::string &Dir) {
    return Ask(Seen.Init, Dir, [&] { return exists(Dir + "/__init__.py", Listings); });
  };
  std::string Abs = absolute(Path);
  std::string Start = isFolder(Abs, Listings) ? Abs : parentOf(Abs);
  for (std::string Dir = Start; !Dir.empty();) {
    if (HasMarker(Dir))
      return {Dir, {}};
    std::string Parent = parentOf(Dir);
    if (Parent == Dir)
      break;
    Dir = Parent;
  }
  std::string Dir = Start, Top;
  while (HasInit(Dir)) {
    std::string Parent = parentOf(Dir);
    if (Parent == Dir)
      break;
    Top = llvm::sys::path::filename(Dir).str();
    Dir = Parent;
  }
  return {Dir, Top};
}

ProjectIndex::ProjectIndex(ProjectRoot R, TextSource T, const FolderListings *L)
    : Root(absolute(R.Dir)), OnlyPackage(std::move(R.OnlyPackage)), Texts(std::move(T)), Listings(L) {}

std::pair<std::string, bool> ProjectIndex::moduleOf(const std::string &AbsPath) const {
  llvm::StringRef P(AbsPath);
  if (!P.consume_back(".py"))
    return {};
  bool Inside = P.startswith(Root) && P.size() > Root.size() && P[Root.size()] == '/';
  std::string Rel = Inside ? P.substr(Root.size() + 1).str() : llvm::sys::path::filename(P).str();
  if (Inside && llvm::StringRef(Rel).startswith("src/"))
    Rel = Rel.substr(4);
  bool Package = false;
  if (Rel == "__init__" || llvm::StringRef(Rel).endswith("/__init__")) {
    Package = true;
    Rel = Rel == "__init__" ? std::string() : Rel.substr(0, Rel.size() - 9);
  }
  for (char &C : Rel)
    if (C == '/')
      C = '.';
  // A folder or file name that is no identifier (`my-scripts/train.py`) has no module name.
  for (llvm::StringRef Part : llvm::split(llvm::StringRef(Rel), '.'))
    if (Part.empty() || !(std::isalpha(static_cast<unsigned char>(Part[0])) || Part[0] == '_') ||
        !llvm::all_of(Part, [](char C) { return nameByte(C); }))
      return {"", Package};
  return {Rel, Package};
}

std::string ProjectIndex::fileOf(std::string_view Module, const std::string &FromDir) const {
  if (Module.empty() || Module.front() == '.')
    return {};
  // Answers are remembered by key: "module\0folder" for a module asked from a folder, and
  // "module\1" for where it is under the root (or its src/), which is the same file from every
  // folder (`numpy`, asked from each of a project's folders, is four failed stats, not four per
  // folder).
  auto Remembered = [this](std::string Key, auto Look) {
    {
      std::lock_guard<std::mutex> G(Lock);
      if (auto It = Files.find(Key); It != Files.end())
        return It->second;
    }
    std::string Found = Look();
    std::lock_guard<std::mutex> G(Lock);
    return Files.emplace(std::move(Key), std::move(Found)).first->second;
  };
  std::string Rel(Module);
  for (char &C : Rel)
    if (C == '.')
      C = '/';
  auto In = [&](const std::string &Base) -> std::string {
    for (const std::string &Candidate : {Base + "/" + Rel + ".py", Base + "/" + Rel + "/__init__.py"})
      if (isFile(Candidate, Listings))
        return Candidate;
    return {};
  };
  return Remembered(std::string(Module) + '\0' + FromDir, [&] {
    // Beside a package in site-packages are other distributions: only its own modules count.
    bool Others = !OnlyPackage.empty() && Module.substr(0, Module.find('.')) != OnlyPackage;
    std::string Found;
    if (!Others)
      Found = Remembered(std::string(Module) + '\1', [&] {
        std::string AtRoot = In(Root);
        return AtRoot.empty() ? In(Root + "/src") : AtRoot;
      });
    // Beside the importing file (a script's siblings), unless that folder was just looked in.
    if (Found.empty() && !FromDir.empty() && FromDir != Root && (Others || FromDir != Root + "/src"))
      Found = In(FromDir);
    return Found;
  });
}

const flow::ModuleSummary *ProjectIndex::tableWithout(const std::string &AbsPath, std::string_view Name,
                                                      uint64_t *Hash) {
  std::lock_guard<std::mutex> G(Lock);
  auto It = Entries.find(AbsPath);
  if (It == Entries.end() || It->second.Unreadable || It->second.Full || !It->second.Table)
    return nullptr;
  const flow::ModuleSummary &T = *It->second.Table;
  if (!T.Defined || T.Defined->count(Name))
    return nullptr;
  if (Hash)
    *Hash = It->second.Hash;
  return &T;
}

const flow::ModuleSummary *ProjectIndex::summary(const std::string &AbsPath, bool TableOnly, uint64_t *Hash,
                                                 bool *IsPending) {
  {
    std::lock_guard<std::mutex> G(Lock);
    auto It = Entries.find(AbsPath);
    if (It != Entries.end()) {
      Entry &E = It->second;
      if (Hash)
        *Hash = E.Hash;
      if (E.Unreadable)
        return nullptr;
      if (E.Full)
        return E.Full.get();
      if (TableOnly && E.Table)
        return E.Table.get();
    }
    if (IsPending && Pending.count(AbsPath)) {
      *IsPending = true;
      return nullptr;
    }
  }
  // Computed without the lock: a summary reads the import tables of the modules it
  // star-imports, which come through here again. Two threads may both compute one; the
  // results are equal, and the first stored is kept.
  uint64_t H = 0;
  std::unique_ptr<flow::ModuleSummary> S = parseAndBuild(AbsPath, TableOnly, H);
  std::lock_guard<std::mutex> G(Lock);
  Entry &E = Entries[AbsPath];
  if (Hash)
    *Hash = H;
  E.Hash = H;
  if (!S) {
    E.Unreadable = true;
    return nullptr;
  }
  ++Count;
  std::unique_ptr<flow::ModuleSummary> &Slot = TableOnly ? E.Table : E.Full;
  if (!Slot)
    Slot = std::move(S);
  return Slot.get();
}

std::optional<std::string> ProjectIndex::text(const std::string &AbsPath) const {
  if (std::optional<std::string> T = Texts ? Texts(AbsPath) : std::nullopt)
    return T;
  auto Read = readText(AbsPath);
  if (!Read)
    return std::nullopt;
  return std::move(*Read);
}

const flow::ModuleSummary *ProjectIndex::storedSummary(const std::string &AbsPath, uint64_t Hash,
                                                       bool Complete) const {
  if (!Stored)
    return nullptr;
  auto It = Stored->find(AbsPath);
  if (It == Stored->end() || It->second.ContentHash != Hash)
    return nullptr;
  const flow::ModuleSummary &S = It->second.Summary;
  // Another project root would name the module otherwise.
  if ((Complete && S.Only) || S.Module != moduleOf(AbsPath).first || S.Display != display(AbsPath))
    return nullptr;
  for (auto &[Path, H] : S.Reads)
    if (HashNow(Path) != H)
      return nullptr;
  return &S;
}

std::unique_ptr<flow::ModuleSummary> ProjectIndex::parseAndBuild(const std::string &AbsPath, bool TableOnly,
                                                                 uint64_t &Hash, bool Complete) {
  std::optional<std::string> Text = text(AbsPath);
  Codec Enc;
  Hash = Text ? contentHash(*Text) : 0;
  if (Text)
    if (const flow::ModuleSummary *S = storedSummary(AbsPath, Hash, Complete)) {
      std::lock_guard<std::mutex> G(Lock);
      ++Reused;
      return std::make_unique<flow::ModuleSummary>(*S);
    }
  if (!Text || !prepareSource(*Text, Enc).empty())
    return nullptr;
  SourceFile File(AbsPath, std::move(*Text));
  TreePtr Tree = invalidUtf8(File).empty() ? parsePython(File.text()) : nullptr;
  if (!Tree)
    return nullptr;
  FileView View(*this, AbsPath, /*ResolveStars=*/!TableOnly);
  SemanticModel Model(File.text());
  Model.setProject(&View);
  TSNode TreeRoot = ts_tree_root_node(Tree.get());
  static const KindSet Nothing;
  walkFile(TreeRoot, Model, Nothing);
  FileContext Ctx(File, Model, TreeRoot);
  std::unique_ptr<flow::ModuleSummary> S = build(AbsPath, Ctx, View.moduleName(), TableOnly);
  S->Reads = {View.StarRead.begin(), View.StarRead.end()}; // the tables its star imports bound names from
  return S;
}

const flow::ModuleSummary *ProjectIndex::completeSummary(const std::string &AbsPath, uint64_t *Hash) {
  {
    std::lock_guard<std::mutex> G(Lock);
    auto It = Entries.find(AbsPath);
    if (It != Entries.end() && It->second.Complete) {
      if (Hash)
        *Hash = It->second.Hash;
      return It->second.Complete.get();
    }
  }
  uint64_t H = 0;
  std::unique_ptr<flow::ModuleSummary> S = parseAndBuild(AbsPath, /*TableOnly=*/false, H, /*Complete=*/true);
  if (Hash)
    *Hash = H;
  if (!S)
    return nullptr;
  std::lock_guard<std::mutex> G(Lock);
  Entry &E = Entries[AbsPath];
  ++Count;
  // Full stays: views may hold it. Complete is kept beside it.
  if (!E.Complete)
    E.Complete = std::move(S);
  return E.Complete.get();
}

std::string ProjectIndex::display(const std::string &AbsPath) const {
  return llvm::StringRef(AbsPath).startswith(Root + "/") ? AbsPath.substr(Root.size() + 1) : AbsPath;
}

std::unique_ptr<flow::ModuleSummary> ProjectIndex::build(const std::string &AbsPath, const FileContext &File,
                                                         std::string_view Module, bool TableOnly,
                                                         const std::set<std::string, std::less<>> *Only) const {
  std::string Display = display(AbsPath);
  return std::make_unique<flow::ModuleSummary>(
      TableOnly ? flow::importTable(File, std::string(Module), std::move(Display))
                : flow::summarize(File, std::string(Module), std::move(Display), Only));
}

void ProjectIndex::setPending(const std::vector<std::string> &AbsPaths, ImportWants W) {
  std::lock_guard<std::mutex> G(Lock);
  Pending = {AbsPaths.begin(), AbsPaths.end()};
  Wants = std::move(W);
}

void ProjectIndex::store(const std::string &AbsPath, const FileContext &File, bool StarsResolved,
                         std::vector<std::pair<std::string, uint64_t>> Reads) {
  {
    std::lock_guard<std::mutex> G(Lock);
    if (!Pending.count(AbsPath))
      return;
    auto It = Entries.find(AbsPath);
    if (It != Entries.end() && (It->second.Full || (!StarsResolved && It->second.Table)))
      return;
  }
  auto [Module, Package] = moduleOf(AbsPath);
  (void)Package;
  // Only what the batch's files import is summarised; a name nobody imports is summarised when
  // first asked (FileView::definitionFrom). Wants is written before the batch starts.
  bool All = false;
  std::set<std::string, std::less<>> Only = isTorchName(Module) ? std::set<std::string, std::less<>>()
                                                                : Wants.wanted(Module, All);
  // A module the batch neither imports names from nor star-imports gets nothing, not even its
  // import table: most of a library's modules are leaves (and of a `torch.*` module only the
  // table is ever read, its names being the PyTorch table's). One asked for after all is
  // summarised from a parse of its own, as any unforeseen name is: no longer pending, so that a
  // lint asking for it now is answered, not linted again after the batch.
  if (!All && Only.empty() && !Wants.starImported(Module)) {
    std::lock_guard<std::mutex> G(Lock);
    Pending.erase(AbsPath);
    return;
  }
  // A full summary holds the import table too (summary() answers table-only questions with it):
  // the table alone is kept only where the full summary must wait.
  std::unique_ptr<flow::ModuleSummary> Table =
      StarsResolved ? nullptr : build(AbsPath, File, Module, /*TableOnly=*/true);
  std::unique_ptr<flow::ModuleSummary> Full =
      StarsResolved ? build(AbsPath, File, Module, false, All ? nullptr : &Only) : nullptr;
  if (Full)
    Full->Reads = std::move(Reads);
  uint64_t H = contentHash(File.source().text());
  std::lock_guard<std::mutex> G(Lock);
  Entry &E = Entries[AbsPath];
  E.Hash = H;
  if (Table && !E.Table)
    E.Table = std::move(Table);
  if (Full && !E.Full)
    E.Full = std::move(Full);
  Count += 1;
}

void ProjectIndex::invalidate(const std::string &AbsPath) {
  std::lock_guard<std::mutex> G(Lock);
  if (AbsPath.empty()) {
    Entries.clear();
    Files.clear();
    return;
  }
  Entries.erase(AbsPath);
}

size_t ProjectIndex::summarised() const {
  std::lock_guard<std::mutex> G(Lock);
  return Count;
}

size_t ProjectIndex::reused() const {
  std::lock_guard<std::mutex> G(Lock);
  return Reused;
}

void ProjectIndex::useStored(const StoredSummaries *S, std::function<uint64_t(const std::string &)> Now) {
  std::lock_guard<std::mutex> G(Lock);
  Stored = S;
  HashNow = std::move(Now);
}

std::vector<std::pair<std::string, StoredSummary>> ProjectIndex::summariesToKeep() const {
  std::vector<std::pair<std::string, StoredSummary>> Out;
  std::lock_guard<std::mutex> G(Lock);
  for (auto &[Path, E] : Entries) {
    const flow::ModuleSummary *S = E.Unreadable ? nullptr : E.Complete ? E.Complete.get() : E.Full.get();
    // Of a module none of the batch's files imports a name from, no later run could use more
    // than its import table: not worth the cache's room.
    if (S && !(S->Only && S->Only->empty()))
      Out.emplace_back(Path, StoredSummary{E.Hash, *S});
  }
  return Out;
}

ProjectIndex::FileView::FileView(ProjectIndex &Index, std::string AbsPath, bool ResolveStars)
    : Index(Index), Path(absolute(AbsPath)), ResolveStars(ResolveStars) {
  Dir = parentOf(Path);
  std::tie(Module, Package) = Index.moduleOf(Path);
}

std::vector<std::pair<std::string, std::string>> ProjectIndex::FileView::starImports(std::string_view M) const {
  std::vector<std::pair<std::string, std::string>> Out;
  if (!ResolveStars)
    return Out;
  std::string File = Index.fileOf(M, Dir);
  if (File.empty()) {
    Absent.emplace(M, Dir);
    return Out;
  }
  std::set<std::string> Seen;
  starNames(File, Out, Seen);
  return Out;
}

// What `from <File's module> import *` binds of its imports: its own (public, or those in
// `__all__`), and those of the modules it star-imports in turn.
void ProjectIndex::FileView::starNames(const std::string &File, std::vector<std::pair<std::string, std::string>> &Out,
                                       std::set<std::string> &Seen) const {
  if (!Seen.insert(File).second || Seen.size() > 32)
    return;
  uint64_t Hash = 0;
  bool IsPending = false;
  const flow::ModuleSummary *S = Index.summary(File, /*TableOnly=*/true, &Hash, &IsPending);
  if (IsPending) {
    Waiting.push_back("*" + File);
    StarsPending = true;
    return;
  }
  Read.emplace(File, Hash);
  StarRead.emplace(File, Hash);
  if (!S)
    return;
  auto Exported = [&](const std::string &Name) {
    if (S->All)
      return std::find(S->All->begin(), S->All->end(), Name) != S->All->end();
    return !Name.empty() && Name[0] != '_';
  };
  for (auto &[Local, Qualified] : S->Imports)
    if (Exported(Local))
      Out.emplace_back(Local, Qualified);
  std::vector<std::pair<std::string, std::string>> More;
  for (const std::string &Star : S->Stars) {
    std::string From = parentOf(File), Next = Index.fileOf(Star, From);
    if (Next.empty())
      Absent.emplace(Star, From);
    else
      starNames(Next, More, Seen);
  }
  for (auto &[Local, Qualified] : More)
    if (Exported(Local))
      Out.emplace_back(Local, Qualified);
}

const flow::ModuleSummary *ProjectIndex::FileView::definition(std::string_view Qualified, std::string &Name) const {
  std::set<std::string> Seen;
  return definitionFrom(Qualified, Dir, Name, Seen);
}

bool ProjectIndex::FileView::choosesDevice(std::string_view Qualified) const {
  std::string Name;
  const flow::ModuleSummary *S = definition(Qualified, Name);
  auto E = S ? S->Names.find(Name) : decltype(S->Names.end())();
  return S && E != S->Names.end() && E->second.What == flow::Export::Kind::Function && E->second.SetsDevice;
}

const flow::ModuleSummary *ProjectIndex::FileView::definitionFrom(std::string_view Q, const std::string &FromDir,
                                                                  std::string &Name, std::set<std::string> &Seen) const {
  if (!Seen.insert(std::string(Q)).second || Seen.size() > 16)
    return nullptr;
  // The longest prefix that is a module of the project: `pkg.data` of `pkg.data.make_batch`.
  for (size_t Dot = Q.rfind('.'); Dot != std::string_view::npos && Dot > 0; Dot = Q.rfind('.', Dot - 1)) {
    std::string_view Mod = Q.substr(0, Dot), Rest = Q.substr(Dot + 1);
    if (Rest.find('.') != std::string_view::npos)
      return nullptr; // an attribute of a top-level name: not summarised
    std::string File = Index.fileOf(Mod, FromDir);
    if (File.empty()) {
      Absent.emplace(Mod, FromDir);
      continue;
    }
    uint64_t Hash = 0;
    bool IsPending = false;
    std::string Member(Rest);
    // A module that does not define the name itself passes it on through its imports and star
    // imports, which its import table holds: diffusers' `utils` star-imports twenty modules of
    // placeholders, each otherwise parsed again for a summary that could not hold the name.
    const flow::ModuleSummary *S = Index.tableWithout(File, Member, &Hash);
    if (!S)
      S = Index.summary(File, /*TableOnly=*/false, &Hash, &IsPending);
    if (IsPending) {
      Waiting.push_back(std::string(Q));
      return nullptr;
    }
    Read.emplace(File, Hash);
    if (!S)
      return nullptr;
    if (!S->covers(Member) && !(S = Index.completeSummary(File)))
      return nullptr;
    Read.insert(S->Reads.begin(), S->Reads.end()); // what decided its names decides this lint too
    if (S->Names.count(Member)) {
      Name = std::move(Member);
      return S;
    }
    // Re-exported: `from .data import make_batch` in `pkg/__init__.py`.
    if (auto It = S->Imports.find(Member); It != S->Imports.end())
      return definitionFrom(It->second, parentOf(File), Name, Seen);
    if (S->All && std::find(S->All->begin(), S->All->end(), Member) == S->All->end())
      return nullptr;
    for (const std::string &Star : S->Stars)
      if (const flow::ModuleSummary *R = definitionFrom(Star + "." + Member, parentOf(File), Name, Seen))
        return R;
    return nullptr;
  }
  return nullptr;
}

std::vector<std::pair<std::string, uint64_t>> ProjectIndex::FileView::dependencies() const {
  return {Read.begin(), Read.end()};
}

std::vector<std::pair<std::string, std::string>> ProjectIndex::FileView::unresolved() const {
  std::vector<std::pair<std::string, std::string>> Out;
  for (auto &[Module, From] : Absent)
    Out.emplace_back(Module, From == Dir ? std::string() : From); // empty: the file's own folder
  return Out;
}

void ProjectIndex::FileView::analysed(const FileContext &File) const {
  // What decided its names: the import tables its star imports read (the summaries the lint
  // asked for change what it found, not what the module defines).
  Index.store(Path, File, !StarsPending, {StarRead.begin(), StarRead.end()});
}

bool ProjectIndex::FileView::needsAnotherLint() const {
  std::vector<std::string> Asked;
  Asked.swap(Waiting);
  bool Again = false;
  for (const std::string &W : Asked) {
    if (W[0] == '*') { // a star import: anything it binds may change the file's names
      std::vector<std::pair<std::string, std::string>> Names;
      std::set<std::string> Seen;
      starNames(W.substr(1), Names, Seen);
      Again |= !Names.empty();
    } else {
      std::string Name;
      Again |= definition(W, Name) != nullptr;
    }
  }
  return Again;
}

void ProjectIndex::FileView::reset() const {
  Waiting.clear();
  Read.clear();
  StarRead.clear();
  Absent.clear();
  StarsPending = false;
}

Projects::Projects(std::string RootOverride, bool Enabled, ProjectIndex::TextSource Texts)
    : Override(RootOverride.empty() ? std::string() : absolute(RootOverride)), Enabled(Enabled),
      Texts(std::move(Texts)) {}

void Projects::invalidate(const std::string &AbsPath) {
  std::lock_guard<std::mutex> G(Lock);
  for (auto &[Root, Index] : Indexes)
    Index->invalidate(AbsPath);
  Hashes.clear();
  if (AbsPath.empty()) {
    RootOfDir.clear();
    Marks = {};
  }
}

ProjectIndex *Projects::forFile(const std::string &Path) {
  if (!Enabled)
    return nullptr;
  std::string Dir = parentOf(absolute(Path));
  std::lock_guard<std::mutex> G(Lock);
  auto It = RootOfDir.find(Dir);
  if (It == RootOfDir.end())
    It = RootOfDir
             .emplace(Dir, Override.empty() ? findProjectRoot(Dir, Marks, Listings.get()) : ProjectRoot{Override, {}})
             .first;
  std::unique_ptr<ProjectIndex> &Index = Indexes[It->second.Dir + '\0' + It->second.OnlyPackage];
  if (!Index) {
    Index = std::make_unique<ProjectIndex>(It->second, Texts, Listings.get());
    if (Stored)
      Index->useStored(Stored, [this](const std::string &P) { return currentHash(P); });
  }
  return Index.get();
}

std::optional<ProjectIndex::FileView> Projects::viewFor(const std::string &Path) {
  std::optional<ProjectIndex::FileView> V;
  if (ProjectIndex *Index = forFile(Path))
    V.emplace(*Index, Path);
  return V;
}

Projects::Views Projects::beginBatch(const std::vector<std::string> &Paths, std::vector<size_t> *Order,
                                     std::vector<std::optional<ReadFile>> *Kept) {
  Views V(Paths.size());
  if (Kept)
    Kept->assign(Paths.size(), std::nullopt);
  size_t KeptBytes = 0;
  std::map<ProjectIndex *, std::vector<size_t>> Batch;
  for (size_t I = 0; I < Paths.size(); ++I)
    if (ProjectIndex *Index = forFile(Paths[I])) {
      V[I].emplace(*Index, Paths[I]);
      Batch[Index].push_back(I);
    }
  // Each file's imports, read from its text: what each summary must cover, and which files of
  // the batch each file reads.
  std::vector<std::vector<size_t>> Reads(Paths.size());
  for (auto &[Index, Files] : Batch) {
    ImportWants Wants;
    std::vector<std::string> Pending;
    std::unordered_map<std::string, size_t> OfModule;
    std::vector<std::vector<std::string>> Named(Files.size());
    for (size_t K = 0; K < Files.size(); ++K) {
      const std::string &Path = V[Files[K]]->path();
      Pending.push_back(Path);
      auto [Module, Package] = Index->moduleOf(Path);
      if (!Module.empty())
        OfModule.emplace(Module, Files[K]);
      // Read from disk, the text goes on to the file's lint (what an editor holds is read
      // through the index, as every summary's text is).
      bool Keep = Kept && !Texts;
      std::optional<ReadFile> Read;
      if (Keep)
        Read = readFile(Path);
      else if (std::optional<std::string> Text = Index->text(Path))
        Read = ReadFile{std::move(*Text), {}};
      if (!Read)
        continue;
      scanImports(Read->Text, Module, Package, Wants, Order ? &Named[K] : nullptr);
      if (Keep && KeptBytes + Read->Text.size() <= KeptTextBytes) {
        KeptBytes += Read->Text.size();
        (*Kept)[Files[K]] = std::move(Read);
      }
    }
    Wants.finish();
    Index->setPending(Pending, std::move(Wants));
    for (size_t K = 0; K < Files.size(); ++K)
      for (const std::string &M : Named[K])
        if (auto It = OfModule.find(M); It != OfModule.end() && It->second != Files[K])
          Reads[Files[K]].push_back(It->second);
  }
  if (Order) {
    // Modules before the files that import them (depth first, in the given order; a cycle is
    // cut where it is met): a lint then finds the summaries it asks for already given, and
    // fewer files need a second lint.
    Order->clear();
    std::vector<uint8_t> State(Paths.size(), 0); // 0 unseen, 1 on the stack, 2 placed
    std::vector<std::pair<size_t, size_t>> Stack; // file, next of its reads to visit
    for (size_t Start = 0; Start < Paths.size(); ++Start) {
      if (State[Start])
        continue;
      Stack.emplace_back(Start, 0);
      State[Start] = 1;
      while (!Stack.empty()) {
        auto &[File, Next] = Stack.back();
        if (Next < Reads[File].size()) {
          size_t Dep = Reads[File][Next++];
          if (!State[Dep]) {
            State[Dep] = 1;
            Stack.emplace_back(Dep, 0);
          }
          continue;
        }
        State[File] = 2;
        Order->push_back(File);
        Stack.pop_back();
      }
    }
  }
  return V;
}

std::vector<size_t> Projects::endBatch(Views &V) {
  for (auto &View : V)
    if (View)
      View->index().setPending({});
  std::vector<size_t> Again;
  for (size_t I = 0; I < V.size(); ++I)
    if (V[I] && V[I]->needsAnotherLint()) {
      V[I]->reset();
      Again.push_back(I);
    }
  return Again;
}

uint64_t Projects::currentHash(const std::string &AbsPath) {
  {
    std::lock_guard<std::mutex> G(Lock);
    if (auto It = Hashes.find(AbsPath); It != Hashes.end())
      return It->second;
  }
  auto Text = readText(AbsPath);
  uint64_t H = Text ? contentHash(*Text) : 0;
  std::lock_guard<std::mutex> G(Lock);
  Hashes.emplace(AbsPath, H);
  return H;
}

void Projects::useStored(const StoredSummaries *S) {
  std::lock_guard<std::mutex> G(Lock);
  Stored = S;
  for (auto &[Root, Index] : Indexes)
    Index->useStored(S, [this](const std::string &P) { return currentHash(P); });
}

std::vector<std::pair<std::string, StoredSummary>> Projects::summariesToKeep() const {
  std::vector<std::pair<std::string, StoredSummary>> Out;
  std::lock_guard<std::mutex> G(Lock);
  for (auto &[Root, Index] : Indexes) {
    auto Some = Index->summariesToKeep();
    std::move(Some.begin(), Some.end(), std::back_inserter(Out));
  }
  return Out;
}

bool Projects::resultCurrent(const CacheEntry &E) {
  for (auto &[Path, Hash] : E.Dependencies)
    if (currentHash(Path) != Hash)
      return false;
  if (E.Unresolved.empty())
    return true;
  ProjectIndex *Index = forFile(E.Path);
  std::string Dir = parentOf(absolute(E.Path));
  for (auto &[Module, From] : E.Unresolved)
    if (!Index || !Index->fileOf(Module, From.empty() ? Dir : From).empty())
      return false;
  return true;
}

} // namespace torchlint
