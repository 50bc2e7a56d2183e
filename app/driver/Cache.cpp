// The result cache: a compact binary file read once at start and written once at the end, each
// of its records under a checksum, so that a damaged cache is never served.
#include "driver/Cache.h"

#include "parse/Tree.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <cerrno>
#include <cstring>
#include <type_traits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint {
namespace {

// The file: this magic line, the header (tool key, the number of entries and of summaries,
// and the xxHash64 of everything before it), then one record per entry and per summary, each its
// body's length, the body's xxHash64 and the body. A record that fails its hash is dropped with
// everything after it (its length may be the damaged part); the records before it are kept.
constexpr std::string_view MagicPrefix = "torchlint-cache ";
constexpr std::string_view Magic = "torchlint-cache 6\n";
constexpr std::string_view FileName = "results.bin";
constexpr size_t RecordHead = 4 + 8; // length, hash

class Writer {
public:
  template <typename T> void num(T V) {
    static_assert(std::is_integral_v<T>);
    char B[sizeof(T)];
    std::memcpy(B, &V, sizeof(T));
    Out.append(B, sizeof(T));
  }
  void str(std::string_view S) {
    num<uint32_t>(static_cast<uint32_t>(S.size()));
    Out.append(S);
  }
  /// Starts a record: its head is filled in by endRecord once the body is written.
  size_t beginRecord() {
    size_t At = Out.size();
    Out.append(RecordHead, '\0');
    return At;
  }
  void endRecord(size_t At) {
    std::string_view Body = std::string_view(Out).substr(At + RecordHead);
    uint32_t Len = static_cast<uint32_t>(Body.size());
    uint64_t Hash = contentHash(Body);
    std::memcpy(Out.data() + At, &Len, 4);
    std::memcpy(Out.data() + At + 4, &Hash, 8);
  }
  std::string Out;
};

/// Every read is bounds-checked: a truncated or corrupt cache reads as "no cache".
class Reader {
public:
  explicit Reader(std::string_view In) : In(In) {}
  template <typename T> bool num(T &V) {
    if (In.size() - Pos < sizeof(T))
      return false;
    std::memcpy(&V, In.data() + Pos, sizeof(T));
    Pos += sizeof(T);
    return true;
  }
  bool str(std::string &S) {
    uint32_t N;
    std::string_view V;
    if (!num(N) || !bytes(N, V))
      return false;
    S.assign(V);
    return true;
  }
  bool bytes(size_t N, std::string_view &V) {
    if (In.size() - Pos < N)
      return false;
    V = In.substr(Pos, N);
    Pos += N;
    return true;
  }
  /// A count of items that each take at least \p MinBytes: larger ones are corrupt.
  bool count(uint32_t &N, size_t MinBytes) { return num(N) && N <= (In.size() - Pos) / MinBytes; }
  bool range(TextRange &R) { return num(R.Begin) && num(R.End) && R.Begin <= R.End; }
  bool atEnd() const { return Pos == In.size(); }
  size_t pos() const { return Pos; }
  size_t left() const { return In.size() - Pos; }

private:
  std::string_view In;
  size_t Pos = 0;
};

void writeHashes(Writer &W, const std::vector<std::pair<std::string, uint64_t>> &Hashes) {
  W.num<uint32_t>(static_cast<uint32_t>(Hashes.size()));
  for (auto &[Path, Hash] : Hashes) {
    W.str(Path);
    W.num(Hash);
  }
}

bool readHashes(Reader &R, std::vector<std::pair<std::string, uint64_t>> &Hashes) {
  uint32_t N;
  if (!R.count(N, 4 + 8))
    return false;
  Hashes.resize(N);
  for (auto &[Path, Hash] : Hashes)
    if (!R.str(Path) || !R.num(Hash))
      return false;
  return true;
}

void writeEntry(Writer &W, const CacheEntry &E) {
  W.str(E.Path);
  W.num(E.Size);
  W.num(E.MTimeNs);
  W.num<uint8_t>(E.Racy);
  W.num(E.ContentHash);
  W.num(E.SettingsHash);
  W.num<uint32_t>(static_cast<uint32_t>(E.Diagnostics.size()));
  for (const Diagnostic &D : E.Diagnostics) {
    W.str(D.Code);
    W.num<uint8_t>(static_cast<uint8_t>(D.Sev));
    W.num(D.Range.Begin);
    W.num(D.Range.End);
    W.str(D.Message);
    W.num<uint32_t>(static_cast<uint32_t>(D.Notes.size()));
    for (const Note &N : D.Notes) {
      W.num(N.Range.Begin);
      W.num(N.Range.End);
      W.str(N.Message);
    }
    W.num<uint8_t>(D.Fix.has_value());
    if (D.Fix) {
      W.str(D.Fix->Message);
      W.num<uint8_t>(static_cast<uint8_t>(D.Fix->Applic));
      W.num<uint32_t>(static_cast<uint32_t>(D.Fix->Edits.size()));
      for (const Edit &Ed : D.Fix->Edits) {
        W.num(Ed.Range.Begin);
        W.num(Ed.Range.End);
        W.str(Ed.Replacement);
      }
    }
  }
  writeHashes(W, E.Dependencies);
  W.num<uint32_t>(static_cast<uint32_t>(E.Unresolved.size()));
  for (auto &[Module, From] : E.Unresolved) {
    W.str(Module);
    W.str(From);
  }
}

void writeValue(Writer &W, const flow::ExportedValue &V) {
  for (uint8_t B : {static_cast<uint8_t>(V.Kind), static_cast<uint8_t>(V.Dev), static_cast<uint8_t>(V.Type),
                    static_cast<uint8_t>(V.R), static_cast<uint8_t>(V.How)})
    W.num(B);
  W.num(V.Index);
  W.str(V.Configured);
  W.num(V.HowLine);
  W.num(V.Flags);
  W.num(V.Arg);
  W.num(V.DevArg);
  W.num<uint8_t>(static_cast<uint8_t>(V.ArgDev | V.ArgType << 1 | V.ArgRank << 2 | V.AlsoModule << 3));
}

void writeStrings(Writer &W, const auto &Strings) {
  W.num<uint32_t>(static_cast<uint32_t>(Strings.size()));
  for (const std::string &S : Strings)
    W.str(S);
}

void writeSummary(Writer &W, const std::string &Path, const StoredSummary &Stored) {
  const flow::ModuleSummary &S = Stored.Summary;
  W.str(Path);
  W.num(Stored.ContentHash);
  W.str(S.Module);
  W.str(S.Display);
  W.num<uint32_t>(static_cast<uint32_t>(S.Names.size()));
  for (auto &[Name, E] : S.Names) {
    W.str(Name);
    W.num<uint8_t>(static_cast<uint8_t>(E.What));
    writeValue(W, E.Result);
    W.num(E.Line);
    writeStrings(W, E.Params);
    W.num(E.MayMove);
    W.num(E.LoadsState);
    W.num<uint8_t>(E.SetsDevice);
    W.num<uint32_t>(static_cast<uint32_t>(E.Parts.size()));
    for (const flow::ExportedValue &P : E.Parts)
      writeValue(W, P);
  }
  W.num<uint32_t>(static_cast<uint32_t>(S.Imports.size()));
  for (auto &[Local, Qualified] : S.Imports) {
    W.str(Local);
    W.str(Qualified);
  }
  writeStrings(W, S.Stars);
  W.num<uint8_t>(S.All.has_value());
  if (S.All)
    writeStrings(W, *S.All);
  W.num<uint8_t>(S.Only.has_value());
  if (S.Only)
    writeStrings(W, *S.Only);
  W.num<uint8_t>(S.Defined.has_value());
  if (S.Defined)
    writeStrings(W, *S.Defined);
  writeHashes(W, S.Reads);
}

bool readEntry(Reader &R, CacheEntry &E) {
  uint8_t Racy;
  uint32_t NDiags;
  if (!R.str(E.Path) || !R.num(E.Size) || !R.num(E.MTimeNs) || !R.num(Racy) || !R.num(E.ContentHash) ||
      !R.num(E.SettingsHash) || !R.count(NDiags, 4 + 1 + 8 + 4 + 4 + 1))
    return false;
  E.Racy = Racy != 0;
  E.Diagnostics.resize(NDiags);
  for (Diagnostic &D : E.Diagnostics) {
    uint8_t Sev, HasFix;
    uint32_t NNotes;
    if (!R.str(D.Code) || !R.num(Sev) || Sev > static_cast<uint8_t>(Severity::Error) || !R.range(D.Range) ||
        !R.str(D.Message) || !R.count(NNotes, 8 + 4))
      return false;
    D.Sev = static_cast<Severity>(Sev);
    D.Notes.resize(NNotes);
    for (Note &N : D.Notes)
      if (!R.range(N.Range) || !R.str(N.Message))
        return false;
    if (!R.num(HasFix))
      return false;
    if (HasFix) {
      Fix F;
      uint8_t Applic;
      uint32_t NEdits;
      if (!R.str(F.Message) || !R.num(Applic) || Applic > static_cast<uint8_t>(Applicability::Safe) ||
          !R.count(NEdits, 8 + 4))
        return false;
      F.Applic = static_cast<Applicability>(Applic);
      F.Edits.resize(NEdits);
      for (Edit &Ed : F.Edits)
        if (!R.range(Ed.Range) || !R.str(Ed.Replacement))
          return false;
      D.Fix = std::move(F);
    }
  }
  uint32_t NUnresolved;
  if (!readHashes(R, E.Dependencies) || !R.count(NUnresolved, 4 + 4))
    return false;
  E.Unresolved.resize(NUnresolved);
  for (auto &[Module, From] : E.Unresolved)
    if (!R.str(Module) || !R.str(From))
      return false;
  return true;
}

/// An enum read back only when it is one of its values.
template <typename E> bool readEnum(Reader &R, E &Out, E Last) {
  uint8_t B;
  if (!R.num(B) || B > static_cast<uint8_t>(Last))
    return false;
  Out = static_cast<E>(B);
  return true;
}

bool readValue(Reader &R, flow::ExportedValue &V) {
  uint8_t Bits;
  if (!(readEnum(R, V.Kind, flow::ValueKind::Tuple) && readEnum(R, V.Dev, flow::DeviceKind::Configured) &&
        readEnum(R, V.Type, flow::DType::Bool) && readEnum(R, V.R, flow::Rank::NonZero) &&
        readEnum(R, V.How, flow::Origin::Imported) && R.num(V.Index) && R.str(V.Configured) && R.num(V.HowLine) &&
        R.num(V.Flags) && R.num(V.Arg) && R.num(V.DevArg) && R.num(Bits)))
    return false;
  V.ArgDev = Bits & 1;
  V.ArgType = (Bits >> 1) & 1;
  V.ArgRank = (Bits >> 2) & 1;
  V.AlsoModule = (Bits >> 3) & 1;
  return true;
}

template <typename Out> bool readStrings(Reader &R, Out &Strings) {
  uint32_t N;
  if (!R.count(N, 4))
    return false;
  for (uint32_t I = 0; I < N; ++I) {
    std::string S;
    if (!R.str(S))
      return false;
    Strings.insert(Strings.end(), std::move(S));
  }
  return true;
}

bool readSummary(Reader &R, std::string &Path, StoredSummary &Stored) {
  flow::ModuleSummary &S = Stored.Summary;
  uint32_t NNames, NImports;
  if (!R.str(Path) || !R.num(Stored.ContentHash) || !R.str(S.Module) || !R.str(S.Display) ||
      !R.count(NNames, 4 + 1))
    return false;
  for (uint32_t I = 0; I < NNames; ++I) {
    std::string Name;
    flow::Export E;
    if (!R.str(Name) || !readEnum(R, E.What, flow::Export::Kind::Constant) || !readValue(R, E.Result) ||
        !R.num(E.Line) || !readStrings(R, E.Params) || !R.num(E.MayMove) || !R.num(E.LoadsState))
      return false;
    uint8_t SetsDevice;
    uint32_t NParts;
    if (!R.num(SetsDevice) || !R.count(NParts, 5 + 4 + 4 + 4 + 2 + 3))
      return false;
    E.SetsDevice = SetsDevice != 0;
    E.Parts.resize(NParts);
    for (flow::ExportedValue &P : E.Parts)
      if (!readValue(R, P))
        return false;
    S.Names.insert_or_assign(std::move(Name), std::move(E));
  }
  if (!R.count(NImports, 4 + 4))
    return false;
  for (uint32_t I = 0; I < NImports; ++I) {
    std::string Local, Qualified;
    if (!R.str(Local) || !R.str(Qualified))
      return false;
    S.Imports.insert_or_assign(std::move(Local), std::move(Qualified));
  }
  uint8_t HasAll, HasOnly;
  if (!readStrings(R, S.Stars) || !R.num(HasAll))
    return false;
  if (HasAll && !readStrings(R, S.All.emplace()))
    return false;
  if (!R.num(HasOnly) || (HasOnly && !readStrings(R, S.Only.emplace())))
    return false;
  uint8_t HasDefined;
  if (!R.num(HasDefined) || (HasDefined && !readStrings(R, S.Defined.emplace())))
    return false;
  return readHashes(R, S.Reads);
}

} // namespace

