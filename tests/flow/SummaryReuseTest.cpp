// A module's summary taken from the flow its lint ran (DeviceFlow::summarizeAfterLint) must be
// the summary a flow of its own gives: these build both and compare them, and check that the
// lint's flow declines where its answers may differ (a recursion, a value from another module).
#include "flow/DeviceFlow.h"
#include "flow/Summary.h"
#include "semantic/Project.h"
#include "semantic/Walker.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace torchlint::flow {
namespace {

/// The project `pkg` with one other module, `pkg.data`, whose `make_batch` returns a tensor
/// on the CPU.
class DataModule : public ProjectView {
public:
  DataModule() {
    Data.Module = "pkg.data";
    Data.Display = "pkg/data.py";
    Export E;
    E.What = Export::Kind::Function;
    E.Line = 3;
    E.Result.Kind = ValueKind::Tensor;
    E.Result.Dev = DeviceKind::Cpu;
    Data.Names["make_batch"] = E;
  }
  std::string_view moduleName() const override { return "pkg.train"; }
  bool isPackage() const override { return false; }
  std::vector<std::pair<std::string, std::string>> starImports(std::string_view) const override { return {}; }
  const ModuleSummary *definition(std::string_view Qualified, std::string &Name) const override {
    if (Qualified != "pkg.data.make_batch")
      return nullptr;
    Name = "make_batch";
    return &Data;
  }

private:
  ModuleSummary Data;
};

/// A file as its lint sees it: parsed, walked, its flow built by the first rule that asks.
struct Linted {
  SourceFile File;
  TreePtr Tree;
  SemanticModel Model;
  std::unique_ptr<FileContext> Context;
  Linted(std::string Source, const ProjectView *Project)
      : File("pkg/train.py", std::move(Source)), Tree(parsePython(File.text())), Model(File.text()) {
    Model.setProject(Project);
    KindSet None;
    walkFile(ts_tree_root_node(Tree.get()), Model, None);
    Context = std::make_unique<FileContext>(File, Model, ts_tree_root_node(Tree.get()));
  }
  ModuleSummary summary(const std::set<std::string, std::less<>> *Only) const {
    return summarize(*Context, "pkg.train", "pkg/train.py", Only);
  }
};

/// The summary of \p Source from a flow of its own (no lint ran: nothing to reuse), and from
/// the flow of a lint; whether the lint's flow could give it.
struct Both {
  uint64_t Own = 0, AfterLint = 0;
  bool Reused = false;
  size_t Names = 0;
};

Both both(const std::string &Source, const ProjectView *Project,
          const std::set<std::string, std::less<>> *Only = nullptr) {
  Both B;
  Linted Fresh(Source, Project);
  ModuleSummary Own = Fresh.summary(Only);
  B.Own = summaryHash(Own);
  B.Names = Own.Names.size();
  Linted Lint(Source, Project);
  Lint.Context->get<DeviceFlow>(); // the rules asked
  ModuleSummary Probe = importTable(*Lint.Context, "pkg.train", "pkg/train.py", false);
  if (Only)
    Probe.Only = *Only;
  B.Reused = Lint.Context->built<DeviceFlow>()->summarizeAfterLint(Probe);
  Linted Again(Source, Project);
  Again.Context->get<DeviceFlow>();
  B.AfterLint = summaryHash(Again.summary(Only));
  return B;
}

TEST(SummaryAfterLint, TheLintsFlowGivesWhatAFlowOfItsOwnGives) {
  // Helpers called before and after they are defined, a module class, a device constant, a
  // function the lint's prefilter skips (it names no device) but a summary exports.
  Both B = both(R"(import torch
from torch import nn

DEVICE = torch.device("cuda:0")

def batch():
    return helper() + 1

def helper():
    return torch.zeros(3)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

def build():
    return Net()

def moved(x):
    return x.to(DEVICE)

x = batch().to(DEVICE)
)",
                nullptr);
  EXPECT_TRUE(B.Reused);
  EXPECT_GE(B.Names, 4u);
  EXPECT_EQ(B.Own, B.AfterLint);
}

TEST(SummaryAfterLint, ARecursionMakesTheLintsFlowDecline) {
  // Which of `a` and `b` is analysed first decides what the other returns: the lint starts at
  // `b` (`a` holds no word of the prefilter), and `a`, asked for while `b` is under way, returns
  // nothing known; a summary of `a` alone starts at `a`, and `a` returns what `b` builds.
  std::set<std::string, std::less<>> OnlyA{"a"};
  Both B = both(R"(import torch

def a(n):
    return b(n)

def b(n):
    a(n - 1)
    return torch.ones(3).cuda()
)",
                nullptr, &OnlyA);
  EXPECT_FALSE(B.Reused);
  EXPECT_EQ(B.Names, 1u);
  EXPECT_EQ(B.Own, B.AfterLint);
}

TEST(SummaryAfterLint, AValueFromAnotherModuleMakesTheLintsFlowDecline) {
  // The lint knows what `make_batch` returns; a summary depends on its own module alone.
  DataModule Project;
  Both B = both(R"(import torch
from pkg.data import make_batch

def batch():
    return make_batch()

x = batch().to("cuda")
)",
                &Project);
  EXPECT_FALSE(B.Reused);
  EXPECT_EQ(B.Own, B.AfterLint);
}

TEST(SummaryAfterLint, WhatThePrefilterLearntOfTheProjectIsNotTheSummarysToUse) {
  // The lint's prefilter asks whether `make_batch` is a function of the project (it is: `lib`
  // may call a source) and skips `lib` (`n` is no tensor); a summary reads no other module, so
  // that `make_batch` is the project's must not make it analyse `lib` (and export the device it
  // returns) where a summary of its own would not.
  DataModule Project;
  Both B = both(R"(import torch
from pkg.data import make_batch

GPU = torch.device("cuda")

def lib(n):
    make_batch()
    return GPU
)",
                &Project);
  EXPECT_TRUE(B.Reused);
  EXPECT_EQ(B.Own, B.AfterLint);
}

TEST(SummaryAfterLint, AModuleBodyTheLintSkippedMakesItsFlowDecline) {
  // No word of the prefilter anywhere: the lint analysed no module body (and so no globals).
  Both B = both(R"(import torch

def make():
    return torch.zeros(3)
)",
                nullptr);
  EXPECT_FALSE(B.Reused);
  EXPECT_EQ(B.Own, B.AfterLint);
}

} // namespace
} // namespace torchlint::flow
