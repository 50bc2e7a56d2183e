// The result cache: its file format survives a round trip and rejects corruption, and the
// CLI reuses results only when content, settings and build all match.
#include "TestUtil.h"
#include "driver/Cache.h"

#include <llvm/Support/Chrono.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Process.h>

#include <gtest/gtest.h>

#include <chrono>
#include <random>

namespace torchlint::test {
namespace {

CacheEntry sampleEntry(std::string Path) {
  CacheEntry E;
  E.Path = std::move(Path);
  E.Size = 42;
  E.MTimeNs = 1'700'000'000'123'456'789;
  E.ContentHash = contentHash("x = 1\n");
  E.SettingsHash = 7;
  Diagnostic D;
  D.Code = "TL301";
  D.Sev = Severity::Error;
  D.Range = {3, 9};
  D.Message = "`torch.load` without `map_location` ünïcode";
  D.Notes.push_back({{1, 2}, "loaded here"});
  D.Fix = Fix{"add `map_location`", Applicability::Unsafe, {{{8, 8}, ", map_location=\"cpu\""}}};
  E.Diagnostics.push_back(D);
  D.Fix.reset();
  D.Notes.clear();
  D.Code = "TL105";
  E.Diagnostics.push_back(D);
  E.Dependencies = {{"/p/data.py", 99}};
  E.Unresolved = {{"numpy", ""}, {"numpy.random", "/p/pkg"}};
  return E;
}

StoredSummary sampleSummary() {
  StoredSummary S;
  S.ContentHash = 12345;
  flow::ModuleSummary &M = S.Summary;
  M.Module = "pkg.data";
  M.Display = "pkg/data.py";
  flow::Export F;
  F.What = flow::Export::Kind::Function;
  F.Result = {flow::ValueKind::Tensor, flow::DeviceKind::Cpu, -1, "", flow::DType::Float64, flow::Rank::NonZero,
              flow::Origin::Factory, 5, flow::FlagNone};
  F.Line = 4;
  F.Params = {"n", "device"};
  F.MayMove = 2;
  F.LoadsState = 1;
  M.Names.emplace("make_batch", F);
  flow::Export C;
  C.What = flow::Export::Kind::Constant;
  C.Result = {flow::ValueKind::Device, flow::DeviceKind::Configured, -1, "DEVICE", flow::DType::Unknown,
              flow::Rank::Unknown, flow::Origin::Config, 2, flow::FlagNone};
  M.Names.emplace("DEVICE", C);
  M.Imports = {{"np", "numpy"}, {"helper", "pkg.util.helper"}};
  M.Stars = {"pkg.common"};
  M.All = std::vector<std::string>{"make_batch", "DEVICE"};
  M.Only = std::set<std::string, std::less<>>{"make_batch", "DEVICE", "other"};
  M.Reads = {{"/p/pkg/common.py", 77}};
  return S;
}

TEST(CacheFormat, ModuleSummariesRoundTrip) {
  ResultCache C = ResultCache::load(tempDir() + "/none", "key");
  C.update({sampleEntry("a.py")});
  StoredSummary Bare;
  Bare.ContentHash = 1;
  Bare.Summary.Module = "empty";
  C.updateSummaries({{"/p/pkg/data.py", sampleSummary()}, {"/p/empty.py", Bare}});
  auto Back = ResultCache::deserialize(C.serialize(), "key");
  ASSERT_TRUE(Back);
  ASSERT_EQ(Back->Summaries.size(), 2u);
  EXPECT_EQ(Back->Summaries[0].first, "/p/empty.py"); // sorted by path
  EXPECT_EQ(Back->Summaries[0].second, Bare);
  EXPECT_EQ(Back->Summaries[1].first, "/p/pkg/data.py");
  EXPECT_EQ(Back->Summaries[1].second, sampleSummary());
  // Truncated anywhere in the summaries, the cache reads as none.
  std::string Bytes = C.serialize();
  for (size_t N = 0; N < Bytes.size(); ++N)
    EXPECT_FALSE(ResultCache::deserialize(std::string_view(Bytes).substr(0, N), "key")) << N;
  // An enum byte out of range is corruption, not a value.
  std::string Bad = Bytes;
  size_t At = Bad.find("make_batch");
  ASSERT_NE(At, std::string::npos);
  Bad[At + 10] = 9; // the export's kind, right after its name
  EXPECT_FALSE(ResultCache::deserialize(Bad, "key"));
}

TEST(CacheFormat, RoundTrips) {
  ResultCache C = ResultCache::load(tempDir() + "/none", "key");
  EXPECT_EQ(C.size(), 0u);
  C.update({sampleEntry("b.py"), sampleEntry("a.py")});
  std::string Bytes = C.serialize();
  auto Back = ResultCache::deserialize(Bytes, "key");
  ASSERT_TRUE(Back);
  ASSERT_EQ(Back->Entries.size(), 2u);
  const CacheEntry &E = Back->Entries[0]; // sorted by path
  EXPECT_EQ(E.Path, "a.py");
  CacheEntry Want = sampleEntry("a.py");
  EXPECT_EQ(E.Size, Want.Size);
  EXPECT_EQ(E.MTimeNs, Want.MTimeNs);
  EXPECT_EQ(E.ContentHash, Want.ContentHash);
  ASSERT_EQ(E.Diagnostics.size(), 2u);
  const Diagnostic &D = E.Diagnostics[0];
  EXPECT_EQ(D.Code, "TL301");
  EXPECT_EQ(D.Sev, Severity::Error);
  EXPECT_EQ(D.Range.Begin, 3u);
  EXPECT_EQ(D.Message, Want.Diagnostics[0].Message);
  ASSERT_EQ(D.Notes.size(), 1u);
  EXPECT_EQ(D.Notes[0].Message, "loaded here");
  ASSERT_TRUE(D.Fix);
  EXPECT_EQ(D.Fix->Applic, Applicability::Unsafe);
  ASSERT_EQ(D.Fix->Edits.size(), 1u);
  EXPECT_EQ(D.Fix->Edits[0].Replacement, ", map_location=\"cpu\"");
  EXPECT_FALSE(E.Diagnostics[1].Fix);
  EXPECT_EQ(E.Dependencies, Want.Dependencies);
  EXPECT_EQ(E.Unresolved, Want.Unresolved);
  // The same results always make the same bytes.
  ResultCache C2 = ResultCache::load(tempDir() + "/none", "key");
  C2.update({sampleEntry("a.py"), sampleEntry("b.py")});
  EXPECT_EQ(C2.serialize(), Bytes);
}

TEST(CacheFormat, AnotherBuildsCacheIsIgnored) {
  ResultCache C = ResultCache::load(tempDir() + "/none", "torchlint 0.1.0 exe 1:2");
  C.update({sampleEntry("a.py")});
  EXPECT_FALSE(ResultCache::deserialize(C.serialize(), "torchlint 0.1.0 exe 1:3"));
}

TEST(CacheFormat, CorruptionReadsAsNoCache) {
  ResultCache C = ResultCache::load(tempDir() + "/none", "key");
  C.update({sampleEntry("a.py"), sampleEntry("b.py")});
  std::string Bytes = C.serialize();
  // Every truncation is rejected, never read past the end (ASan watches).
  for (size_t N = 0; N < Bytes.size(); ++N)
    EXPECT_FALSE(ResultCache::deserialize(std::string_view(Bytes).substr(0, N), "key")) << N;
  EXPECT_FALSE(ResultCache::deserialize(Bytes + "x", "key"));
  // Flipped bytes either fail or read as some well-formed cache; they never crash.
  std::mt19937 Rng(1234);
  for (int I = 0; I < 2000; ++I) {
    std::string B = Bytes;
    B[Rng() % B.size()] ^= static_cast<char>(1 + Rng() % 255);
    if (auto Back = ResultCache::deserialize(B, "key")) {
      for (const auto &E : Back->Entries)
        for (const auto &D : E.Diagnostics)
          EXPECT_LE(D.Range.Begin, D.Range.End);
    }
  }
}

TEST(CacheFormat, SettingsHashSeesCodesAndTarget) {
  // Designated: a brace list after TargetTorch would initialise TargetSource, not Enabled.
  LintSettings A{.TargetTorch = std::nullopt, .TargetSource = {}, .Enabled = {"TL101", "TL105"}};
  LintSettings B{.TargetTorch = std::nullopt, .TargetSource = {}, .Enabled = {"TL101"}};
  LintSettings C{.TargetTorch = TorchVersion{2, 6}, .TargetSource = {}, .Enabled = {"TL101", "TL105"}};
  LintSettings D{.TargetTorch = TorchVersion{2, 6}, .TargetSource = "torch>=2.6 in requirements.txt",
                 .Enabled = {"TL101", "TL105"}};
  EXPECT_EQ(settingsHash(A), settingsHash(LintSettings{.TargetTorch = std::nullopt, .TargetSource = {}, .Enabled = {"TL101", "TL105"}}));
  EXPECT_NE(settingsHash(A), settingsHash(B));
  EXPECT_NE(settingsHash(A), settingsHash(C));
  EXPECT_NE(settingsHash(C), settingsHash(D)); // the source is in the messages, so in the key
}

void setMTime(const std::string &Path, int64_t SecondsSinceEpoch) {
  int FD;
  ASSERT_FALSE(llvm::sys::fs::openFileForWrite(Path, FD, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append));
  auto T = llvm::sys::toTimePoint(SecondsSinceEpoch);
  EXPECT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(FD, T, T));
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
}

const char *Buggy = "import torch\nx = torch.device('gpu')\n";
const char *Clean = "import torch\ny = 1 + 2 * 3 - 4 // 55\n"; // as long as Buggy

TEST(CacheCli, WarmRunMatchesColdRunAndSkipsUnchangedFiles) {
  std::string Dir = tempDir();
  writeFile(Dir + "/bad.py", Buggy);
  writeFile(Dir + "/ok.py", Clean);
  // Old modification times: a stat match is then trusted without reading.
  setMTime(Dir + "/bad.py", 1'600'000'000);
  setMTime(Dir + "/ok.py", 1'600'000'000);
  RunResult Cold = runTorchlint({"check", "."}, Dir);
  EXPECT_EQ(Cold.Exit, 1) << Cold.Err;
  EXPECT_NE(Cold.Out.find("bad.py:2:18: TL107"), std::string::npos) << Cold.Out;
  EXPECT_TRUE(llvm::sys::fs::exists(Dir + "/.torchlint_cache/results.bin"));
  EXPECT_NE(readFile(Dir + "/.torchlint_cache/.gitignore").find("*"), std::string::npos);
  RunResult Warm = runTorchlint({"check", "."}, Dir);
  EXPECT_EQ(Warm.Exit, Cold.Exit);
  EXPECT_EQ(Warm.Out, Cold.Out);
  EXPECT_EQ(Warm.Err, Cold.Err);

  // Proof that a clean, unchanged file is not read: swap in a buggy file of the same
  // size and put its mtime back. The cache still says clean (as Ruff's would)...
  std::string Swapped = "import torch\nz = torch.device(\"GPU\")\n";
  ASSERT_EQ(Swapped.size(), std::string(Clean).size());
  writeFile(Dir + "/ok.py", Swapped);
  setMTime(Dir + "/ok.py", 1'600'000'000);
  EXPECT_EQ(runTorchlint({"check", "."}, Dir).Out, Cold.Out);
  // ...and --no-cache reads it.
  RunResult Fresh = runTorchlint({"check", "--no-cache", "."}, Dir);
  EXPECT_NE(Fresh.Out.find("ok.py:2:18: TL107"), std::string::npos) << Fresh.Out;
}

TEST(CacheCli, ChangedContentSettingsOrCorruptCacheAreNeverServedStale) {
  std::string Dir = tempDir();
  // A file rewritten within the clock's granularity keeps its size and mtime; an entry
  // stored so soon after the file changed is racy, and its content is compared.
  ASSERT_EQ(std::string(Buggy).size(), std::string(Clean).size());
  int64_t Now = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  writeFile(Dir + "/a.py", Buggy);
  setMTime(Dir + "/a.py", Now);
  RunResult First = runTorchlint({"check", "a.py"}, Dir);
  EXPECT_EQ(First.Exit, 1);
  writeFile(Dir + "/a.py", Clean);
  setMTime(Dir + "/a.py", Now);
  RunResult Second = runTorchlint({"check", "a.py"}, Dir);
  EXPECT_EQ(Second.Exit, 0) << Second.Out;
  // The clean result is the one a stat match would trust without reading.
  writeFile(Dir + "/a.py", Buggy);
  setMTime(Dir + "/a.py", Now);
  EXPECT_EQ(runTorchlint({"check", "a.py"}, Dir).Exit, 1);
  // Other settings, other result.
  RunResult Other = runTorchlint({"check", "--select", "TL105", "a.py"}, Dir);
  EXPECT_EQ(Other.Exit, 0) << Other.Out;
  // A corrupt cache is ignored and replaced.
  writeFile(Dir + "/.torchlint_cache/results.bin", "torchlint-cache 1\n\xff\xff\xff\xff garbage");
  RunResult AfterCorrupt = runTorchlint({"check", "a.py"}, Dir);
  EXPECT_EQ(AfterCorrupt.Exit, 1);
  EXPECT_EQ(AfterCorrupt.Out, First.Out);
  EXPECT_EQ(AfterCorrupt.Err, "");
}

TEST(CacheCli, NoCacheAndCacheDir) {
  std::string Dir = tempDir();
  writeFile(Dir + "/a.py", Buggy);
  EXPECT_EQ(runTorchlint({"check", "--no-cache", "a.py"}, Dir).Exit, 1);
  EXPECT_FALSE(llvm::sys::fs::exists(Dir + "/.torchlint_cache"));
  EXPECT_EQ(runTorchlint({"check", "--cache-dir", "elsewhere", "a.py"}, Dir).Exit, 1);
  EXPECT_TRUE(llvm::sys::fs::exists(Dir + "/elsewhere/results.bin"));
  EXPECT_FALSE(llvm::sys::fs::exists(Dir + "/.torchlint_cache"));
  // A cache that cannot be written is a warning; the findings are still right.
  writeFile(Dir + "/blocker", "a file where the cache folder would go");
  RunResult R = runTorchlint({"check", "--cache-dir", "blocker/sub", "a.py"}, Dir);
  EXPECT_EQ(R.Exit, 1);
  EXPECT_NE(R.Out.find("TL107"), std::string::npos);
  EXPECT_NE(R.Err.find("cannot write the cache"), std::string::npos) << R.Err;
}

} // namespace
} // namespace torchlint::test
