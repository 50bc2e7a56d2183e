// `torchlint check --fix`, `--unsafe-fixes`, `--diff`, `--fix --stdin-filename` and the
// `fixable`/`unfixable` settings, end to end through the binary: what is written (and
// what is not), the summary lines, exit codes, permissions, CRLF and read-only files.
#include "TestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Two safe fixes (TL107, TL701) and two unsafe ones (TL301, TL304).
const std::string Fixable = "import torch\nx = torch.zeros(3, device=\"CPU\")\nscaler = torch.cuda.amp.GradScaler()\n"
                            "state = torch.load(p).to(dev)\n";
const std::string SafeFixed = "import torch\nx = torch.zeros(3, device=\"cpu\")\nscaler = torch.amp.GradScaler(\"cuda\")\n"
                              "state = torch.load(p).to(dev)\n";
const std::string AllFixed = "import torch\nx = torch.zeros(3, device=\"cpu\")\nscaler = torch.amp.GradScaler(\"cuda\")\n"
                             "state = torch.load(p, map_location=\"cpu\", weights_only=True).to(dev)\n";

struct Project : TempProject {
  // A project that supports PyTorch 2.4, where an absent `weights_only` still means False, and
  // TL304 (opt-in) selected in run(), so that the unsafe fixes of TL301 (the load is moved on:
  // the device varies) and TL304 are among the fixes.
  Project() { file("setup.py", "from setuptools import setup\nsetup(install_requires=[\"torch>=2.4\"])\n"); }
  Project &file(const std::string &Rel, const std::string &Text) { // chains keep this run()
    TempProject::file(Rel, Text);
    return *this;
  }
  RunResult run(std::vector<std::string> Args, const std::string &Stdin = "") const {
    Args.push_back("--no-cache");
    Args.push_back("--extend-select=TL301,TL304");
    return runTorchlint(Args, Root, Stdin);
  }
};

TEST(FixCli, WithoutFixNothingIsWrittenAndFixableFindingsAreMarked) {
  Project P;
  P.file("m.py", Fixable);
  auto R = P.run({"check", "m.py"});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_EQ(P.read("m.py"), Fixable);
  EXPECT_THAT(R.Out, HasSubstr("m.py:2:27: TL107 [*] "));
  EXPECT_THAT(R.Out, HasSubstr("m.py:4:9: TL301 `torch.load`")) << "unsafe: no [*] without --unsafe-fixes";
  EXPECT_THAT(R.Out, HasSubstr("Found 4 errors.\n[*] 2 fixable with the `--fix` option (2 hidden fixes can be "
                               "enabled with the `--unsafe-fixes` option).\n"));
  // --unsafe-fixes without --fix shows the unsafe ones as available.
  R = P.run({"check", "--unsafe-fixes", "m.py"});
  EXPECT_THAT(R.Out, HasSubstr("m.py:4:9: TL301 [*] "));
  EXPECT_THAT(R.Out, HasSubstr("[*] 4 fixable with the `--fix` option.\n"));
  EXPECT_EQ(P.read("m.py"), Fixable);
}

