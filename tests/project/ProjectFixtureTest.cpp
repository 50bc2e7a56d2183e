// The multi-file fixture projects of fixtures/projects/: each folder is a small project whose
// files import each other. Linted together (as `torchlint check DIR`), and each file also
// named alone (as pre-commit passes a few files), the findings must be exactly the
// `# expect: CODE` lines of every file; analysed with `--no-project`, none of the findings
// that need another file may appear (the fixtures test what the project adds).
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

namespace torchlint::test {
namespace {

const std::string ProjectsDir = std::string(TORCHLINT_SOURCE_DIR) + "/fixtures/projects";

std::vector<std::string> projectNames() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(ProjectsDir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::fs::is_directory(It->path()))
      Out.push_back(llvm::sys::path::filename(It->path()).str());
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<std::string> pythonFiles(const std::string &Dir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).endswith(".py"))
      Out.push_back(It->path().substr(Dir.size() + 1));
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// "file:line:code" for every `# expect:` of the project's files.
std::multiset<std::string> expected(const std::string &Dir) {
  std::multiset<std::string> Out;
  std::regex Expect("#\\s*expect:\\s*([A-Z0-9, ]+)");
  for (const std::string &Rel : pythonFiles(Dir)) {
    std::istringstream In(readFile(Dir + "/" + Rel));
    std::string Line;
    std::smatch M;
    for (int No = 1; std::getline(In, Line); ++No)
      if (std::regex_search(Line, M, Expect)) {
        std::stringstream SS(M[1]);
        for (std::string C; std::getline(SS, C, ',');) {
          C.erase(std::remove(C.begin(), C.end(), ' '), C.end());
          if (!C.empty())
            Out.insert(Rel + ":" + std::to_string(No) + ":" + C);
        }
      }
  }
  return Out;
}

/// "file:line:code" of a JSON report, file names relative to \p Dir.
std::multiset<std::string> found(const RunResult &R, const std::string &Dir) {
  std::multiset<std::string> Out;
  auto J = llvm::json::parse(R.Out);
  if (!J) {
    ADD_FAILURE() << "not JSON: " << llvm::toString(J.takeError()) << "\n" << R.Out << R.Err;
    return Out;
  }
  for (const llvm::json::Value &D : *J->getAsArray()) {
    const llvm::json::Object *O = D.getAsObject();
    std::string File = O->getString("filename")->str();
    if (llvm::StringRef(File).startswith(Dir + "/"))
      File = File.substr(Dir.size() + 1);
    Out.insert(File + ":" + std::to_string(*O->getObject("location")->getInteger("row")) + ":" +
               O->getString("code")->str());
  }
  return Out;
}

std::string show(const std::multiset<std::string> &S) {
  std::string Out;
  for (const std::string &X : S)
    Out += "  " + X + "\n";
  return Out.empty() ? "  (none)\n" : Out;
}

class ProjectFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ProjectFixture, FindingsAreTheExpectedOnes) {
  std::string Dir = ProjectsDir + "/" + GetParam();
  std::multiset<std::string> Want = expected(Dir);
  RunResult R = runTorchlint({"check", "--no-cache", "--select", "ALL", "--format", "json", "."}, Dir);
  EXPECT_EQ(R.Exit, Want.empty() ? 0 : 1) << R.Err;
  std::multiset<std::string> Got = found(R, ".");
  for (auto &G : std::multiset<std::string>(Got)) // `./a.py` -> `a.py`
    if (llvm::StringRef(G).startswith("./")) {
      Got.erase(Got.find(G));
      Got.insert(G.substr(2));
    }
  EXPECT_EQ(Got, Want) << "expected:\n" << show(Want) << "found:\n" << show(Got);
}

TEST_P(ProjectFixture, EachFileNamedAloneSeesItsImports) {
  // pre-commit passes only the changed files: the modules they import are still read.
  std::string Dir = ProjectsDir + "/" + GetParam();
  std::multiset<std::string> Want = expected(Dir);
  for (const std::string &Rel : pythonFiles(Dir)) {
    RunResult R = runTorchlint({"check", "--no-cache", "--select", "ALL", "--format", "json", Rel}, Dir);
    std::multiset<std::string> Mine;
    for (const std::string &W : Want)
      if (llvm::StringRef(W).startswith(Rel + ":"))
        Mine.insert(W);
    EXPECT_EQ(found(R, "."), Mine) << Rel;
  }
}