uint64_t contentHash(std::string_view Text) { return llvm::xxHash64(llvm::StringRef(Text.data(), Text.size())); }

uint64_t settingsHash(const LintSettings &S) {
  std::string Key;
  for (const auto &C : S.Enabled)
    Key += C + ",";
  Key += "@" + S.describeTarget();
  return contentHash(Key);
}

std::string toolKey(std::string_view Version) {
  std::string Key = "torchlint " + std::string(Version) + " grammar " + std::string(grammarVersion());
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::sys::fs::file_status St;
  if (!Exe.empty() && !llvm::sys::fs::status(Exe, St))
    Key += " exe " + std::to_string(St.getSize()) + ":" +
           std::to_string(St.getLastModificationTime().time_since_epoch().count());
  return Key;
}

namespace {

/// Reads the regular file \p Path into \p Bytes. Anything else is not opened, or not read once
/// opened (a FIFO would block the open, a link to /dev/zero never end): \p Why says what it is.
/// False with \p Why empty when there is no file.
bool readRegularFile(const std::string &Path, std::string &Bytes, std::string &Why) {
  struct stat St;
  if (::lstat(Path.c_str(), &St) != 0) {
    if (errno != ENOENT)
      Why = std::string("cannot be read: ") + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(St.st_mode)) {
    Why = S_ISLNK(St.st_mode) ? "not a regular file (a symbolic link)" : "not a regular file";
    return false;
  }
  // Checked again on what was opened: it may have been replaced since.
  int FD = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (FD < 0) {
    Why = errno == ELOOP ? "not a regular file (a symbolic link)" : std::string("cannot be read: ") + std::strerror(errno);
    return false;
  }
  bool Read = ::fstat(FD, &St) == 0 && S_ISREG(St.st_mode);
  if (!Read)
    Why = "not a regular file";
  Bytes.resize(Read ? static_cast<size_t>(St.st_size) : 0);
  for (size_t Done = 0; Read && Done < Bytes.size();) {
    ssize_t N = ::read(FD, Bytes.data() + Done, Bytes.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      Why = std::string("cannot be read: ") + std::strerror(errno);
      Read = false;
    } else if (N == 0) {
      Bytes.resize(Done); // it shrank since: what is there is checked like any other bytes
    } else {
      Done += static_cast<size_t>(N);
    }
  }
  ::close(FD);
  return Read;
}

} // namespace