TEST(FixCli, FixWritesSafeFixesAndReportsWhatRemains) {
  Project P;
  P.file("m.py", Fixable);
  ASSERT_EQ(chmod((P.Root + "/m.py").c_str(), 0640), 0);
  auto R = P.run({"check", "--fix", "m.py"});
  EXPECT_EQ(R.Exit, 1) << "findings remain: " << R.Out << R.Err;
  EXPECT_EQ(P.read("m.py"), SafeFixed);
  EXPECT_THAT(R.Out, HasSubstr("Found 4 errors (2 fixed, 2 remaining).\n"));
  EXPECT_THAT(R.Out, Not(HasSubstr("TL107"))) << "fixed findings are not reported";
  struct stat St;
  ASSERT_EQ(stat((P.Root + "/m.py").c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 07777, 0640u) << "the file keeps its permissions";
  // No temporary file is left beside it.
  std::error_code EC;
  int Entries = 0;
  for (llvm::sys::fs::directory_iterator It(P.Root, EC), End; It != End && !EC; It.increment(EC))
    ++Entries;
  EXPECT_EQ(Entries, 2) << "m.py and the project's setup.py";

  R = P.run({"check", "--fix", "--unsafe-fixes", "m.py"});
  EXPECT_EQ(R.Exit, 0) << R.Out << R.Err;
  EXPECT_EQ(P.read("m.py"), AllFixed);
  EXPECT_THAT(R.Out, HasSubstr("Found 2 errors (2 fixed, 0 remaining).\n"));
  R = P.run({"check", "--fix", "--unsafe-fixes", "m.py"});
  EXPECT_EQ(R.Exit, 0);
  EXPECT_THAT(R.Out, HasSubstr("All checks passed!"));
}

TEST(FixCli, DiffPrintsAUnifiedDiffAndWritesNothing) {
  Project P;
  P.file("m.py", Fixable).file("clean.py", "import torch\n");
  auto R = P.run({"check", "--diff", "m.py", "clean.py"});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_EQ(R.Out, "--- m.py\n+++ m.py\n@@ -1,4 +1,4 @@\n import torch\n-x = torch.zeros(3, device=\"CPU\")\n"
                   "-scaler = torch.cuda.amp.GradScaler()\n+x = torch.zeros(3, device=\"cpu\")\n"
                   "+scaler = torch.amp.GradScaler(\"cuda\")\n state = torch.load(p).to(dev)\n");
  EXPECT_THAT(R.Err, HasSubstr("Would fix 2 errors."));
  EXPECT_EQ(P.read("m.py"), Fixable);
  R = P.run({"check", "--diff", "--unsafe-fixes", "m.py"});
  EXPECT_THAT(R.Out, HasSubstr("+state = torch.load(p, map_location=\"cpu\", weights_only=True).to(dev)\n"));
  EXPECT_EQ(P.read("m.py"), Fixable);
  // Nothing to fix: no diff, exit 0.
  R = P.run({"check", "--diff", "clean.py"});
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_EQ(R.Out, "");
  // --fix --diff: the diff wins, nothing is written.
  R = P.run({"check", "--fix", "--diff", "m.py"});
  EXPECT_EQ(R.Exit, 1);
  EXPECT_EQ(P.read("m.py"), Fixable);
}

TEST(FixCli, StdinWithFixPrintsTheFixedSource) {
  Project P;
  auto R = P.run({"check", "--fix", "--stdin-filename", "pkg/m.py"}, Fixable);
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_EQ(R.Out, SafeFixed) << "stdout carries only the fixed source";
  EXPECT_THAT(R.Err, HasSubstr("pkg/m.py:4:9: TL301")) << "the report goes to stderr";
  EXPECT_THAT(R.Err, HasSubstr("(2 fixed, 2 remaining)"));
  EXPECT_FALSE(llvm::sys::fs::exists(P.Root + "/pkg/m.py")) << "nothing is written";
  R = P.run({"check", "--fix", "--unsafe-fixes", "-"}, Fixable);
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_EQ(R.Out, AllFixed);
  R = P.run({"check", "--diff", "--stdin-filename", "m.py"}, Fixable);
  EXPECT_EQ(R.Exit, 1);
  EXPECT_THAT(R.Out, HasSubstr("+x = torch.zeros(3, device=\"cpu\")\n"));
  // Excluded with --force-exclude: the source comes back unchanged.
  P.file("pyproject.toml", "[tool.torchlint]\nextend-exclude = [\"gen\"]\n");
  R = P.run({"check", "--fix", "--force-exclude", "--stdin-filename", "gen/m.py"}, Fixable);
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_EQ(R.Out, Fixable);
}

TEST(FixCli, FixableAndUnfixable) {
  Project P;
  P.file("pyproject.toml", "[tool.torchlint]\nunfixable = [\"TL107\"]\n").file("m.py", Fixable);
  auto R = P.run({"check", "m.py"});
  EXPECT_THAT(R.Out, HasSubstr("m.py:2:27: TL107 `\"CPU\"`")) << "an unfixable code is not marked [*]";
  EXPECT_THAT(R.Out, HasSubstr("(display-only fix)"));
  EXPECT_THAT(R.Out, HasSubstr("[*] 1 fixable"));
  R = P.run({"check", "--fix", "m.py"});
  EXPECT_EQ(P.read("m.py"), "import torch\nx = torch.zeros(3, device=\"CPU\")\nscaler = torch.amp.GradScaler(\"cuda\")\n"
                            "state = torch.load(p).to(dev)\n");
  EXPECT_THAT(R.Out, HasSubstr("(1 fixed, 3 remaining)"));

  Project Q;
  Q.file("torchlint.toml", "fixable = [\"TL3\"]\n").file("m.py", Fixable);
  R = Q.run({"check", "--fix", "--unsafe-fixes", "m.py"});
  EXPECT_EQ(Q.read("m.py"), "import torch\nx = torch.zeros(3, device=\"CPU\")\nscaler = torch.cuda.amp.GradScaler()\n"
                            "state = torch.load(p, map_location=\"cpu\", weights_only=True).to(dev)\n");
  // The command line replaces `fixable` and adds to `unfixable`.
  Q.file("m.py", Fixable);
  R = Q.run({"check", "--fix", "--fixable", "TL1,TL7", "--unfixable", "TL701", "m.py"});
  EXPECT_EQ(Q.read("m.py"), "import torch\nx = torch.zeros(3, device=\"cpu\")\nscaler = torch.cuda.amp.GradScaler()\n"
                            "state = torch.load(p).to(dev)\n");
  R = Q.run({"check", "--fix", "--fixable", "TL999", "m.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("TL999"));
  Q.file("torchlint.toml", "unfixable = [\"TL998\"]\n");
  R = Q.run({"check", "m.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("`unfixable`: unknown rule code or prefix `TL998`"));
}

TEST(FixCli, CrlfFilesKeepTheirLineEndings) {
  Project P;
  P.file("m.py", "import torch\r\nw = torch.nn.Parameter(torch.zeros(\r\n    3,\r\n)).cuda()\r\nx = torch.zeros(1, "
                 "device=\"CPU\")\r\n");
  auto R = P.run({"check", "--fix", "--select", "TL107,TL601", "m.py"});
  EXPECT_EQ(R.Exit, 0) << R.Out << R.Err;
  EXPECT_EQ(P.read("m.py"), "import torch\r\nw = torch.nn.Parameter(torch.zeros(\r\n    3, device=\"cuda\",\r\n))\r\n"
                            "x = torch.zeros(1, device=\"cpu\")\r\n");
}

TEST(FixCli, SyntaxErrorElsewhereStillFixes) {
  Project P;
  P.file("m.py", "import torch\ndef f(:\n    pass\nx = torch.zeros(3, device=\"CPU\")\n");
  auto R = P.run({"check", "--fix", "m.py"});
  EXPECT_EQ(R.Exit, 1) << "the syntax error remains";
  EXPECT_EQ(P.read("m.py"), "import torch\ndef f(:\n    pass\nx = torch.zeros(3, device=\"cpu\")\n");
  EXPECT_THAT(R.Out, HasSubstr("TL001"));
  EXPECT_THAT(R.Out, HasSubstr("(1 fixed, 1 remaining)"));
}

TEST(FixCli, ReadOnlyFileIsReportedAndLeftAlone) {
  Project P;
  P.file("ro.py", Fixable).file("rw.py", Fixable);
  ASSERT_EQ(chmod((P.Root + "/ro.py").c_str(), 0444), 0);
  auto R = P.run({"check", "--fix", "--format", "concise", "ro.py", "rw.py"});
  EXPECT_EQ(R.Exit, 2) << "a file that could not be fixed makes the run an error";
  EXPECT_THAT(R.Err, HasSubstr("ro.py: fixes not written: the file is read-only"));
  EXPECT_EQ(P.read("ro.py"), Fixable);
  EXPECT_EQ(P.read("rw.py"), SafeFixed) << "the other files are still fixed";
  // The read-only file's findings are reported as they are in the file.
  EXPECT_THAT(R.Out, HasSubstr("ro.py:2:27: TL107 [*] "));
  EXPECT_THAT(R.Out, Not(HasSubstr("rw.py:2:27: TL107")));
  struct stat St;
  ASSERT_EQ(stat((P.Root + "/ro.py").c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 07777, 0444u);
}

TEST(FixCli, SymlinkedFileIsFixedThroughTheLink) {
  Project P;
  P.file("real/m.py", Fixable);
  llvm::sys::fs::create_directories(P.Root + "/src");
  ASSERT_EQ(symlink((P.Root + "/real/m.py").c_str(), (P.Root + "/src/m.py").c_str()), 0);
  auto R = P.run({"check", "--fix", "src/m.py"});
  EXPECT_EQ(P.read("real/m.py"), SafeFixed);
  EXPECT_TRUE(llvm::sys::fs::is_symlink_file(P.Root + "/src/m.py")) << "the link stays a link";
}

TEST(FixCli, HardLinkedFileStaysLinked) {
  Project P;
  P.file("m.py", Fixable);
  ASSERT_EQ(link((P.Root + "/m.py").c_str(), (P.Root + "/other.py").c_str()), 0);
  struct stat Before;
  ASSERT_EQ(stat((P.Root + "/m.py").c_str(), &Before), 0);
  auto R = P.run({"check", "--fix", "m.py"});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_EQ(R.Err, "");
  EXPECT_EQ(P.read("m.py"), SafeFixed);
  EXPECT_EQ(P.read("other.py"), SafeFixed) << "the other name of the file sees the fix";
  struct stat M, O;
  ASSERT_EQ(stat((P.Root + "/m.py").c_str(), &M), 0);
  ASSERT_EQ(stat((P.Root + "/other.py").c_str(), &O), 0);
  EXPECT_EQ(M.st_ino, Before.st_ino) << "the file keeps its inode";
  EXPECT_EQ(O.st_ino, M.st_ino);
  EXPECT_EQ(M.st_nlink, 2u);
  EXPECT_EQ(M.st_mode, Before.st_mode);
  // Nothing left beside it.
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(P.Root, EC), End; It != End && !EC; It.increment(EC))
    EXPECT_THAT(It->path(), Not(HasSubstr(".tmp")));
}

void setMTime(const std::string &Path, time_t Seconds) {
  struct timespec T[2] = {{Seconds, 0}, {Seconds, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, Path.c_str(), T, 0), 0) << Path;
}
void setOldMTime(const std::string &Path) { setMTime(Path, 1'600'000'000); }

// A run killed with SIGKILL (which no handler sees) leaves its temporary file: the next `--fix`
// removes those of its own making beside the files it fixes, and only those no live process holds.
TEST(FixCli, StaleTemporaryFilesOfAKilledFixAreRemoved) {
  Project P;
  P.file("m.py", Fixable).file("clean.py", "x = 1\n").file("sub/n.py", Fixable);
  const std::vector<std::string> Stale = {".m.py.torchlint-0a1b2c.tmp", ".clean.py.torchlint-ffffff.tmp",
                                          "sub/.n.py.torchlint-123abc.tmp"};
  const std::vector<std::string> Kept = {
      ".m.py.torchlint-0A1B2C.tmp",    // not a name torchlint makes (upper case)
      ".m.py.torchlint-0a1b2.tmp",     // five characters
      ".m.py.torchlint-0a1b2c.tmp~",   // another suffix
      ".other.py.torchlint-0a1b2c.tmp", // beside a file this run does not fix
      "m.py.torchlint-0a1b2c.tmp",     // not hidden
      ".m.py.torchlint-aaaaaa.tmp",    // modified since the run began: another run's, in flight
      ".m.py.torchlint-bbbbbb.tmp",    // old, but a live process holds it
      ".m.py.torchlint-cccccc.tmp",    // a folder
  };
  for (const std::string &F : Stale) {
    P.file(F, "half-written");
    setOldMTime(P.Root + "/" + F);
  }
  for (const std::string &F : Kept) {
    if (F.find("cccccc") != std::string::npos)
      ASSERT_FALSE(llvm::sys::fs::create_directories(P.Root + "/" + F));
    else
      P.file(F, "not torchlint's to remove");
    if (F.find("aaaaaa") == std::string::npos)
      setOldMTime(P.Root + "/" + F);
    else
      setMTime(P.Root + "/" + F, time(nullptr) + 3600);
  }
  // torchlint holds a lock on its temporary file while it writes it.
  int Held = open((P.Root + "/.m.py.torchlint-bbbbbb.tmp").c_str(), O_RDONLY);
  ASSERT_GE(Held, 0);
  ASSERT_EQ(flock(Held, LOCK_EX), 0);
  auto R = P.run({"check", "--fix", "m.py", "clean.py", "sub"});
  close(Held);
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_EQ(P.read("m.py"), SafeFixed);
  for (const std::string &F : Stale)
    EXPECT_FALSE(llvm::sys::fs::exists(P.Root + "/" + F)) << F;
  for (const std::string &F : Kept)
    EXPECT_TRUE(llvm::sys::fs::exists(P.Root + "/" + F)) << F;
  // --diff writes nothing, and removes nothing either.
  P.file(Stale[0], "half-written");
  setOldMTime(P.Root + "/" + Stale[0]);
  P.run({"check", "--diff", "m.py"});
  EXPECT_TRUE(llvm::sys::fs::exists(P.Root + "/" + Stale[0]));
}

} // namespace
} // namespace torchlint::test