TEST_P(ProjectFixture, WithoutTheProjectTheCrossFileFindingsAreGone) {
  std::string Dir = ProjectsDir + "/" + GetParam();
  std::multiset<std::string> Want = expected(Dir);
  RunResult R = runTorchlint({"check", "--no-cache", "--no-project", "--select", "ALL", "--format", "json", "."}, Dir);
  std::multiset<std::string> Alone = found(R, ".");
  std::multiset<std::string> Extra;
  for (const std::string &A : Alone)
    if (!Want.count(llvm::StringRef(A).startswith("./") ? A.substr(2) : A))
      Extra.insert(A);
  EXPECT_TRUE(Extra.empty()) << "findings without the project that the project removes:\n" << show(Extra);
  if (GetParam() != "unresolved") {
    EXPECT_LT(Alone.size(), Want.size()) << "this project's findings need no other file: it tests nothing";
  }
}

INSTANTIATE_TEST_SUITE_P(Projects, ProjectFixture, ::testing::ValuesIn(projectNames()),
                         [](const auto &Info) { return Info.param; });

} // namespace
} // namespace torchlint::test

namespace torchlint::test {
namespace {

// A cached result depends on the modules the lint read: a change to data.py re-lints
// train.py (and only what imports it), an unchanged tree is served from the cache.
TEST(ProjectCache, AChangedModuleRelintsTheFilesThatImportIt) {
  std::string Dir = tempDir();
  writeFile(Dir + "/pyproject.toml", "[project]\nname = \"p\"\n");
  writeFile(Dir + "/data.py", "import torch\n\n\ndef batch(n):\n    return torch.randn(n, 4)\n");
  std::string Train = "import torch\nimport torch.nn as nn\nfrom data import batch\n\n"
                      "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
                      "model = nn.Linear(4, 2).to(device)\nout = model(batch(3))\n";
  writeFile(Dir + "/train.py", Train);
  writeFile(Dir + "/other.py", "import torch\n\nx = torch.zeros(2)\n");
  std::vector<std::string> Args = {"check", "--cache-dir", Dir + "/.cache", "--format", "concise", "."};
  RunResult First = runTorchlint(Args, Dir);
  EXPECT_EQ(First.Exit, 1) << First.Out << First.Err;
  EXPECT_NE(First.Out.find("train.py:7:7: TL102"), std::string::npos) << First.Out;
  RunResult Warm = runTorchlint(Args, Dir);
  EXPECT_EQ(Warm.Out, First.Out);
  // The helper now builds on the caller's device: the mismatch is gone from train.py,
  // whose own text did not change.
  writeFile(Dir + "/data.py", "import torch\n\n\ndef batch(n, device=None):\n    return torch.randn(n, 4, "
                              "device=device)\n");
  RunResult After = runTorchlint(Args, Dir);
  EXPECT_EQ(After.Exit, 0) << After.Out << After.Err;
  EXPECT_EQ(After.Out.find("TL102"), std::string::npos) << After.Out;
  // And back: the stored result of the first text is not reused for the second.
  writeFile(Dir + "/data.py", "import torch\n\n\ndef batch(n):\n    return torch.randn(n, 4)\n");
  RunResult Again = runTorchlint(Args, Dir);
  EXPECT_NE(Again.Out.find("train.py:7:7: TL102"), std::string::npos) << Again.Out;
}

// A module the lint looked for and did not find is part of what its cached result rests on:
// once data.py exists, train.py is linted again and sees what batch() returns.
TEST(ProjectCache, AModuleThatAppearsRelintsTheFilesThatLookedForIt) {
  std::string Dir = tempDir();
  writeFile(Dir + "/pyproject.toml", "[project]\nname = \"p\"\n");
  writeFile(Dir + "/train.py", "import torch\nimport torch.nn as nn\nfrom helpers.data import batch\n\n"
                               "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
                               "model = nn.Linear(4, 2).to(device)\nout = model(batch(3))\n");
  std::vector<std::string> Args = {"check", "--cache-dir", Dir + "/.cache", "--format", "concise", "train.py"};
  RunResult Before = runTorchlint(Args, Dir);
  EXPECT_EQ(Before.Exit, 0) << Before.Out << Before.Err;
  llvm::sys::fs::create_directories(Dir + "/helpers");
  writeFile(Dir + "/helpers/data.py", "import torch\n\n\ndef batch(n):\n    return torch.randn(n, 4)\n");
  RunResult After = runTorchlint(Args, Dir);
  EXPECT_NE(After.Out.find("train.py:7:7: TL102"), std::string::npos) << After.Out << After.Err;
}

TEST(ProjectCache, StandardInputNamedAfterAProjectFileReadsItsImports) {
  std::string Dir = ProjectsDir + "/cpu_batches";
  RunResult R = runTorchlint({"check", "--format", "concise", "--stdin-filename", "train.py"}, Dir,
                             readFile(Dir + "/train.py"));
  EXPECT_NE(R.Out.find("train.py:13:10: TL102"), std::string::npos) << R.Out << R.Err;
}

} // namespace
} // namespace torchlint::test

