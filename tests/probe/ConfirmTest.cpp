// End-to-end tests of `torchlint probe` (the no-device path) and `torchlint confirm` with
// Debian's CPU PyTorch and --virtual-cuda, on the planted scripts in tests/probe/scripts/.
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

using namespace torchlint::test;
namespace json = llvm::json;

namespace {

const std::string Scripts = std::string(TORCHLINT_SOURCE_DIR) + "/tests/probe/scripts/";

/// Runs torchlint with a clean environment plus \p Env; CUDA is hidden from the script so
/// that the expectations hold on a machine with a GPU too.
RunResult run(const std::vector<std::string> &Args, std::vector<std::string> Env = {}) {
  std::string Dir = tempDir();
  std::string Out = Dir + "/stdout", Err = Dir + "/stderr";
  std::vector<llvm::StringRef> Argv = {TORCHLINT_BINARY};
  for (const auto &A : Args)
    Argv.push_back(A);
  Env.push_back("NO_COLOR=1");
  Env.push_back("PATH=/usr/bin:/bin");
  Env.push_back("CUDA_VISIBLE_DEVICES=");
  std::vector<llvm::StringRef> EnvRefs(Env.begin(), Env.end());
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef("/dev/null"), llvm::StringRef(Out),
                                                 llvm::StringRef(Err)};
  RunResult R;
  R.Exit = llvm::sys::ExecuteAndWait(TORCHLINT_BINARY, Argv, llvm::ArrayRef<llvm::StringRef>(EnvRefs), Redirects, 300);
  R.Out = readFile(Out);
  R.Err = readFile(Err);
  return R;
}

RunResult confirm(std::vector<std::string> Options, const std::string &Script, std::vector<std::string> ScriptArgs = {}) {
  std::vector<std::string> Args = {"confirm"};
  Args.insert(Args.end(), Options.begin(), Options.end());
  Args.push_back("--");
  Args.push_back(torchPython());
  Args.push_back(Scripts + Script);
  Args.insert(Args.end(), ScriptArgs.begin(), ScriptArgs.end());
  return run(Args);
}

struct Finding {
  std::string Code, Verdict, Evidence;
  unsigned Line = 0;
  bool HasCost = false;
};

std::vector<Finding> parseJson(const std::string &Out) {
  std::vector<Finding> F;
  auto V = json::parse(Out);
  EXPECT_TRUE(bool(V)) << Out;
  if (!V) {
    llvm::consumeError(V.takeError());
    return F;
  }
  for (const json::Value &E : *V->getAsArray()) {
    const json::Object &O = *E.getAsObject();
    Finding X;
    X.Code = O.getString("code")->str();
    X.Line = static_cast<unsigned>(*O.getObject("location")->getInteger("row"));
    if (const json::Object *Ve = O.getObject("verdict")) {
      X.Verdict = Ve->getString("kind")->str();
      X.Evidence = Ve->getString("evidence")->str();
      X.HasCost = Ve->get("cost_ms_per_step") != nullptr;
    }
    F.push_back(X);
  }
  return F;
}

/// The finding at \p Line whose code is one of \p Codes (a rule, or its runtime-only twin
/// while the rule is not written yet).
const Finding *at(const std::vector<Finding> &F, unsigned Line, std::vector<std::string> Codes) {
  for (const auto &X : F)
    if (X.Line == Line && std::find(Codes.begin(), Codes.end(), X.Code) != Codes.end())
      return &X;
  return nullptr;
}

#define NEED_TORCH()                                                                                               \
  if (torchPython().empty())                                                                                       \
  GTEST_SKIP() << "no Python with torch (scripts/setup.sh installs Debian's python3-torch)"

} // namespace

TEST(Probe, NoDeviceExitsZeroAndSaysWhy) {
  RunResult T = run({"probe", "--no-bandwidth"});
  EXPECT_EQ(T.Exit, 0) << T.Err;
  RunResult J = run({"probe", "--json", "--no-bandwidth"});
  ASSERT_EQ(J.Exit, 0) << J.Err;
  auto V = json::parse(J.Out);
  ASSERT_TRUE(bool(V)) << J.Out;
  const json::Object &O = *V->getAsObject();
  // CUDA_VISIBLE_DEVICES is empty in run(): even a GPU machine shows no device here.
  EXPECT_EQ(O.getString("status")->str(), "no CUDA device visible");
  EXPECT_TRUE(O.getArray("devices")->empty());
  std::string Reason = O.getString("reason")->str();
  EXPECT_FALSE(Reason.empty());
  EXPECT_NE(T.Out.find("no CUDA device visible: " + Reason), std::string::npos) << T.Out;
  if (*O.getBoolean("built_with_cuda")) {
    EXPECT_EQ(Reason.rfind("cuda", 0), 0u) << "the runtime's error name comes first: " << Reason;
  }
  else
    EXPECT_NE(Reason.find("built without CUDA support"), std::string::npos);
}