ResultCache ResultCache::load(std::string Dir, std::string ToolKey) {
  ResultCache C;
  C.Dir = std::move(Dir);
  C.Key = std::move(ToolKey);
  llvm::SmallString<256> Path(C.Dir);
  llvm::sys::path::append(Path, FileName);
  std::string Bytes, Why;
  if (!readRegularFile(std::string(Path), Bytes, Why)) {
    if (!Why.empty()) {
      C.Problem = std::string(Path) + ": " + Why + "; the result cache is not read, and is replaced";
      C.Dirty = true;
    }
    return C;
  }
  if (auto Back = deserialize(Bytes, C.Key)) {
    for (auto &E : Back->Entries)
      C.Entries.insert_or_assign(E.Path, std::move(E));
    for (auto &[Path, S] : Back->Summaries)
      C.Summaries.insert_or_assign(std::move(Path), std::move(S));
    if (!Back->Damage.empty()) {
      C.Problem = std::string(Path) + ": the result cache is damaged (" + Back->Damage +
                  "): what it held past the damage is not trusted, and those files are linted again";
      C.Dirty = true; // rewritten even when nothing else changes, or every run would say this
    }
  }
  return C;
}

const CacheEntry *ResultCache::find(const std::string &Path, uint64_t SettingsHash) const {
  auto It = Entries.find(Path);
  return It != Entries.end() && It->second.SettingsHash == SettingsHash ? &It->second : nullptr;
}