namespace torchlint::test {
namespace {

// A worker that calls a function of another module which calls `torch.cuda.set_device` has
// chosen its device: the summary says so, in every import form. Without the project the call
// is unknown and the placement after it is flagged.
TEST(ProjectSummaries, ASetDeviceInAnotherModuleChoosesTheDevice) {
  std::string Dir = tempDir();
  writeFile(Dir + "/pyproject.toml", "[project]\nname = \"p\"\n");
  writeFile(Dir + "/helpers.py", "import torch\n\n\ndef choose(rank):\n    torch.cuda.set_device(rank)\n");
  for (auto [Import, Call] : {std::pair{"from helpers import choose", "choose(rank)"},
                              std::pair{"import helpers", "helpers.choose(rank)"},
                              std::pair{"from helpers import *", "choose(rank)"}}) {
    writeFile(Dir + "/train.py", std::string("import torch\nimport torch.distributed as dist\nfrom torch import nn\n") +
                                     Import + "\n\n\ndef worker(rank, world_size):\n"
                                     "    dist.init_process_group(\"nccl\", rank=rank, world_size=world_size)\n    " +
                                     Call + "\n    return nn.Linear(8, 2).cuda()\n\n\n"
                                     "def other_worker(rank, world_size):\n"
                                     "    dist.init_process_group(\"nccl\", rank=rank, world_size=world_size)\n"
                                     "    return nn.Linear(8, 2).cuda()\n");
    RunResult R = runTorchlint({"check", "--no-cache", "--format", "concise", "."}, Dir);
    EXPECT_EQ(R.Out.find("train.py:10:"), std::string::npos) << Import << "\n" << R.Out << R.Err;
    EXPECT_NE(R.Out.find("train.py:15:28: TL402"), std::string::npos) << Import << "\n" << R.Out << R.Err;
    RunResult Alone = runTorchlint({"check", "--no-cache", "--no-project", "--format", "concise", "."}, Dir);
    EXPECT_NE(Alone.Out.find("train.py:10:28: TL402"), std::string::npos) << Import << "\n" << Alone.Out;
  }
}

// torchtune's `get_device()`: the device namespace picked at run time
// (`getattr(torch, kind).set_device(...)`), reached through another function of the module.
TEST(ProjectSummaries, ASetDeviceThroughAHelperOfTheSameModuleChoosesTheDevice) {
  std::string Dir = tempDir();
  writeFile(Dir + "/pyproject.toml", "[project]\nname = \"p\"\n");
  writeFile(Dir + "/devices.py", "import torch\n\n\ndef namespace(kind):\n    return getattr(torch, kind)\n\n\n"
                                 "def _setup(device):\n    namespace(device.type).set_device(device)\n    return device\n\n\n"
                                 "def get_device(name):\n    device = torch.device(name)\n"
                                 "    if device.type == \"cuda\":\n        device = _setup(device)\n    return device\n\n\n"
                                 "def describe(name):\n    return torch.device(name).type\n");
  for (auto [Call, Silenced] : {std::pair{"devices.get_device(name)", true}, std::pair{"devices.describe(name)", false}}) {
    writeFile(Dir + "/train.py", std::string("import torch\nimport torch.distributed as dist\nimport devices\n\n\n"
                                             "def worker(rank, name):\n"
                                             "    dist.init_process_group(\"nccl\", rank=rank, world_size=2)\n"
                                             "    device = ") + Call + "\n    return torch.zeros(3, device=\"cuda\")\n");
    RunResult R = runTorchlint({"check", "--no-cache", "--format", "concise", "."}, Dir);
    EXPECT_EQ(R.Out.find("train.py:9:") == std::string::npos, Silenced) << Call << "\n" << R.Out << R.Err;
  }
}

} // namespace
} // namespace torchlint::test
