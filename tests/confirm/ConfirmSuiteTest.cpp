// The confirm suite: realistic training scripts (tests/confirm/scripts/), each with one
// planted device bug or none, run with `torchlint confirm`; every finding's verdict must be the
// one its line states (`# verdict: TL102=confirmed`, optionally `; evidence: TEXT`), nothing else
// may be reported, and the run's summary must say what `# summary: TEXT` lines state. Prints
// the verdict accuracy and the tracer's overhead per step; plus the run's behaviour as a process
// (exit status, stdin, interpreter options, timeout, Ctrl-C, temporary files, project root).
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

extern char **environ;

using namespace torchlint::test;
namespace json = llvm::json;

namespace {

const std::string Scripts = std::string(TORCHLINT_SOURCE_DIR) + "/tests/confirm/scripts/";

#define NEED_TORCH()                                                                                               \
  if (torchPython().empty())                                                                                       \
  GTEST_SKIP() << "no Python with torch (scripts/setup.sh installs Debian's python3-torch)"

/// Runs \p Argv (the first word a path) with a clean environment plus \p Env and \p Stdin;
/// CUDA is hidden so that the expectations hold on a GPU machine too.
RunResult runCommand(const std::vector<std::string> &Argv, std::vector<std::string> Env = {},
                     const std::string &Stdin = "") {
  std::string Dir = tempDir();
  std::string In = Dir + "/stdin", Out = Dir + "/stdout", Err = Dir + "/stderr";
  writeFile(In, Stdin);
  std::vector<llvm::StringRef> Refs(Argv.begin(), Argv.end());
  Env.push_back("NO_COLOR=1");
  Env.push_back("PATH=/usr/bin:/bin");
  Env.push_back("CUDA_VISIBLE_DEVICES=");
  std::vector<llvm::StringRef> EnvRefs(Env.begin(), Env.end());
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef(In), llvm::StringRef(Out), llvm::StringRef(Err)};
  RunResult R;
  R.Exit = llvm::sys::ExecuteAndWait(Argv[0], Refs, llvm::ArrayRef<llvm::StringRef>(EnvRefs), Redirects, 300);
  R.Out = readFile(Out);
  R.Err = readFile(Err);
  return R;
}

std::vector<std::string> confirmArgs(const std::vector<std::string> &Options, const std::vector<std::string> &Python) {
  std::vector<std::string> A = {TORCHLINT_BINARY, "confirm"};
  A.insert(A.end(), Options.begin(), Options.end());
  A.push_back("--");
  A.insert(A.end(), Python.begin(), Python.end());
  return A;
}

/// `# confirm: OPTIONS` from a script's head, split on spaces.
std::vector<std::string> scriptOptions(const std::string &Text) {
  std::vector<std::string> Out;
  std::smatch M;
  if (std::regex_search(Text, M, std::regex("# confirm: ([^\n]*)"))) {
    std::istringstream S(M[1].str());
    for (std::string W; S >> W;)
      Out.push_back(W);
  }
  return Out;
}

/// Expected verdicts: "line:CODE" -> verdict, from `# verdict: CODE=verdict[, ...]` comments;
/// with `; evidence: TEXT` after them, the evidence of the line's findings must contain TEXT.
std::map<std::string, std::string> expectedVerdicts(const std::string &Text,
                                                    std::map<std::string, std::string> *Evidence = nullptr) {
  std::map<std::string, std::string> Out;
  std::istringstream S(Text);
  unsigned Line = 0;
  std::regex Pair("(TLR?[0-9]+)=([a-z-]+)");
  for (std::string L; std::getline(S, L);) {
    ++Line;
    size_t At = L.find("# verdict: ");
    if (At == std::string::npos)
      continue;
    std::string Rest = L.substr(At);
    std::string Wanted;
    if (size_t E = Rest.find("; evidence: "); E != std::string::npos) {
      Wanted = Rest.substr(E + 12);
      Rest = Rest.substr(0, E);
    }
    for (std::sregex_iterator It(Rest.begin(), Rest.end(), Pair), End; It != End; ++It) {
      std::string Key = std::to_string(Line) + ":" + (*It)[1].str();
      Out[Key] = (*It)[2].str();
      if (Evidence && !Wanted.empty())
        (*Evidence)[Key] = Wanted;
    }
  }
  return Out;
}