TEST(Probe, RejectsUnknownOption) {
  EXPECT_EQ(run({"probe", "--bogus"}).Exit, 2);
}

TEST(Confirm, MismatchRaisesOnVirtualCuda) {
  NEED_TORCH();
  RunResult R = confirm({"--virtual-cuda", "1", "--format", "json"}, "mismatch.py");
  EXPECT_EQ(R.Exit, 1) << R.Err;
  auto F = parseJson(R.Out);
  const Finding *M = at(F, 11, {"TL102", "TLR102"});
  ASSERT_NE(M, nullptr) << R.Out;
  EXPECT_EQ(M->Verdict, M->Code == "TL102" ? "confirmed" : "runtime-only");
  EXPECT_NE(M->Evidence.find("Expected all tensors to be on the same device"), std::string::npos) << M->Evidence;
  EXPECT_NE(R.Err.find("stopped: exception"), std::string::npos) << R.Err;
}

TEST(Confirm, MismatchNotReproducedOnTheCpu) {
  NEED_TORCH();
  // Without --virtual-cuda (and no GPU) the script picks the CPU and runs clean: exit 0.
  RunResult R = confirm({"--format", "json"}, "mismatch.py");
  EXPECT_EQ(R.Exit, 0) << R.Err;
  auto F = parseJson(R.Out);
  for (const auto &X : F)
    EXPECT_NE(X.Verdict, "confirmed") << X.Code << " at " << X.Line;
  const Finding *M = at(F, 11, {"TL102"});
  if (M) {
    EXPECT_EQ(M->Verdict, "not-reproduced");
  }
  EXPECT_NE(R.Err.find("3 optimizer step(s), stopped: finished"), std::string::npos) << R.Err;
}

TEST(Confirm, TransfersInForwardCountedPerStep) {
  NEED_TORCH();
  RunResult R = confirm({"--virtual-cuda=1", "--max-steps", "3", "--format", "json"}, "to_in_forward.py");
  EXPECT_EQ(R.Exit, 1) << R.Err;
  auto F = parseJson(R.Out);
  const Finding *Moves = at(F, 15, {"TL201"});
  ASSERT_NE(Moves, nullptr) << R.Out;
  EXPECT_EQ(Moves->Verdict, "confirmed");
  EXPECT_NE(Moves->Evidence.find("3 transfer(s) inside forward (cpu -> cuda:0), 6144 bytes"), std::string::npos)
      << Moves->Evidence;
  EXPECT_NE(Moves->Evidence.find("1.0 per optimizer step"), std::string::npos) << Moves->Evidence;
  EXPECT_TRUE(Moves->HasCost);
  const Finding *Stays = at(F, 16, {"TL201"});
  ASSERT_NE(Stays, nullptr) << R.Out;
  EXPECT_EQ(Stays->Verdict, "not-reproduced");
  const Finding *Never = at(F, 26, {"TL201"});
  ASSERT_NE(Never, nullptr) << R.Out;
  EXPECT_EQ(Never->Verdict, "not-reached");
  EXPECT_NE(R.Err.find("3 optimizer step(s), stopped: max-steps"), std::string::npos) << R.Err;
}

TEST(Confirm, StaleOptimizerStateInSarif) {
  NEED_TORCH();
  RunResult R = confirm({"--virtual-cuda", "1", "--format", "sarif"}, "stale_optimizer.py");
  EXPECT_EQ(R.Exit, 1) << R.Err;
  auto V = json::parse(R.Out);
  ASSERT_TRUE(bool(V)) << R.Out;
  bool Found = false;
  for (const json::Value &Res : *V->getAsObject()->getArray("runs")->front().getAsObject()->getArray("results")) {
    const json::Object &O = *Res.getAsObject();
    std::string Rule = O.getString("ruleId")->str();
    if (Rule != "TL303" && Rule != "TLR303")
      continue;
    const json::Object *P = O.getObject("properties");
    ASSERT_NE(P, nullptr);
    EXPECT_EQ(P->getString("verdict")->str(), Rule == "TL303" ? "confirmed" : "runtime-only");
    EXPECT_NE(P->getString("verdictEvidence")->str().find("state tensor(s) (e.g. `exp_avg`) were on cpu while their "
                                                          "parameters were on cuda:0"),
              std::string::npos);
    Found = true;
  }
  EXPECT_TRUE(Found) << R.Out;
}

