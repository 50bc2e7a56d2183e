// The parallel driver.
#include "driver/Driver.h"

#include "notebook/Ipynb.h"

#include <llvm/Support/Chrono.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint {

llvm::ErrorOr<std::string> readText(const std::string &Path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (lintPath skips what is not a
  // regular file; this covers a file replaced in between).
  int FD = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (FD < 0)
    return std::error_code(errno, std::generic_category());
  struct stat St;
  std::string Text;
  if (::fstat(FD, &St) == 0 && St.st_size > 0)
    Text.resize(static_cast<size_t>(St.st_size));
  size_t Got = 0;
  // Once the string is full, the read that finds the end goes to a buffer of its own: growing
  // the string for it would reallocate it at twice its size (or size + 64 KB), capacity the
  // string keeps for as long as the lint owns it, so 45 MB of sources held 180 MB.
  char More[16384];
  while (true) {
    bool Full = Got == Text.size();
    ssize_t N = Full ? ::read(FD, More, sizeof More) : ::read(FD, Text.data() + Got, Text.size() - Got);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      std::error_code EC(errno, std::generic_category());
      ::close(FD);
      return EC;
    }
    if (N == 0)
      break;
    if (Full) // grew since the stat, or a pipe
      Text.append(More, static_cast<size_t>(N));
    Got += static_cast<size_t>(N);
  }
  ::close(FD);
  Text.resize(Got); // shrank since the stat
  return Text;
}

std::string checkLintable(std::string_view Text) {
  if (Text.size() > MaxFileBytes)
    return "file is larger than " + std::to_string(MaxFileBytes >> 20) + " MB; skipped";
  if (std::memchr(Text.data(), '\0', Text.size()))
    return "binary file (contains NUL bytes); skipped";
  return {};
}

std::string decodeSource(std::string &Text, Codec &Enc) {
  Enc = Codec::Utf8;
  auto Declared = declaredEncoding(Text);
  if (!Declared)
    return {};
  if (!Declared->Known)
    return "declares the encoding `" + Declared->Name + "` (PEP 263), which torchlint cannot read; skipped";
  Enc = *Declared->Known;
  if (Enc == Codec::Utf8)
    return {}; // checked as UTF-8 with the rest
  uint32_t Line = 0, Column = 0;
  auto Decoded = decodeToUtf8(Text, Enc, Line, Column);
  if (!Decoded)
    return "not valid " + Declared->Name + " as it declares (line " + std::to_string(Line) + ", column " +
           std::to_string(Column) + "); skipped";
  Text = std::move(*Decoded);
  return {};
}

std::string prepareSource(std::string &Text, Codec &Enc) {
  if (std::string Why = checkLintable(Text); !Why.empty())
    return Why;
  return decodeSource(Text, Enc);
}

std::string invalidUtf8(const SourceFile &F) {
  auto Bad = F.firstInvalidUtf8();
  return Bad ? "not valid UTF-8 (line " + std::to_string(Bad->Line) + ", column " + std::to_string(Bad->Column) +
                   "); skipped"
             : std::string();
}

namespace {

std::vector<Diagnostic> cellSyntaxErrors(const std::string &Path, const notebook::Notebook &Book,
                                         std::vector<Diagnostic> Diags, const Linter &L, const LintSettings &S) {
  auto IsSyntax = [](const Diagnostic &D) { return D.Code == SyntaxErrorCode; };
  if (std::none_of(Diags.begin(), Diags.end(), IsSyntax))
    return Diags;
  // The module's first error may lie in a later cell than the one that broke it (an unclosed
  // bracket): each cell is parsed alone, and the cells that do not parse report their own.
  std::vector<Diagnostic> Own;
  const std::string &Module = Book.joined().text();
  std::vector<uint32_t> Offsets = Book.cellOffsets();
  for (size_t I = 0; I < Offsets.size(); ++I) {
    uint32_t B = Offsets[I], E = I + 1 < Offsets.size() ? Offsets[I + 1] : static_cast<uint32_t>(Module.size());
    SourceFile Cell(Path, Module.substr(B, E - B));
    for (Diagnostic &D : L.lint(Cell, S))
      if (IsSyntax(D)) {
        D.Range.Begin += B;
        D.Range.End += B;
        Own.push_back(std::move(D));
      }
  }
  if (Own.empty())
    return Diags;
  std::erase_if(Diags, IsSyntax);
  Diags.insert(Diags.end(), Own.begin(), Own.end());
  std::stable_sort(Diags.begin(), Diags.end(),
                   [](const Diagnostic &A, const Diagnostic &B) { return A.Range.Begin < B.Range.Begin; });
  return Diags;
}

} // namespace