/// What the run's summary (stderr) must say, from `# summary: TEXT` lines: e.g. how many child
/// processes were traced and how many optimizer steps ran.
std::vector<std::string> expectedSummary(const std::string &Text) {
  std::vector<std::string> Out;
  std::istringstream S(Text);
  for (std::string L; std::getline(S, L);)
    if (L.rfind("# summary: ", 0) == 0)
      Out.push_back(L.substr(11));
  return Out;
}

/// The verdict as the user reads it.
std::string verdictOf(const json::Object &V) { return V.getString("kind")->str(); }

struct ScriptResult {
  std::string Script;
  unsigned Right = 0, Wrong = 0, FalseRuntimeOnly = 0;
  std::vector<std::string> Mistakes;
  double WallS = 0;
  RunResult Run;
};

ScriptResult runSuiteScript(const std::string &Name) {
  ScriptResult SR;
  SR.Script = Name;
  std::string Path = Scripts + Name;
  std::string Text = readFile(Path);
  std::vector<std::string> Options = scriptOptions(Text);
  Options.push_back("--format");
  Options.push_back("json");
  auto Start = std::chrono::steady_clock::now();
  SR.Run = runCommand(confirmArgs(Options, {torchPython(), Path}));
  SR.WallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  std::map<std::string, std::string> Evidence;
  auto Expected = expectedVerdicts(Text, &Evidence);
  for (const std::string &Line : expectedSummary(Text)) {
    // Not a verdict: a failure of its own, outside the accuracy.
    if (SR.Run.Err.find(Line) == std::string::npos)
      SR.Mistakes.push_back("the summary does not say `" + Line + "`");
  }
  auto V = json::parse(SR.Run.Out);
  if (!V) {
    llvm::consumeError(V.takeError());
    SR.Wrong = Expected.size() + 1;
    SR.Mistakes.push_back("no JSON report (exit " + std::to_string(SR.Run.Exit) + "): " + SR.Run.Err);
    return SR;
  }
  std::map<std::string, bool> Seen;
  for (const json::Value &E : *V->getAsArray()) {
    const json::Object &O = *E.getAsObject();
    std::string File = O.getString("filename")->str();
    if (llvm::sys::path::filename(File) != Name)
      continue;
    std::string Key = std::to_string(*O.getObject("location")->getInteger("row")) + ":" + O.getString("code")->str();
    std::string Got = O.getObject("verdict") ? verdictOf(*O.getObject("verdict")) : "(none)";
    auto It = Expected.find(Key);
    if (It == Expected.end()) {
      ++SR.Wrong;
      if (Got == "runtime-only" && Name.rfind("clean_", 0) == 0)
        ++SR.FalseRuntimeOnly;
      SR.Mistakes.push_back(Key + " unexpected, verdict " + Got);
    } else if (It->second != Got) {
      ++SR.Wrong;
      SR.Mistakes.push_back(Key + " expected " + It->second + ", got " + Got);
    } else if (auto Ev = Evidence.find(Key); Ev != Evidence.end() && O.getObject("verdict") &&
                                              O.getObject("verdict")->getString("evidence")->str().find(Ev->second) ==
                                                  std::string::npos) {
      ++SR.Wrong;
      SR.Mistakes.push_back(Key + " evidence without `" + Ev->second +
                            "`: " + O.getObject("verdict")->getString("evidence")->str());
    } else if (!Seen[Key]) {
      ++SR.Right;
    }
    Seen[Key] = true;
  }
  for (const auto &[Key, Verdict] : Expected)
    if (!Seen[Key]) {
      ++SR.Wrong;
      SR.Mistakes.push_back(Key + " expected " + Verdict + ", no such finding");
    }
  return SR;
}

unsigned stepsOf(const std::string &Err) {
  std::smatch M;
  if (std::regex_search(Err, M, std::regex("([0-9]+) optimizer step\\(s\\)")))
    return static_cast<unsigned>(std::stoul(M[1].str()));
  return 0;
}

} // namespace