TEST(Confirm, FactoryInForwardInText) {
  NEED_TORCH();
  RunResult R = confirm({"--virtual-cuda", "1"}, "factory_in_forward.py");
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_TRUE(R.Out.find(":13:") != std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("verdict: "), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("`torch.ones` without device= made a tensor on cpu inside forward of a module on cuda:0"),
            std::string::npos)
      << R.Out;
}

TEST(Confirm, CheckpointSavedFromCudaLoadedWithoutMapLocation) {
  NEED_TORCH();
  std::string Dir = tempDir();
  ASSERT_EQ(confirm({"--virtual-cuda", "1"}, "save_checkpoint.py", {Dir + "/c0.pt", "cuda"}).Exit, 0);
  ASSERT_EQ(confirm({"--virtual-cuda", "2"}, "save_checkpoint.py", {Dir + "/c1.pt", "cuda:1"}).Exit, 0);

  // Loaded where the virtual device exists: the tensors land on it.
  RunResult Here = confirm({"--virtual-cuda", "1", "--format", "json"}, "load_checkpoint.py", {Dir + "/c0.pt"});
  EXPECT_EQ(Here.Exit, 1) << Here.Err;
  auto HereF = parseJson(Here.Out);
  const Finding *L = at(HereF, 8, {"TL301"});
  ASSERT_NE(L, nullptr) << Here.Out;
  EXPECT_EQ(L->Verdict, "confirmed");
  EXPECT_NE(L->Evidence.find("2 on cuda:0"), std::string::npos) << L->Evidence;

  // Saved from cuda:1, loaded with one device: PyTorch's error, from the virtual layer.
  RunResult Missing = confirm({"--virtual-cuda", "1", "--format", "json"}, "load_checkpoint.py", {Dir + "/c1.pt"});
  EXPECT_EQ(Missing.Exit, 1) << Missing.Err;
  auto MissingF = parseJson(Missing.Out);
  L = at(MissingF, 8, {"TL301"});
  ASSERT_NE(L, nullptr) << Missing.Out;
  EXPECT_EQ(L->Verdict, "confirmed");
  EXPECT_NE(L->Evidence.find("Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1"),
            std::string::npos)
      << L->Evidence;

  // No CUDA at all: real PyTorch refuses the file the virtual device wrote.
  RunResult Cpu = confirm({"--format", "json"}, "load_checkpoint.py", {Dir + "/c0.pt"});
  EXPECT_EQ(Cpu.Exit, 1) << Cpu.Err;
  auto CpuF = parseJson(Cpu.Out);
  L = at(CpuF, 8, {"TL301"});
  ASSERT_NE(L, nullptr) << Cpu.Out;
  EXPECT_EQ(L->Verdict, "confirmed");
  EXPECT_NE(L->Evidence.find("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                             "False"),
            std::string::npos)
      << L->Evidence;
}

TEST(Confirm, TimeoutStopsTheScript) {
  NEED_TORCH();
  auto Start = std::chrono::steady_clock::now();
  RunResult R = confirm({"--timeout", "2"}, "sleeper.py");
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_NE(R.Err.find("stopped: timeout"), std::string::npos) << R.Err;
  EXPECT_LT(Seconds, 40) << "the script sleeps 60 s";
}

TEST(Confirm, CannotRunExitsTwo) {
  NEED_TORCH();
  RunResult Broken = confirm({}, "broken.py");
  EXPECT_EQ(Broken.Exit, 2);
  EXPECT_NE(Broken.Err.find("SyntaxError"), std::string::npos) << Broken.Err;
  EXPECT_EQ(run({"confirm", "--", "/nonexistent/python3", Scripts + "mismatch.py"}).Exit, 2);
  EXPECT_EQ(run({"confirm", "--", torchPython(), Scripts + "no_such_script.py"}).Exit, 2);
  EXPECT_EQ(run({"confirm", "--", torchPython(), "-c", "print(1)"}).Exit, 2);
  EXPECT_EQ(run({"confirm", "--max-steps", "x", "--", torchPython(), Scripts + "mismatch.py"}).Exit, 2);
  EXPECT_EQ(run({"confirm"}).Exit, 2);
}

// The portable rewrite (the unsafe fix of TL105, TL106 and TL402): for each fixture of a
// CUDA-only script and its fixed golden in tests/golden/fixes/, the original fails on this
// CPU-only machine, the fixed file runs to the end on the CPU, and `torchlint confirm
// --virtual-cuda 1` runs it on a (virtual) GPU to the end with no mismatch.
namespace {

struct PortableCase {
  const char *Fixture;
  bool ProcessGroup; // run as a one-process job, as `torchrun` would start it
};

RunResult runPython(const std::string &Script, const std::vector<std::string> &Env) {
  std::string Dir = tempDir();
  std::string Out = Dir + "/stdout", Err = Dir + "/stderr";
  std::vector<llvm::StringRef> Argv = {torchPython(), Script};
  std::vector<std::string> All = Env;
  All.push_back("PATH=/usr/bin:/bin");
  All.push_back("CUDA_VISIBLE_DEVICES=");
  std::vector<llvm::StringRef> EnvRefs(All.begin(), All.end());
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef("/dev/null"), llvm::StringRef(Out),
                                                 llvm::StringRef(Err)};
  RunResult R;
  R.Exit = llvm::sys::ExecuteAndWait(torchPython(), Argv, llvm::ArrayRef<llvm::StringRef>(EnvRefs), Redirects, 300);
  R.Out = readFile(Out);
  R.Err = readFile(Err);
  return R;
}

class PortableFix : public ::testing::TestWithParam<PortableCase> {};

TEST_P(PortableFix, FixedScriptRunsOnTheCpuAndOnAVirtualGpu) {
  NEED_TORCH();
  const PortableCase &C = GetParam();
  const std::string Source = std::string(TORCHLINT_SOURCE_DIR);
  const std::string Original = Source + "/fixtures/" + C.Fixture;
  const std::string Fixed = Source + "/tests/golden/fixes/" + C.Fixture;
  ASSERT_NE(readFile(Original), readFile(Fixed)) << "the rewrite changed nothing";
  std::vector<std::string> Env;
  if (C.ProcessGroup) {
    Env = {"RANK=0", "WORLD_SIZE=1", "LOCAL_RANK=0", "MASTER_ADDR=127.0.0.1",
           "MASTER_PORT=" + std::to_string(29000 + ::getpid() % 2000)};
  }

  RunResult Before = runPython(Original, Env);
  EXPECT_NE(Before.Exit, 0) << "the original needs CUDA, which this test hides:\n" << Before.Err;
  // "Torch not compiled with CUDA enabled", or NCCL missing where the group starts first.
  EXPECT_TRUE(Before.Err.find("CUDA") != std::string::npos || Before.Err.find("NCCL") != std::string::npos)
      << Before.Err;

  RunResult Cpu = runPython(Fixed, Env);
  EXPECT_EQ(Cpu.Exit, 0) << Cpu.Err;

  std::vector<std::string> Args = {"confirm", "--virtual-cuda", "1", "--format", "json", "--", torchPython(), Fixed};
  RunResult Gpu = run(Args, Env);
  EXPECT_EQ(Gpu.Exit, 0) << Gpu.Err;
  EXPECT_NE(Gpu.Err.find("stopped: finished"), std::string::npos) << Gpu.Err;
  for (const Finding &F : parseJson(Gpu.Out)) {
    EXPECT_NE(F.Verdict, "confirmed") << F.Code << " at line " << F.Line << ": " << F.Evidence;
    EXPECT_NE(F.Verdict, "runtime-only") << F.Code << " at line " << F.Line << ": " << F.Evidence;
  }
}

std::string portableName(const ::testing::TestParamInfo<PortableCase> &I) {
  std::string N = llvm::sys::path::stem(I.param.Fixture).str();
  for (char &Ch : N)
    if (!std::isalnum(static_cast<unsigned char>(Ch)))
      Ch = '_';
  return N;
}

INSTANTIATE_TEST_SUITE_P(Goldens, PortableFix,
                         ::testing::Values(PortableCase{"placement/TL110_portable_training_script.py", false},
                                           PortableCase{"placement/TL110_portable_functions.py", false},
                                           PortableCase{"placement/TL110_portable_class_self_device.py", false},
                                           PortableCase{"placement/TL110_portable_legacy_tensors.py", false},
                                           PortableCase{"distributed/TL402_portable_ddp_worker.py", true}),
                         portableName);

} // namespace