FileOutcome lintNotebook(std::string Path, std::string Text, const Linter &L, const LintSettings &S,
                         const ProjectView *Project) {
  FileOutcome O;
  O.Path = Path;
  if (std::string Why = checkLintable(Text); !Why.empty()) {
    O.Error = std::move(Why);
    return O;
  }
  auto Book = notebook::readNotebook(std::move(Text));
  if (!Book) {
    O.Error = llvm::toString(Book.takeError());
    return O;
  }
  auto F = std::make_shared<SourceFile>(std::move(Path), Book->Book->joined().text());
  if (std::string Why = invalidUtf8(*F); !Why.empty()) {
    O.Error = std::move(Why);
    return O;
  }
  O.Diagnostics = cellSyntaxErrors(O.Path, *Book->Book, L.lint(*F, S, Project), L, S);
  notebook::placeMessageLines(O.Diagnostics, *Book->Places, F->lineCount());
  O.Source = std::move(F);
  O.Cells = std::move(Book->Places);
  return O;
}

FileOutcome lintSource(std::string Path, std::string Text, const Linter &L, const LintSettings &S,
                       const ProjectView *Project) {
  if (notebook::isNotebookPath(Path))
    return lintNotebook(std::move(Path), std::move(Text), L, S, Project);
  FileOutcome O;
  O.Path = Path;
  Codec Enc;
  if (std::string Why = prepareSource(Text, Enc); !Why.empty()) {
    O.Error = std::move(Why);
    return O;
  }
  auto F = std::make_shared<SourceFile>(std::move(Path), std::move(Text));
  if (std::string Why = invalidUtf8(*F); !Why.empty()) {
    O.Error = std::move(Why);
    return O;
  }
  O.Diagnostics = L.lint(*F, S, Project);
  O.Source = std::move(F);
  return O;
}

std::optional<ReadFile> readFile(const std::string &Path) {
  ReadFile R;
  if (llvm::sys::fs::status(Path, R.Status) || R.Status.type() != llvm::sys::fs::file_type::regular_file)
    return std::nullopt;
  auto Text = readText(Path);
  if (!Text)
    return std::nullopt;
  R.Text = std::move(*Text);
  return R;
}

FileOutcome lintPath(const std::string &Path, const Linter &L, const LintSettings &S, const ProjectView *Project,
                     std::optional<ReadFile> Read) {
  if (Read)
    return lintSource(Path, std::move(Read->Text), L, S, Project);
  llvm::sys::fs::file_status St;
  if (!llvm::sys::fs::status(Path, St) && St.type() != llvm::sys::fs::file_type::regular_file) {
    FileOutcome O;
    O.Path = Path;
    O.Error = St.type() == llvm::sys::fs::file_type::directory_file
                  ? "a directory where a file was expected; skipped"
                  : "not a regular file (a FIFO, socket or device); skipped";
    return O;
  }
  auto Text = readText(Path);
  if (!Text) {
    FileOutcome O;
    O.Path = Path;
    O.Error = "cannot read: " + Text.getError().message();
    return O;
  }
  return lintSource(Path, std::move(*Text), L, S, Project);
}

namespace {

int64_t nanos(llvm::sys::TimePoint<> T) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(T.time_since_epoch()).count();
}

/// A cached file's outcome: its diagnostics, and its source only when they need showing.
FileOutcome fromCache(const std::string &Path, const CacheEntry &E, std::shared_ptr<const SourceFile> Src) {
  FileOutcome O;
  O.Path = Path;
  O.Diagnostics = E.Diagnostics;
  O.Source = std::move(Src);
  return O;
}