TEST(ConfirmSuite, EveryVerdictRight) {
  NEED_TORCH();
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Scripts, EC), End; It != End && !EC; It.increment(EC)) {
    std::string N = llvm::sys::path::filename(It->path()).str();
    if (llvm::StringRef(N).endswith(".py") && (N.rfind("bug_", 0) == 0 || N.rfind("clean_", 0) == 0))
      Names.push_back(N);
  }
  std::sort(Names.begin(), Names.end());
  // The sixteen kinds of realistic script of issue 23, each with one planted bug or none.
  ASSERT_GE(Names.size(), 16u);
  // Two at a time: the machines that run the suite have two cores.
  std::vector<ScriptResult> Results(Names.size());
  std::mutex M;
  size_t Next = 0;
  auto Worker = [&] {
    while (true) {
      size_t I;
      {
        std::lock_guard<std::mutex> L(M);
        if (Next >= Names.size())
          return;
        I = Next++;
      }
      Results[I] = runSuiteScript(Names[I]);
    }
  };
  std::thread A(Worker), B(Worker);
  A.join();
  B.join();
  unsigned Right = 0, Wrong = 0, FalseRuntimeOnly = 0;
  for (const auto &R : Results) {
    Right += R.Right;
    Wrong += R.Wrong;
    FalseRuntimeOnly += R.FalseRuntimeOnly;
    std::printf("  %-36s %2u right, %u wrong  (%.1f s)\n", R.Script.c_str(), R.Right, R.Wrong, R.WallS);
    for (const auto &Mistake : R.Mistakes)
      ADD_FAILURE() << R.Script << ": " << Mistake << "\n" << R.Run.Err;
  }
  std::printf("confirm suite: %u of %u verdicts right (%.0f%%) over %zu scripts; %u false runtime-only findings "
              "on clean scripts\n",
              Right, Right + Wrong, 100.0 * Right / std::max(1u, Right + Wrong), Names.size(), FalseRuntimeOnly);
  EXPECT_EQ(Wrong, 0u);
  EXPECT_EQ(FalseRuntimeOnly, 0u);
}

// What the tracer costs: the same clean script run plainly (CPU) and under the tracer (CPU,
// no virtual device), the difference divided by the optimizer steps of the traced run.
TEST(ConfirmSuite, TracerOverheadPerStep) {
  NEED_TORCH();
  std::string Path = Scripts + "clean_basic.py";
  std::vector<std::string> ScriptArgs = {"--epochs", "4", "--workers", "0"};
  std::vector<std::string> Plain = {torchPython(), Path};
  Plain.insert(Plain.end(), ScriptArgs.begin(), ScriptArgs.end());
  auto T0 = std::chrono::steady_clock::now();
  RunResult P = runCommand(Plain);
  auto T1 = std::chrono::steady_clock::now();
  std::vector<std::string> Traced = Plain;
  RunResult T = runCommand(confirmArgs({"--max-steps", "0"}, Traced));
  auto T2 = std::chrono::steady_clock::now();
  ASSERT_EQ(P.Exit, 0) << P.Err;
  ASSERT_EQ(T.Exit, 0) << T.Err;
  unsigned Steps = stepsOf(T.Err);
  ASSERT_EQ(Steps, 32u) << T.Err; // 64 samples, batches of 8, 4 epochs
  double PlainS = std::chrono::duration<double>(T1 - T0).count();
  double TracedS = std::chrono::duration<double>(T2 - T1).count();
  std::printf("tracer overhead: plain %.2f s, traced %.2f s (lint included): %.1f ms per optimizer step over %u "
              "steps\n",
              PlainS, TracedS, 1000.0 * (TracedS - PlainS) / Steps, Steps);
}