void ResultCache::update(std::vector<CacheEntry> Fresh) {
  for (auto &E : Fresh) {
    Dirty = true;
    Entries.insert_or_assign(E.Path, std::move(E));
  }
}

void ResultCache::updateSummaries(std::vector<std::pair<std::string, StoredSummary>> Fresh) {
  for (auto &[Path, S] : Fresh) {
    auto [It, New] = Summaries.try_emplace(Path);
    if (New || !(It->second == S)) {
      Dirty = true;
      It->second = std::move(S);
    }
  }
}

namespace {

/// The magic line and the header, under its own hash.
void writeHeader(Writer &W, std::string_view ToolKey, size_t Entries, size_t Summaries) {
  W.Out.append(Magic);
  W.str(ToolKey);
  W.num<uint32_t>(static_cast<uint32_t>(Entries));
  W.num<uint32_t>(static_cast<uint32_t>(Summaries));
  W.num(contentHash(W.Out));
}

/// Whether \p Bytes starts as another version of the format does ("torchlint-cache N\n"): an
/// older or newer torchlint's cache is replaced without a word, as it is no damage.
bool otherVersion(std::string_view Bytes) {
  if (Bytes.substr(0, MagicPrefix.size()) != MagicPrefix)
    return false;
  size_t I = MagicPrefix.size();
  while (I < Bytes.size() && I < MagicPrefix.size() + 9 && Bytes[I] >= '0' && Bytes[I] <= '9')
    ++I;
  return I > MagicPrefix.size() && I < Bytes.size() && Bytes[I] == '\n' && Bytes.substr(0, I + 1) != Magic;
}

} // namespace