/// The cached outcome of \p Path, when the cache holds one that is still right: the file has
/// the content it was linted with and (project mode) the modules it read have theirs. \p Fresh
/// receives a refreshed entry where only the file's stat fields moved.
std::optional<FileOutcome> cachedOutcome(const std::string &Path, const LintSettings &S, const ResultCache &Cache,
                                         std::optional<CacheEntry> &Fresh, Projects *P) {
  llvm::sys::fs::file_status St;
  if (llvm::sys::fs::status(Path, St) || St.type() != llvm::sys::fs::file_type::regular_file)
    return std::nullopt;
  const CacheEntry *Hit = Cache.find(Path, settingsHash(S));
  if (!Hit || (P ? !P->resultCurrent(*Hit) : !Hit->Dependencies.empty()))
    return std::nullopt;
  int64_t MTime = nanos(St.getLastModificationTime());
  bool StatMatch = !Hit->Racy && Hit->Size == St.getSize() && Hit->MTimeNs == MTime;
  if (StatMatch && Hit->Diagnostics.empty())
    return fromCache(Path, *Hit, nullptr);
  auto Read = readText(Path);
  if (!Read || Hit->Size != Read->size() || Hit->ContentHash != contentHash(*Read))
    return std::nullopt;
  // Same bytes: trust the result; refresh the stat fields so the next run need not read.
  if (!StatMatch) {
    int64_t Now = nanos(std::chrono::system_clock::now());
    Fresh = *Hit;
    Fresh->Size = St.getSize();
    Fresh->MTimeNs = MTime;
    Fresh->Racy = Now - MTime < RacyWindowNs;
  }
  if (Hit->Diagnostics.empty())
    return fromCache(Path, *Hit, nullptr);
  std::string Text = std::move(*Read);
  if (notebook::isNotebookPath(Path)) { // the findings were made on the module of its cells
    auto Book = notebook::readNotebook(std::move(Text));
    if (!Book) {
      llvm::consumeError(Book.takeError());
      return std::nullopt;
    }
    FileOutcome O = fromCache(Path, *Hit, std::make_shared<SourceFile>(Path, Book->Book->joined().text()));
    O.Cells = std::move(Book->Places);
    return O;
  }
  Codec Enc; // the findings were made on the decoded text: show them on it
  if (!decodeSource(Text, Enc).empty())
    return std::nullopt;
  return fromCache(Path, *Hit, std::make_shared<SourceFile>(Path, std::move(Text)));
}

/// lintPath, keeping the result for the cache in \p Fresh (its project dependencies are filled
/// in by the caller, once the view's lints are done).
FileOutcome lintForCache(const std::string &Path, const Linter &L, const LintSettings &S,
                         std::optional<CacheEntry> &Fresh, const ProjectView *PV, std::optional<ReadFile> Read) {
  // The status before the text: a file changed in between then has a stale status (the next
  // run reads it again), never a stale text under a current status.
  if (!Read)
    Read = readFile(Path);
  if (!Read)
    return lintPath(Path, L, S, PV);
  const llvm::sys::fs::file_status &St = Read->Status;
  std::string Text = std::move(Read->Text);
  int64_t MTime = nanos(St.getLastModificationTime()), Now = nanos(std::chrono::system_clock::now());
  CacheEntry E{Path, St.getSize(), MTime, Now - MTime < RacyWindowNs, contentHash(Text), settingsHash(S), {}, {}, {}};
  FileOutcome O = lintSource(Path, std::move(Text), L, S, PV);
  if (O.Error.empty()) {
    E.Diagnostics = O.Diagnostics;
    Fresh = std::move(E);
  }
  return O;
}

} // namespace

