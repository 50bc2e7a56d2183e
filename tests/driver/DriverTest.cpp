// What the batch driver keeps of each file: the memory of a run must not grow with the tree.
#include "driver/Driver.h"

#include "TestUtil.h"

#include <llvm/Support/FileSystem.h>

#include <gtest/gtest.h>

namespace torchlint {
namespace {

TEST(ReadText, HoldsNoMoreThanTheFile) {
  // Every linted file's text is held while its lint runs, and a file with findings until the
  // report: the read must not leave the string twice the file's size.
  std::string Dir = test::tempDir();
  for (size_t Size : {size_t(0), size_t(10), size_t(4096), size_t(65536), size_t(100000), size_t(3u << 20)}) {
    std::string Text(Size, 'x');
    for (size_t I = 80; I < Size; I += 81)
      Text[I] = '\n';
    std::string Path = Dir + "/f" + std::to_string(Size) + ".py";
    test::writeFile(Path, Text);
    auto Read = readText(Path);
    ASSERT_TRUE(Read) << Path;
    EXPECT_EQ(*Read, Text);
    EXPECT_LE(Read->capacity(), std::max<size_t>(Size, 30)) << Size << " bytes read";
  }
}

TEST(ReadText, ReadsWhatTheStatDoesNotCount) {
  // /proc files stat as empty: the read grows past the stat's size until the end.
  auto Read = readText("/proc/self/status");
  ASSERT_TRUE(Read);
  EXPECT_NE(Read->find("Name:"), std::string::npos);
  EXPECT_EQ(Read->back(), '\n');
}

TEST(LintFiles, KeepsTheSourceOnlyOfFilesWithFindings) {
  std::string Root = test::tempDir();
  test::writeFile(Root + "/pyproject.toml", "[project]\nname = \"p\"\n");
  test::writeFile(Root + "/a.py", "import torch\nx = torch.zeros(3)\nx.to(\"cuda\")\n");
  test::writeFile(Root + "/b.py", "x = 1\n");
  ConfigResolver Resolver(rules::registry(), {});
  Linter L(rules::registry());
  Discovery D = discoverFiles({Root}, Resolver, false);
  ASSERT_EQ(D.Files.size(), 2u);
  for (unsigned Jobs : {1u, 2u}) {
    for (bool Cached : {false, true}) {
      // The cache's second run serves both files from it: the clean one unread.
      std::optional<ResultCache> Cache;
      if (Cached)
        Cache = ResultCache::load(Root + "/.cache" + std::to_string(Jobs), "test");
      for (int Run = 0; Run < (Cached ? 2 : 1); ++Run) {
        Projects P;
        std::vector<FileOutcome> Out = lintFiles(D.Files, L, Resolver, Jobs, Cache ? &*Cache : nullptr, &P);
        ASSERT_EQ(Out.size(), 2u);
        EXPECT_FALSE(Out[0].Diagnostics.empty());
        ASSERT_TRUE(Out[0].Source) << "the report places findings on the source";
        EXPECT_EQ(Out[0].Source->lineText(2), "x.to(\"cuda\")");
        EXPECT_TRUE(Out[1].Diagnostics.empty());
        EXPECT_TRUE(Out[1].Error.empty());
        EXPECT_FALSE(Out[1].Source) << "a clean file's text is not held until the report (jobs " << Jobs
                                    << ", run " << Run << (Cached ? ", cached" : "") << ")";
      }
    }
  }
}

// A run that re-lints only what changed takes the summaries of the unchanged modules the changed
// files import from the cache rather than parsing them again; a changed module is parsed.
TEST(LintFiles, AWarmRunTakesUnchangedModulesSummariesFromTheCache) {
  std::string Root = test::tempDir();
  test::writeFile(Root + "/pyproject.toml", "[project]\nname = \"p\"\n");
  test::writeFile(Root + "/data.py", "import torch\n\n\ndef batch(n):\n    return torch.randn(n, 4)\n");
  test::writeFile(Root + "/config.py", "import torch\n\nDEVICE = torch.device(\"cuda\" if torch.cuda.is_available() "
                                       "else \"cpu\")\n");
  std::string Train = "import torch.nn as nn\nfrom config import DEVICE\nfrom data import batch\n\n"
                      "model = nn.Linear(4, 2).to(DEVICE)\nout = model(batch(3))\n";
  test::writeFile(Root + "/train.py", Train);
  ConfigResolver Resolver(rules::registry(), {});
  Linter L(rules::registry());
  Discovery D = discoverFiles({Root}, Resolver, false);
  ASSERT_EQ(D.Files.size(), 3u);
  size_t TrainAt = 0;
  while (TrainAt < D.Files.size() && D.Files[TrainAt].Path.find("train.py") == std::string::npos)
    ++TrainAt;
  ASSERT_LT(TrainAt, D.Files.size());
  auto Codes = [](const FileOutcome &O) {
    std::vector<std::pair<std::string, uint32_t>> Out;
    for (const Diagnostic &Dg : O.Diagnostics)
      Out.emplace_back(Dg.Code, Dg.Range.Begin);
    return Out;
  };
  ResultCache Cache = ResultCache::load(Root + "/.cache", "test");
  std::vector<FileOutcome> Cold;
  {
    Projects P;
    Cold = lintFiles(D.Files, L, Resolver, 1, &Cache, &P);
    ASSERT_EQ(Codes(Cold[TrainAt]).size(), 1u) << "the batch of data.py meets the model on DEVICE";
    EXPECT_EQ(P.forFile(Root + "/train.py")->reused(), 0u);
  }
  EXPECT_GE(Cache.summaries().size(), 2u);
  // train.py changes (a line in front): data.py and config.py are served from the cache, and
  // what train.py needs of them comes from their stored summaries.
  test::writeFile(Root + "/train.py", "# resumed\n" + Train);
  for (unsigned Jobs : {1u, 2u}) {
    ResultCache Warm = Cache;
    Projects P;
    std::vector<FileOutcome> Out = lintFiles(D.Files, L, Resolver, Jobs, &Warm, &P);
    ASSERT_EQ(Codes(Out[TrainAt]).size(), 1u);
    EXPECT_EQ(Out[TrainAt].Diagnostics[0].Code, Cold[TrainAt].Diagnostics[0].Code);
    EXPECT_EQ(Out[TrainAt].Diagnostics[0].Range.Begin, Cold[TrainAt].Diagnostics[0].Range.Begin + 10);
    EXPECT_EQ(P.forFile(Root + "/train.py")->reused(), 2u) << "jobs " << Jobs;
  }
  // A changed module's stored summary is never taken stale: train.py, linted alone (as
  // pre-commit names it), sees that batch() now builds on the caller's device.
  test::writeFile(Root + "/data.py", "import torch\n\n\ndef batch(n, device=None):\n"
                                     "    return torch.randn(n, 4, device=device)\n");
  Projects P;
  std::vector<FileOutcome> Out = lintFiles({D.Files[TrainAt]}, L, Resolver, 1, &Cache, &P);
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_TRUE(Out[0].Diagnostics.empty());
  EXPECT_EQ(P.forFile(Root + "/train.py")->reused(), 1u) << "config.py's summary still holds";
}

// A batch summarises the modules its files import, and no other: a library's leaves (scripts,
// tests, modules only `torch` itself would import) cost their lint and nothing more. A package
// that star-imports a module reads that module's import table, wanted names or not.
TEST(LintFiles, ABatchSummarisesOnlyTheModulesItsFilesImport) {
  std::string Root = test::tempDir();
  test::writeFile(Root + "/pyproject.toml", "[project]\nname = \"p\"\n");
  llvm::sys::fs::create_directories(Root + "/pkg");
  test::writeFile(Root + "/pkg/__init__.py", "from .consts import *\n");
  test::writeFile(Root + "/pkg/consts.py", "import torch\n\nDEVICE = torch.device(\"cuda\")\n");
  test::writeFile(Root + "/pkg/data.py", "import torch\n\n\ndef batch(n):\n    return torch.randn(n, 4)\n");
  test::writeFile(Root + "/pkg/leaf.py", "import torch\n\n\ndef unused(n):\n    return torch.ones(n)\n");
  test::writeFile(Root + "/train.py", "import torch.nn as nn\nfrom pkg import DEVICE\nfrom pkg.data import batch\n\n"
                                      "model = nn.Linear(4, 2).to(DEVICE)\nout = model(batch(3))\n");
  ConfigResolver Resolver(rules::registry(), {});
  Linter L(rules::registry());
  Discovery D = discoverFiles({Root}, Resolver, false);
  ASSERT_EQ(D.Files.size(), 5u);
  for (unsigned Jobs : {1u, 2u}) {
    Projects P;
    std::vector<FileOutcome> Out = lintFiles(D.Files, L, Resolver, Jobs, nullptr, &P);
    size_t Findings = 0;
    for (size_t I = 0; I < Out.size(); ++I) {
      bool Train = D.Files[I].Path.find("train.py") != std::string::npos;
      EXPECT_EQ(Out[I].Diagnostics.size(), Train ? 1u : 0u) << D.Files[I].Path;
      Findings += Out[I].Diagnostics.size();
    }
    EXPECT_EQ(Findings, 1u) << "the batch of pkg.data meets the model on pkg's DEVICE";
    // pkg (DEVICE is imported from it), its star-imported consts (the table that binds DEVICE
    // there) and pkg.data: not pkg.leaf, nor train.py.
    EXPECT_EQ(P.forFile(Root + "/train.py")->summarised(), 3u) << "jobs " << Jobs;
  }
}

} // namespace
} // namespace torchlint