std::string ResultCache::serialize() const {
  Writer W;
  writeHeader(W, Key, Entries.size(), Summaries.size());
  // Sorted, so the same results always make the same bytes.
  std::vector<const CacheEntry *> Sorted;
  for (const auto &[_, E] : Entries)
    Sorted.push_back(&E);
  std::sort(Sorted.begin(), Sorted.end(), [](auto *A, auto *B) { return A->Path < B->Path; });
  for (const CacheEntry *E : Sorted) {
    size_t At = W.beginRecord();
    writeEntry(W, *E);
    W.endRecord(At);
  }
  std::vector<const std::pair<const std::string, StoredSummary> *> Stored;
  for (const auto &P : Summaries)
    Stored.push_back(&P);
  std::sort(Stored.begin(), Stored.end(), [](auto *A, auto *B) { return A->first < B->first; });
  for (const auto *P : Stored) {
    size_t At = W.beginRecord();
    writeSummary(W, P->first, P->second);
    W.endRecord(At);
  }
  return std::move(W.Out);
}

std::string ResultCache::seal(std::string_view ToolKey, const std::vector<std::string> &EntryBodies,
                              const std::vector<std::string> &SummaryBodies) {
  Writer W;
  writeHeader(W, ToolKey, EntryBodies.size(), SummaryBodies.size());
  for (const auto *Bodies : {&EntryBodies, &SummaryBodies})
    for (const std::string &Body : *Bodies) {
      size_t At = W.beginRecord();
      W.Out.append(Body);
      W.endRecord(At);
    }
  return std::move(W.Out);
}

std::string ResultCache::reseal(std::string_view Bytes) {
  std::string Out(Bytes);
  if (Bytes.substr(0, Magic.size()) != Magic)
    return Out;
  Reader R(Bytes.substr(Magic.size()));
  std::string Key;
  uint32_t NEntries, NSummaries;
  if (!R.str(Key) || !R.num(NEntries) || !R.num(NSummaries) || R.left() < 8)
    return Out;
  size_t At = Magic.size() + R.pos();
  uint64_t Hash = contentHash(Bytes.substr(0, At));
  std::memcpy(Out.data() + At, &Hash, 8);
  At += 8;
  for (uint64_t I = 0; I < uint64_t(NEntries) + NSummaries && Bytes.size() - At >= RecordHead; ++I) {
    uint32_t Len;
    std::memcpy(&Len, Bytes.data() + At, 4);
    if (Bytes.size() - At - RecordHead < Len)
      break;
    Hash = contentHash(Bytes.substr(At + RecordHead, Len));
    std::memcpy(Out.data() + At + 4, &Hash, 8);
    At += RecordHead + Len;
  }
  return Out;
}