std::vector<FileOutcome> lintFiles(const std::vector<DiscoveredFile> &Files, const Linter &L,
                                   const ConfigResolver &Resolver, unsigned Jobs, ResultCache *Cache,
                                   Projects *P) {
  std::vector<FileOutcome> Out(Files.size());
  std::vector<std::optional<CacheEntry>> Fresh(Cache ? Files.size() : 0);
  auto Settings = [&](size_t I) { return Resolver.settingsFor(*Files[I].Cfg, Files[I].Path); };
  // What the cache still holds is taken first: those files are neither read for their imports
  // nor linted, and the modules among them give their stored summaries to the files that are.
  std::vector<size_t> ToLint;
  if (Cache) {
    if (P)
      P->useStored(&Cache->summaries());
    std::vector<char> Hit(Files.size(), 0);
    forEachIndex(Files.size(), Jobs, [&](size_t I) {
      // A file the cache has never seen (every file of a first run) costs one look-up here: its
      // settings and stat are taken once, when it is linted.
      if (!Cache->holds(Files[I].Path))
        return;
      if (std::optional<FileOutcome> O = cachedOutcome(Files[I].Path, Settings(I), *Cache, Fresh[I], P)) {
        Out[I] = std::move(*O);
        Hit[I] = 1;
      }
    });
    for (size_t I = 0; I < Files.size(); ++I)
      if (!Hit[I])
        ToLint.push_back(I);
  } else {
    ToLint.resize(Files.size());
    std::iota(ToLint.begin(), ToLint.end(), size_t(0));
  }
  // Each file's view of its project. The files linted here give their modules' summaries from
  // their own lints (no second parse); a lint that asked for one not given yet is run again
  // once all are known, if it has something to learn.
  Projects::Views Views(ToLint.size());
  std::vector<size_t> Order;
  // The texts the import scan read: each file's lint takes its own (a second lint reads again).
  std::vector<std::optional<ReadFile>> Read;
  if (P) {
    std::vector<std::string> Paths;
    for (size_t I : ToLint)
      Paths.push_back(Files[I].Path);
    Views = P->beginBatch(Paths, &Order, &Read);
  }
  auto One = [&](size_t K) {
    size_t I = ToLint[K];
    const ProjectView *PV = Views[K] ? &*Views[K] : nullptr;
    std::optional<ReadFile> Text;
    if (K < Read.size())
      Text.swap(Read[K]);
    Out[I] = Cache ? lintForCache(Files[I].Path, L, Settings(I), Fresh[I], PV, std::move(Text))
                   : lintPath(Files[I].Path, L, Settings(I), PV, std::move(Text));
    // The reports read a file's source only to place its findings: a clean file's is let go
    // now rather than held, with every other file's, until the report (the whole tree's text).
    if (Out[I].Diagnostics.empty()) {
      Out[I].Source.reset();
      Out[I].Cells.reset(); // a notebook's JSON
    }
  };
  // Imported modules first (Projects::beginBatch); the results keep the files' order.
  forEachIndex(ToLint.size(), Jobs, [&](size_t K) { One(Order.empty() ? K : Order[K]); });
  std::vector<size_t> Again = P ? P->endBatch(Views) : std::vector<size_t>();
  forEachIndex(Again.size(), Jobs, [&](size_t J) {
    if (Cache)
      Fresh[ToLint[Again[J]]].reset();
    One(Again[J]);
  });
  if (Cache) {
    for (size_t K = 0; K < ToLint.size(); ++K)
      if (auto &E = Fresh[ToLint[K]]; E && Views[K]) {
        E->Dependencies = Views[K]->dependencies();
        E->Unresolved = Views[K]->unresolved();
      }
    std::vector<CacheEntry> New;
    for (auto &E : Fresh)
      if (E)
        New.push_back(std::move(*E));
    Cache->update(std::move(New));
    if (P)
      Cache->updateSummaries(P->summariesToKeep());
  }
  return Out;
}

void keepFreedMemory() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_MXFAST, 0);
#endif
}

void forEachIndex(size_t Count, unsigned Jobs, const std::function<void(size_t)> &Work) {
  if (Jobs <= 1 || Count <= 1) {
    for (size_t I = 0; I < Count; ++I)
      Work(I);
    return;
  }
  std::atomic<size_t> Next{0};
  unsigned Threads = static_cast<unsigned>(std::min<size_t>(Jobs, Count));
  llvm::ThreadPool Pool(llvm::hardware_concurrency(Threads));
  for (unsigned T = 0; T < Threads; ++T)
    Pool.async([&] {
      for (size_t I; (I = Next.fetch_add(1)) < Count;)
        Work(I);
    });
  Pool.wait();
}

} // namespace torchlint
