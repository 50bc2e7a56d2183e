// Where a file's project is and which file a module is: both asked once per folder or module
// and remembered for the run, so the answers must not depend on the order of the questions.
#include "project/ProjectIndex.h"

#include "driver/Discovery.h"
#include "Rules.h"

#include "flow/Summary.h"

#include "TestUtil.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <gtest/gtest.h>

#include <algorithm>

namespace torchlint {
namespace {

void write(const std::string &Path, const std::string &Text) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path));
  test::writeFile(Path, Text);
}

/// Writes each file, path relative to \p Root -> text, making its folders.
void writeTree(const std::string &Root, std::initializer_list<std::pair<const char *, const char *>> Files) {
  for (auto &[Path, Text] : Files)
    write(Root + "/" + Path, Text);
}

constexpr const char *PyProject = "[project]\nname = \"p\"\n";

TEST(ProjectRoot, FoldersOfOneTreeShareWhatTheirAncestorsHold) {
  std::string Top = test::tempDir();
  // A project with a marker, and beside it a site-packages-like tree without one.
  writeTree(Top, {{"proj/pyproject.toml", PyProject},
                  {"proj/pkg/__init__.py", ""},
                  {"proj/pkg/sub/__init__.py", ""},
                  {"proj/pkg/sub/m.py", ""},
                  {"site/lib/__init__.py", ""},
                  {"site/lib/deep/__init__.py", ""},
                  {"site/lib/deep/m.py", ""}});
  const std::string Folders[] = {Top + "/proj/pkg/sub", Top + "/proj/pkg", Top + "/proj",
                                 Top + "/site/lib/deep", Top + "/site/lib", Top + "/site"};
  // Every order of the questions, with one memory, answers as a fresh look does.
  for (bool Reverse : {false, true}) {
    RootMarks Seen;
    for (size_t I = 0; I < std::size(Folders); ++I) {
      const std::string &F = Folders[Reverse ? std::size(Folders) - 1 - I : I];
      ProjectRoot Fresh = findProjectRoot(F), Shared = findProjectRoot(F, Seen);
      EXPECT_EQ(Shared.Dir, Fresh.Dir) << F;
      EXPECT_EQ(Shared.OnlyPackage, Fresh.OnlyPackage) << F;
    }
  }
  EXPECT_EQ(findProjectRoot(Top + "/proj/pkg/sub").Dir, Top + "/proj");
  ProjectRoot Site = findProjectRoot(Top + "/site/lib/deep");
  EXPECT_EQ(Site.Dir, Top + "/site");
  EXPECT_EQ(Site.OnlyPackage, "lib");
}

TEST(ProjectIndex, AModuleUnderTheRootIsOneFileFromEveryFolder) {
  std::string Root = test::tempDir();
  writeTree(Root, {{"pyproject.toml", PyProject},
                   {"pkg/__init__.py", ""},
                   {"pkg/data.py", ""},
                   {"src/lib/__init__.py", ""},
                   {"scripts/train.py", ""},
                   {"scripts/helpers.py", ""},
                   {"tools/run.py", ""}});
  ProjectIndex Index(ProjectRoot{Root, {}});
  for (const std::string &From : {Root + "/scripts", Root + "/tools", Root}) {
    EXPECT_EQ(Index.fileOf("pkg.data", From), Root + "/pkg/data.py") << From;
    EXPECT_EQ(Index.fileOf("pkg", From), Root + "/pkg/__init__.py") << From;
    EXPECT_EQ(Index.fileOf("lib", From), Root + "/src/lib/__init__.py") << From;
    EXPECT_EQ(Index.fileOf("numpy", From), "") << From;
  }
  // A script's sibling is found from its own folder only, however often the root was asked.
  EXPECT_EQ(Index.fileOf("helpers", Root + "/tools"), "");
  EXPECT_EQ(Index.fileOf("helpers", Root + "/scripts"), Root + "/scripts/helpers.py");
  EXPECT_EQ(Index.fileOf("helpers", Root + "/tools"), "");
}