std::optional<ResultCache::Contents> ResultCache::deserialize(std::string_view Bytes, std::string_view ToolKey) {
  Contents Out;
  auto Damaged = [&](const char *Why) {
    Out.Damage = Why;
    return std::optional<Contents>(std::move(Out));
  };
  if (Bytes.substr(0, Magic.size()) != Magic) {
    if (otherVersion(Bytes))
      return std::nullopt;
    return Damaged(Bytes.size() < Magic.size() && Magic.substr(0, Bytes.size()) == Bytes ? "truncated"
                                                                                          : "not a torchlint cache");
  }
  Reader R(Bytes.substr(Magic.size()));
  std::string Key;
  uint32_t NEntries, NSummaries;
  uint64_t Hash;
  if (!R.str(Key) || !R.num(NEntries) || !R.num(NSummaries))
    return Damaged("truncated or damaged header");
  std::string_view Header = Bytes.substr(0, Magic.size() + R.pos());
  if (!R.num(Hash))
    return Damaged("truncated");
  if (Hash != contentHash(Header))
    return Damaged("checksum mismatch in the header");
  if (Key != ToolKey)
    return std::nullopt; // another build's: replaced, never read
  // A record of the file: its body once its hash holds.
  auto Record = [&](std::string_view &Body) -> const char * {
    uint32_t Len;
    if (!R.num(Len) || !R.num(Hash) || !R.bytes(Len, Body))
      return "truncated";
    return contentHash(Body) == Hash ? nullptr : "checksum mismatch";
  };
  Out.Entries.reserve(std::min<size_t>(NEntries, R.left() / RecordHead));
  for (uint32_t I = 0; I < NEntries; ++I) {
    std::string_view Body;
    if (const char *Why = Record(Body))
      return Damaged(Why);
    Reader In(Body);
    CacheEntry E;
    if (!readEntry(In, E) || !In.atEnd())
      return Damaged("an entry that cannot be read");
    Out.Entries.push_back(std::move(E));
  }
  Out.Summaries.reserve(std::min<size_t>(NSummaries, R.left() / RecordHead));
  for (uint32_t I = 0; I < NSummaries; ++I) {
    std::string_view Body;
    if (const char *Why = Record(Body))
      return Damaged(Why);
    Reader In(Body);
    std::pair<std::string, StoredSummary> S;
    if (!readSummary(In, S.first, S.second) || !In.atEnd())
      return Damaged("a summary that cannot be read");
    Out.Summaries.push_back(std::move(S));
  }
  if (!R.atEnd())
    return Damaged("bytes after its end");
  return Out;
}

std::string ResultCache::save() const {
  if (!Dirty)
    return {};
  namespace fs = llvm::sys::fs;
  if (std::error_code EC = fs::create_directories(Dir))
    return Dir + ": " + EC.message();
  // Like Ruff's cache: a cache folder that keeps itself out of git and backups.
  // Created only where nothing is (O_EXCL): an entry already there, whatever it is, is kept, and
  // a link is never written through, nor a FIFO opened.
  auto Put = [&](llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC, fs::CD_CreateNew);
    if (!EC)
      OS << Text;
  };
  Put(".gitignore", "# Created by torchlint\n*\n");
  Put("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                      "# This file is a cache directory tag created by torchlint.\n");
  llvm::SmallString<256> Final(Dir), Temp;
  llvm::sys::path::append(Final, FileName);
  int FD;
  if (std::error_code EC = fs::createUniqueFile(Final + ".tmp-%%%%%%%%", FD, Temp))
    return std::string(Final) + ": " + EC.message();
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << serialize();
    OS.close();
    if (OS.has_error()) {
      std::string Why = OS.error().message();
      OS.clear_error();
      fs::remove(Temp);
      return std::string(Final) + ": " + Why;
    }
  }
  // rename() replaces the entry itself: a FIFO or a link found there is gone, never followed.
  if (std::error_code EC = fs::rename(Temp, Final)) {
    fs::remove(Temp);
    return std::string(Final) + ": " + EC.message();
  }
  return {};
}

} // namespace torchlint