TEST(ConfirmProcess, ExitStatusStdinDoubleDashAndInterpreterOptions) {
  NEED_TORCH();
  RunResult R = runCommand(confirmArgs({"--virtual-cuda", "1"}, {torchPython(), "-W", "ignore", "-X", "dev",
                                                                  Scripts + "robust_exit_status.py", "--", "--flag"}),
                           {}, "hello from stdin\n");
  EXPECT_EQ(R.Exit, 2) << R.Err; // the script failed: exit 3
  EXPECT_NE(R.Err.find("stdin: hello from stdin"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("argv: ['--', '--flag']"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("the script exited with status 3"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("a warning `python -W ignore` hides"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Out.find("stdin:"), std::string::npos) << "the script's output goes to stderr: " << R.Out;
}

TEST(ConfirmProcess, TimeoutStopsABareExceptLoopAndKeepsTheEvidence) {
  NEED_TORCH();
  auto Start = std::chrono::steady_clock::now();
  RunResult R = runCommand(confirmArgs({"--virtual-cuda", "1", "--timeout", "3", "--format", "concise"},
                                       {torchPython(), Scripts + "robust_bare_except.py"}));
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  EXPECT_LT(Seconds, 30) << R.Err;
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_NE(R.Err.find("started"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("stopped: timeout"), std::string::npos) << R.Err;
  EXPECT_NE(R.Out.find(":13:34: TL201"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("[confirmed]"), std::string::npos) << R.Out;
  EXPECT_EQ(R.Out.find("runtime-only"), std::string::npos) << R.Out;
}

TEST(ConfirmProcess, TracerStopIsNotTheScriptsException) {
  NEED_TORCH();
  RunResult R = runCommand(confirmArgs({"--virtual-cuda", "1"}, {torchPython(), Scripts + "robust_unmodelled.py"}));
  EXPECT_EQ(R.Exit, 2) << R.Err;
  EXPECT_NE(R.Err.find("stopped: tracer"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("the virtual device cannot model `torch.cuda` (streams.__new__) at "), std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("robust_unmodelled.py:8"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("the script failed"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("Traceback"), std::string::npos) << R.Err;
}

// Ctrl-C reaches the whole foreground process group: torchlint waits, reports what ran, exits
// 130, and leaves no temporary file behind.
TEST(ConfirmProcess, CtrlCReportsWhatRanAndRemovesTemporaryFiles) {
  NEED_TORCH();
  std::string Tmp = tempDir();
  std::string Dir = tempDir();
  std::string Out = Dir + "/stdout", Err = Dir + "/stderr";
  std::vector<std::string> Args = confirmArgs({"--virtual-cuda", "1", "--timeout", "120", "--format", "concise"},
                                              {torchPython(), Scripts + "robust_interrupt.py"});
  std::vector<char *> Argv;
  for (auto &A : Args)
    Argv.push_back(A.data());
  Argv.push_back(nullptr);
  std::vector<std::string> Env = {"NO_COLOR=1", "PATH=/usr/bin:/bin", "CUDA_VISIBLE_DEVICES=", "TMPDIR=" + Tmp};
  std::vector<char *> Envp;
  for (auto &E : Env)
    Envp.push_back(E.data());
  Envp.push_back(nullptr);
  posix_spawn_file_actions_t Files;
  posix_spawn_file_actions_init(&Files);
  posix_spawn_file_actions_addopen(&Files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&Files, 1, Out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&Files, 2, Err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t Attr;
  posix_spawnattr_init(&Attr);
  posix_spawnattr_setpgroup(&Attr, 0); // its own group, as a terminal's foreground job
  posix_spawnattr_setflags(&Attr, POSIX_SPAWN_SETPGROUP);
  pid_t Pid = 0;
  ASSERT_EQ(posix_spawn(&Pid, Argv[0], &Files, &Attr, Argv.data(), Envp.data()), 0);
  posix_spawn_file_actions_destroy(&Files);
  posix_spawnattr_destroy(&Attr);
  // Wait until the script runs (it prints "started"), then press Ctrl-C.
  for (int I = 0; I < 600 && readFile(Err).find("started") == std::string::npos; ++I)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // Pressed again after 10 s if the first did not end it (seen once under a loaded ctest -j2,
  // not reproduced alone): the test is about what is reported after the interrupt.
  int Status = 0;
  for (int Press = 0; Press < 3; ++Press) {
    ::kill(-Pid, SIGINT);
    pid_t Done = 0;
    for (int I = 0; I < 100 && (Done = ::waitpid(Pid, &Status, WNOHANG)) == 0; ++I)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (Done == Pid)
      break;
    ADD_FAILURE() << "Ctrl-C number " << Press + 1 << " did not end the run in 10 s";
  }
  ASSERT_TRUE(WIFEXITED(Status)) << readFile(Err);
  EXPECT_EQ(WEXITSTATUS(Status), 130) << readFile(Err);
  std::string E = readFile(Err);
  EXPECT_NE(E.find("interrupted (Ctrl-C)"), std::string::npos) << E;
  EXPECT_NE(readFile(Out).find("TL201"), std::string::npos) << readFile(Out);
  std::error_code EC;
  llvm::sys::fs::directory_iterator It(Tmp, EC);
  EXPECT_TRUE(It == llvm::sys::fs::directory_iterator()) << "left behind: " << It->path();
}

// User code is the project (the nearest pyproject.toml above the script), not the script's
// folder: a mismatch in the project's library, beside the scripts folder, gets its verdict.
TEST(ConfirmProcess, ProjectRootIsUserCode) {
  NEED_TORCH();
  std::string Root = tempDir();
  llvm::sys::fs::create_directories(Root + "/scripts");
  llvm::sys::fs::create_directories(Root + "/mylib");
  writeFile(Root + "/pyproject.toml", "[project]\nname = \"demo\"\n");
  writeFile(Root + "/mylib/__init__.py", "");
  writeFile(Root + "/mylib/steps.py", "import torch\n"
                                      "\n"
                                      "\n"
                                      "def train_step(model, batch):\n"
                                      "    return model(batch).sum()\n");
  writeFile(Root + "/scripts/train.py", "import os\n"
                                        "import sys\n"
                                        "\n"
                                        "sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n"
                                        "import torch\n"
                                        "from mylib.steps import train_step\n"
                                        "\n"
                                        "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
                                        "model = torch.nn.Linear(4, 2).to(device)\n"
                                        "train_step(model, torch.randn(3, 4))\n");
  RunResult R = runCommand(
      confirmArgs({"--virtual-cuda", "1", "--format", "concise"}, {torchPython(), Root + "/scripts/train.py"}));
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_NE(R.Out.find("mylib/steps.py:5:"), std::string::npos) << R.Out << R.Err;
}

// Child processes other than DataLoader workers are traced: a forked `multiprocessing.Process`
// (its mismatch confirms the finding, its lines ran) and a spawned one (a fresh interpreter,
// with its own virtual device; its optimizer steps are counted).
TEST(ConfirmProcess, MultiprocessingChildrenAreTraced) {
  NEED_TORCH();
  std::string Script = Scripts + "robust_child_processes.py";
  RunResult R = runCommand(confirmArgs({"--virtual-cuda", "1", "--format", "json"}, {torchPython(), Script}));
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_NE(R.Err.find("child processes traced: 2 other child process(es); 5 of the optimizer steps ran in them"),
            std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find(": 5 optimizer step(s)"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("child trained 5 steps"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("exit codes 1 0"), std::string::npos) << R.Err; // the forked child's mismatch
  auto V = json::parse(R.Out);
  ASSERT_TRUE(bool(V)) << R.Out;
  std::map<std::string, std::string> Verdicts, Evidence;
  for (const json::Value &E : *V->getAsArray()) {
    const json::Object &O = *E.getAsObject();
    std::string Key = std::to_string(*O.getObject("location")->getInteger("row")) + ":" + O.getString("code")->str();
    if (const json::Object *Ve = O.getObject("verdict")) {
      Verdicts[Key] = Ve->getString("kind")->str();
      Evidence[Key] = Ve->getString("evidence")->str();
    }
  }
  // `model(batch)` in the forked child: the model is on cuda:0, the batch on the CPU.
  EXPECT_EQ(Verdicts.size(), 1u) << R.Out; // no runtime-only finding: the parent never used CUDA
  std::string Key = "18:TL102";
  EXPECT_EQ(Verdicts[Key], "confirmed") << R.Out;
  EXPECT_NE(Evidence[Key].find("Expected all tensors to be on the same device"), std::string::npos) << Evidence[Key];
  EXPECT_NE(Evidence[Key].find("(in a child process)"), std::string::npos) << Evidence[Key];
}

// The virtual device cannot model a CUDA stream in a spawned rank: the run is the tracer's stop,
// named with the rank's line, not the script's own failure.
TEST(ConfirmProcess, TracerStopInASpawnedRank) {
  NEED_TORCH();
  std::string Script = Scripts + "robust_child_processes.py";
  RunResult R = runCommand(
      confirmArgs({"--virtual-cuda", "1", "--format", "concise"}, {torchPython(), Script, "--unmodelled"}));
  EXPECT_EQ(R.Exit, 2) << R.Err;
  EXPECT_NE(R.Err.find("child processes traced: 1 torch.multiprocessing.spawn rank(s)"), std::string::npos) << R.Err;
  EXPECT_NE(R.Err.find("the run was stopped by torchlint, not by the script: the virtual device cannot model "
                       "`torch.cuda` (streams.__new__) at "),
            std::string::npos)
      << R.Err;
  EXPECT_NE(R.Err.find("robust_child_processes.py:33"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("the script failed"), std::string::npos) << R.Err;
}