TEST(ProjectIndex, WhatDiscoveryListedAnswersAsTheDiskDoes) {
  std::string Top = test::tempDir();
  writeTree(Top, {{"proj/pyproject.toml", PyProject},
                  {"proj/pkg/__init__.py", ""},
                  {"proj/pkg/data.py", ""},
                  {"proj/pkg/sub/__init__.py", ""},
                  {"proj/pkg/sub/m.py", ""},
                  {"proj/scripts/train.py", ""},
                  {"proj/scripts/helpers.py", ""},
                  {"proj/vendored/lib.py", ""},
                  {"proj/.gitignore", "vendored/\n"},
                  {"site/lib/__init__.py", ""},
                  {"site/lib/deep/m.py", ""}});
  ConfigResolver Res(rules::registry(), {});
  // The walk lists `proj` (not its ignored `vendored`) and `site/lib`, not `site` itself.
  Discovery D = discoverFiles({Top + "/proj", Top + "/site/lib"}, Res, false);
  ASSERT_TRUE(D.Listings);
  const std::string Folders[] = {Top + "/proj/pkg/sub", Top + "/proj/pkg",      Top + "/proj/scripts",
                                 Top + "/proj/vendored", Top + "/site/lib/deep", Top + "/site/lib"};
  RootMarks Listed;
  for (const std::string &F : Folders) {
    ProjectRoot Disk = findProjectRoot(F), FromListing = findProjectRoot(F, Listed, D.Listings.get());
    EXPECT_EQ(FromListing.Dir, Disk.Dir) << F;
    EXPECT_EQ(FromListing.OnlyPackage, Disk.OnlyPackage) << F;
  }
  ProjectIndex Disk(ProjectRoot{Top + "/proj", {}}), FromListing(ProjectRoot{Top + "/proj", {}}, nullptr,
                                                                  D.Listings.get());
  for (const std::string &From : {Top + "/proj/scripts", Top + "/proj/pkg", Top + "/proj"})
    for (std::string_view M : {"pkg", "pkg.data", "pkg.sub", "pkg.sub.m", "pkg.nope", "helpers", "vendored.lib",
                               "numpy", "scripts.train"})
      EXPECT_EQ(FromListing.fileOf(M, From), Disk.fileOf(M, From)) << M << " from " << From;
  // (Found through the listing and through the disk alike.)
  EXPECT_EQ(FromListing.fileOf("vendored.lib", Top + "/proj"), Top + "/proj/vendored/lib.py");
  EXPECT_EQ(FromListing.fileOf("helpers", Top + "/proj/scripts"), Top + "/proj/scripts/helpers.py");
}

TEST(ProjectIndex, AStarImportedModuleThatDoesNotDefineANameIsNotSummarisedForIt) {
  // diffusers' layout: a package star-imports modules of placeholders before the one that
  // defines the class asked for. Their import tables say they do not define it: no parse of
  // theirs for a full summary.
  std::string Root = test::tempDir();
  writeTree(Root, {{"pyproject.toml", PyProject},
                   {"pkg/__init__.py", "from .dummies import *\nfrom .more_dummies import *\nfrom .nets import *\n"},
                   {"pkg/dummies.py", "class Other:\n    pass\n\nNET_NAME = 'Net'\n"},
                   {"pkg/more_dummies.py", "from .helpers import helper\n\nclass Another:\n    pass\n"},
                   {"pkg/helpers.py", "def helper():\n    return 1\n"},
                   {"pkg/nets.py", "from torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
                                   "        super().__init__()\n        self.fc = nn.Linear(2, 2)\n"},
                   {"train.py", "from pkg import Net\n"}});
  ProjectIndex Index(ProjectRoot{Root, {}});
  ProjectIndex::FileView View(Index, Root + "/train.py");
  std::string Name;
  const flow::ModuleSummary *S = View.definition("pkg.Net", Name);
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->Module, "pkg.nets");
  EXPECT_EQ(Name, "Net");
  // The package in full, the tables of its three star imports, and `nets` in full: not the
  // placeholders' full summaries.
  EXPECT_EQ(Index.summarised(), 5u);
  // A name a placeholder module does define is still found there, in its full summary.
  ProjectIndex Fresh(ProjectRoot{Root, {}});
  ProjectIndex::FileView Other(Fresh, Root + "/train.py");
  EXPECT_EQ(Other.definition("pkg.Other", Name), nullptr); // defined, but nothing a device flow reads
  EXPECT_EQ(Other.definition("pkg.Missing", Name), nullptr);
}

TEST(Projects, ABatchHandsTheTextsItsImportScanReadOnToTheLints) {
  std::string Root = test::tempDir();
  writeTree(Root, {{"pyproject.toml", PyProject},
                   {"data.py", "import torch\n\ndef make_batch():\n    return torch.zeros(2)\n"},
                   {"train.py", "from data import make_batch\n"}});
  std::vector<std::string> Paths{Root + "/train.py", Root + "/data.py", Root + "/absent.py"};
  Projects P;
  std::vector<std::optional<ReadFile>> Kept;
  std::vector<size_t> Order;
  Projects::Views V = P.beginBatch(Paths, &Order, &Kept);
  ASSERT_EQ(Kept.size(), 3u);
  // Each text as on disk, with the status it had when read; a file that cannot be read has none.
  ASSERT_TRUE(Kept[0] && Kept[1]);
  EXPECT_EQ(Kept[0]->Text, "from data import make_batch\n");
  EXPECT_EQ(Kept[1]->Text, test::readFile(Root + "/data.py"));
  EXPECT_EQ(Kept[1]->Status.getSize(), Kept[1]->Text.size());
  EXPECT_EQ(Kept[1]->Status.type(), llvm::sys::fs::file_type::regular_file);
  EXPECT_FALSE(Kept[2]);
  // What was read was also scanned: `data` is linted before the file that imports it.
  ASSERT_EQ(Order.size(), 3u);
  EXPECT_LT(std::find(Order.begin(), Order.end(), 1u) - Order.begin(),
            std::find(Order.begin(), Order.end(), 0u) - Order.begin());
  P.endBatch(V);
  // The texts an editor holds are read through the index: none is handed on.
  Projects Editor(std::string(), true, [](const std::string &) { return std::optional<std::string>("x = 1\n"); });
  Projects::Views W = Editor.beginBatch(Paths, nullptr, &Kept);
  EXPECT_EQ(Kept.size(), 3u);
  EXPECT_FALSE(Kept[0] || Kept[1] || Kept[2]);
  Editor.endBatch(W);
}

} // namespace
} // namespace torchlint
