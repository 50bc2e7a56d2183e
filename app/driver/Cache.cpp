// The result cache: a compact binary file read once at start and written once at the end.
#include "driver/Cache.h"

#include "parse/Tree.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <cstring>
#include <type_traits>

namespace torchlint {
namespace {

constexpr std::string_view Magic = "torchlint-cache 4\n";
constexpr std::string_view FileName = "results.bin";

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
    if (!num(N) || In.size() - Pos < N)
      return false;
    S.assign(In.data() + Pos, N);
    Pos += N;
    return true;
  }
  /// A count of items that each take at least \p MinBytes: larger ones are corrupt.
  bool count(uint32_t &N, size_t MinBytes) { return num(N) && N <= (In.size() - Pos) / MinBytes; }
  bool range(TextRange &R) { return num(R.Begin) && num(R.End) && R.Begin <= R.End; }
  bool atEnd() const { return Pos == In.size(); }

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
  return readEnum(R, V.Kind, flow::ValueKind::Checkpoint) && readEnum(R, V.Dev, flow::DeviceKind::Configured) &&
         readEnum(R, V.Type, flow::DType::Bool) && readEnum(R, V.R, flow::Rank::NonZero) &&
         readEnum(R, V.How, flow::Origin::Imported) && R.num(V.Index) && R.str(V.Configured) && R.num(V.HowLine) &&
         R.num(V.Flags);
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

ResultCache ResultCache::load(std::string Dir, std::string ToolKey) {
  ResultCache C;
  C.Dir = std::move(Dir);
  C.Key = std::move(ToolKey);
  llvm::SmallString<256> Path(C.Dir);
  llvm::sys::path::append(Path, FileName);
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return C;
  if (auto Back = deserialize((*Buf)->getBuffer(), C.Key)) {
    for (auto &E : Back->Entries)
      C.Entries.insert_or_assign(E.Path, std::move(E));
    for (auto &[Path, S] : Back->Summaries)
      C.Summaries.insert_or_assign(std::move(Path), std::move(S));
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

std::string ResultCache::serialize() const {
  Writer W;
  W.Out.append(Magic);
  W.str(Key);
  // Sorted, so the same results always make the same bytes.
  std::vector<const CacheEntry *> Sorted;
  for (const auto &[_, E] : Entries)
    Sorted.push_back(&E);
  std::sort(Sorted.begin(), Sorted.end(), [](auto *A, auto *B) { return A->Path < B->Path; });
  W.num<uint32_t>(static_cast<uint32_t>(Sorted.size()));
  for (const CacheEntry *E : Sorted)
    writeEntry(W, *E);
  std::vector<const std::pair<const std::string, StoredSummary> *> Stored;
  for (const auto &P : Summaries)
    Stored.push_back(&P);
  std::sort(Stored.begin(), Stored.end(), [](auto *A, auto *B) { return A->first < B->first; });
  W.num<uint32_t>(static_cast<uint32_t>(Stored.size()));
  for (const auto *P : Stored)
    writeSummary(W, P->first, P->second);
  return std::move(W.Out);
}

std::optional<ResultCache::Contents> ResultCache::deserialize(std::string_view Bytes, std::string_view ToolKey) {
  if (Bytes.substr(0, Magic.size()) != Magic)
    return std::nullopt;
  Reader R(Bytes.substr(Magic.size()));
  std::string Key;
  uint32_t N, NSummaries;
  if (!R.str(Key) || Key != ToolKey || !R.count(N, 4 + 8 + 8 + 1 + 8 + 8 + 4))
    return std::nullopt;
  Contents Out;
  Out.Entries.resize(N);
  for (CacheEntry &E : Out.Entries)
    if (!readEntry(R, E))
      return std::nullopt;
  if (!R.count(NSummaries, 4 + 8 + 4 + 4))
    return std::nullopt;
  Out.Summaries.resize(NSummaries);
  for (auto &[Path, S] : Out.Summaries)
    if (!readSummary(R, Path, S))
      return std::nullopt;
  if (!R.atEnd())
    return std::nullopt;
  return Out;
}

std::string ResultCache::save() const {
  if (!Dirty)
    return {};
  namespace fs = llvm::sys::fs;
  if (std::error_code EC = fs::create_directories(Dir))
    return Dir + ": " + EC.message();
  // Like Ruff's cache: a cache folder that keeps itself out of git and backups.
  auto Put = [&](llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    if (fs::exists(P))
      return;
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
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
  if (std::error_code EC = fs::rename(Temp, Final)) {
    fs::remove(Temp);
    return std::string(Final) + ": " + EC.message();
  }
  return {};
}

} // namespace torchlint
