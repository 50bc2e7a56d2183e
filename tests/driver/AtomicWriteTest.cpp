// The temporary file of an atomic write: removed when SIGINT, SIGTERM or SIGHUP ends the process
// while it is in flight, and only then; the process still ends by that signal.
#include "TestUtil.h"
#include "driver/AtomicWrite.h"

#include <llvm/Support/FileSystem.h>

#include <gtest/gtest.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

namespace torchlint::test {
namespace {

/// Runs \p Child in a forked process and returns its wait status.
template <typename F> int inChild(F Child) {
  pid_t Pid = fork();
  if (Pid == 0) {
    Child();
    _exit(0);
  }
  int Status = 0;
  EXPECT_EQ(waitpid(Pid, &Status, 0), Pid);
  return Status;
}

TEST(AtomicWrite, InFlightTemporaryFileIsRemovedBySignalThatStillEndsTheProcess) {
  for (int Sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(Sig);
    std::string Tmp = tempDir() + "/.a.py.torchlint-0a1b2c.tmp";
    writeFile(Tmp, "half");
    int Status = inChild([&] {
      RemoveOnSignal Guard(Tmp);
      raise(Sig);
    });
    EXPECT_TRUE(WIFSIGNALED(Status) && WTERMSIG(Status) == Sig) << Status;
    EXPECT_FALSE(llvm::sys::fs::exists(Tmp));
  }
}

TEST(AtomicWrite, OnlyFilesInFlightAreRemoved) {
  std::string Dir = tempDir();
  std::string Done = Dir + "/.done.py.torchlint-000000.tmp", Live = Dir + "/.live.py.torchlint-111111.tmp";
  writeFile(Done, "renamed already");
  writeFile(Live, "half");
  int Status = inChild([&] {
    { RemoveOnSignal Finished(Done); }
    // More guards than threads ever write at once, taken and released.
    for (int I = 0; I < 1000; ++I)
      RemoveOnSignal Churn(Dir + "/nothing-" + std::to_string(I));
    RemoveOnSignal Guard(Live);
    raise(SIGTERM);
  });
  EXPECT_TRUE(WIFSIGNALED(Status) && WTERMSIG(Status) == SIGTERM) << Status;
  EXPECT_TRUE(llvm::sys::fs::exists(Done)) << "a guard that ended no longer removes its file";
  EXPECT_FALSE(llvm::sys::fs::exists(Live));
}

size_t entriesIn(const std::string &Dir) {
  std::error_code EC;
  size_t N = 0;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    ++N;
  return N;
}

// The whole path: a signal that arrives while the fixed text waits in its temporary file leaves
// the file as it was and nothing beside it, whether the file is renamed over or written in place.
TEST(AtomicWrite, SignalMidWriteLeavesTheFileAsItWasAndNothingBeside) {
  for (bool HardLinked : {false, true}) {
    SCOPED_TRACE(HardLinked);
    std::string Dir = tempDir();
    writeFile(Dir + "/a.py", "old\n");
    if (HardLinked) {
      ASSERT_EQ(link((Dir + "/a.py").c_str(), (Dir + "/b.py").c_str()), 0);
    }
    int Status = inChild([&] {
      BeforeReplacingForTests = [](const std::string &Tmp) {
        if (llvm::sys::fs::exists(Tmp))
          raise(SIGTERM);
      };
      llvm::consumeError(writeFileAtomically(Dir + "/a.py", "new\n"));
    });
    EXPECT_TRUE(WIFSIGNALED(Status) && WTERMSIG(Status) == SIGTERM) << Status;
    EXPECT_EQ(readFile(Dir + "/a.py"), "old\n");
    EXPECT_EQ(entriesIn(Dir), HardLinked ? 2u : 1u) << "a temporary file was left";
  }
}

TEST(AtomicWrite, ReplacesTheFileAndLeavesNothingBeside) {
  std::string Dir = tempDir();
  writeFile(Dir + "/a.py", "old\n");
  ASSERT_FALSE(bool(writeFileAtomically(Dir + "/a.py", "new\n")));
  EXPECT_EQ(readFile(Dir + "/a.py"), "new\n");
  EXPECT_EQ(entriesIn(Dir), 1u);
}

} // namespace
} // namespace torchlint::test
