// .gitignore patterns and discovery of files below folders.
#include "driver/Discovery.h"

#include "TestUtil.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace torchlint {
namespace {

TEST(GitIgnore, PatternsNegationAnchorsAndFolders) {
  GitIgnore G("/repo", "# comment\n*.tmp.py\n/generated.py\nout/\nlogs/**/*.py\n!keep.tmp.py\n\n");
  EXPECT_EQ(G.match("/repo/a.tmp.py", false), 1);
  EXPECT_EQ(G.match("/repo/sub/b.tmp.py", false), 1) << "unanchored patterns match at any depth";
  EXPECT_EQ(G.match("/repo/keep.tmp.py", false), -1) << "re-included";
  EXPECT_EQ(G.match("/repo/generated.py", false), 1);
  EXPECT_EQ(G.match("/repo/sub/generated.py", false), 0) << "anchored to the .gitignore's folder";
  EXPECT_EQ(G.match("/repo/out", true), 1);
  EXPECT_EQ(G.match("/repo/out", false), 0) << "`out/` matches folders only";
  EXPECT_EQ(G.match("/repo/logs/a/b.py", false), 1);
  EXPECT_EQ(G.match("/other/a.tmp.py", false), 0) << "outside its folder";
}

TEST(Discovery, WalksFoldersHonouringGitignoreAndExcludes) {
  std::string Root = test::tempDir();
  auto Put = [&](const std::string &Rel) {
    std::string P = Root + "/" + Rel;
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    test::writeFile(P, "x = 1\n");
  };
  llvm::sys::fs::create_directories(Root + "/.git");
  test::writeFile(Root + "/.gitignore", "secret/\n");
  for (auto R : {"a.py", "b.pyi", "c.txt", "pkg/m.py", "pkg/gen_x.py", "secret/s.py", ".venv/v.py", "dist/d.py",
                 "pkg/__pycache__/x.py"})
    Put(R);
  test::writeFile(Root + "/pkg/.gitignore", "gen_*.py\n");
  ConfigResolver Res(rules::registry(), {});
  Discovery D = discoverFiles({Root}, Res, false);
  std::vector<std::string> Rel;
  for (auto &F : D.Files)
    Rel.push_back(F.Path.substr(Root.size() + 1));
  EXPECT_EQ(Rel, (std::vector<std::string>{"a.py", "b.pyi", "pkg/__pycache__/x.py", "pkg/m.py"}));
  EXPECT_TRUE(D.Errors.empty());
  D = discoverFiles({Root + "/nope"}, Res, false);
  ASSERT_EQ(D.Errors.size(), 1u);
  EXPECT_NE(D.Errors[0].find("nope"), std::string::npos);
}

TEST(Discovery, ListsEveryEntryOfTheFoldersItWalks) {
  std::string Root = test::tempDir();
  for (auto R : {"a.py", "c.txt", "pkg/m.py", "secret/s.py"}) {
    std::string P = Root + "/" + R;
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(P));
    test::writeFile(P, "x = 1\n");
  }
  llvm::sys::fs::create_directories(Root + "/.git");
  test::writeFile(Root + "/.gitignore", "secret/\n");
  ASSERT_FALSE(llvm::sys::fs::create_link(Root + "/a.py", Root + "/link.py"));
  ConfigResolver Res(rules::registry(), {});
  Discovery D = discoverFiles({Root}, Res, false);
  ASSERT_TRUE(D.Listings);
  using A = FolderListings::Answer;
  const FolderListings &L = *D.Listings;
  EXPECT_EQ(L.find(Root + "/a.py"), A::File);
  EXPECT_EQ(L.find(Root + "/c.txt"), A::File) << "every entry, not only Python files";
  EXPECT_EQ(L.find(Root + "/.git"), A::Folder);
  EXPECT_EQ(L.find(Root + "/pkg"), A::Folder);
  EXPECT_EQ(L.find(Root + "/pkg/m.py"), A::File);
  EXPECT_EQ(L.find(Root + "/nope.py"), A::Absent);
  EXPECT_EQ(L.find(Root + "/pkg/nope/__init__.py"), A::Absent) << "a listed folder lacks `nope`";
  EXPECT_EQ(L.find(Root + "/a.py/x.py"), A::Absent) << "below a file";
  EXPECT_EQ(L.find(Root + "/link.py"), A::Other) << "a link: the disk says where it leads";
  EXPECT_EQ(L.find(Root + "/secret"), A::Folder);
  EXPECT_EQ(L.find(Root + "/secret/s.py"), A::Unknown) << "ignored, so never listed";
  EXPECT_EQ(L.find(Root + "/secret/deeper/x.py"), A::Unknown);
  EXPECT_EQ(L.find(std::string(llvm::sys::path::parent_path(Root)) + "/other.py"), A::Unknown);
}

} // namespace
} // namespace torchlint
