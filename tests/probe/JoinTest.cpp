// Unit tests of the join of runtime events to static findings (runtime_probe/Join.cpp).
#include "Join.h"
#include "Rules.h"
#include "report/Report.h"

#include <gtest/gtest.h>

using namespace torchlint;
using namespace torchlint::probe;

namespace {

const char *Source = "import torch\n"        // 1
                     "x = load()\n"          // 2
                     "y = x.to(dev)\n"       // 3
                     "def never():\n"        // 4
                     "    return x.cuda()\n" // 5
                     "z = y + 1\n";          // 6

FileOutcome outcome() {
  FileOutcome F;
  F.Path = "train.py";
  F.Source = std::make_shared<SourceFile>("train.py", Source);
  auto Add = [&](const char *Code, uint32_t Line1) {
    Diagnostic D;
    D.Code = Code;
    D.Range = {F.Source->lineStart(Line1 - 1), F.Source->lineStart(Line1 - 1) + 3};
    F.Diagnostics.push_back(D);
  };
  Add("TL301", 2);
  Add("TL201", 3);
  Add("TL201", 5);
  return F;
}

RuntimeRun parse(const std::string &Json) {
  auto R = parseRuntimeRun(Json);
  EXPECT_TRUE(bool(R)) << (R ? "" : llvm::toString(R.takeError()));
  return R ? *R : RuntimeRun{};
}

} // namespace

TEST(Join, VerdictsByKindLineAndCoverage) {
  std::vector<FileOutcome> Files{outcome()};
  RuntimeRun Run = parse(R"({"version": 1, "started": true, "steps": 2,
    "coverage": {"/src/train.py": [1, 2, 3, 6]},
    "events": [
      {"kind": "load-device", "file": "/src/other.py", "line": 9, "related": [["/src/train.py", 2]],
       "evidence": "landed on cuda:0"},
      {"kind": "device-mismatch", "file": "/src/train.py", "line": 6, "related": [], "evidence": "mixed"}]})");
  joinRun(Files, {"/src/train.py"}, Run);
  const auto &D = Files[0].Diagnostics;
  ASSERT_EQ(D.size(), 4u);
  EXPECT_EQ(D[0].Code, "TL301");
  EXPECT_EQ(D[0].Verdict->Kind, VerdictKind::Confirmed); // through a related frame
  EXPECT_EQ(D[0].Verdict->Evidence, "landed on cuda:0");
  EXPECT_EQ(D[1].Verdict->Kind, VerdictKind::NotReproduced); // line 3 ran, no transfer
  EXPECT_EQ(D[2].Verdict->Kind, VerdictKind::NotReached);    // line 5 never ran
  // The mismatch no rule predicted is reported on its own, over the line's text.
  EXPECT_EQ(D[3].Code, "TLR102");
  EXPECT_EQ(D[3].Verdict->Kind, VerdictKind::RuntimeOnly);
  EXPECT_EQ(Files[0].Source->text().substr(D[3].Range.Begin, D[3].Range.End - D[3].Range.Begin), "z = y + 1");
}

TEST(Join, EventOfAnotherKindDoesNotConfirm) {
  std::vector<FileOutcome> Files{outcome()};
  RuntimeRun Run = parse(R"({"version": 1, "started": true,
    "coverage": {"/src/train.py": [2, 3]},
    "events": [{"kind": "transfer-in-forward", "file": "/src/train.py", "line": 2, "evidence": "3 copies",
                "cost_ms": 0.5}]})");
  joinRun(Files, {"/src/train.py"}, Run);
  const auto &D = Files[0].Diagnostics;
  EXPECT_EQ(D[0].Verdict->Kind, VerdictKind::NotReproduced); // TL301 is not confirmed by a transfer
  // The transfer at line 2 is not TL201's line (3): it becomes a runtime-only finding.
  ASSERT_EQ(D.size(), 4u);
  EXPECT_EQ(D[1].Code, "TLR201");
  ASSERT_TRUE(D[1].Verdict->CostMs);
  EXPECT_DOUBLE_EQ(*D[1].Verdict->CostMs, 0.5);
}

TEST(Join, RejectsWhatIsNotTracerOutput) {
  for (const char *Bad : {"", "[]", R"({"version": 2})", R"({"version": 1, "events": [{"kind": "x"}]})",
                          R"({"version": 1, "events": [3]})"}) {
    auto R = parseRuntimeRun(Bad);
    EXPECT_FALSE(bool(R)) << Bad;
    if (!R)
      llvm::consumeError(R.takeError());
  }
  EXPECT_TRUE(codesConfirmedBy("unknown-kind").empty());
  EXPECT_EQ(runtimeOnlyCode("optimizer-state-device"), "TLR303");
}

TEST(Join, EveryFormatCarriesTheVerdict) {
  std::vector<FileOutcome> Files{outcome()};
  RuntimeRun Run = parse(R"({"version": 1, "started": true, "coverage": {"/src/train.py": [2]},
    "events": [{"kind": "transfer-in-forward", "file": "/src/train.py", "line": 3, "evidence": "9 copies",
                "cost_ms": 1.5}]})");
  joinRun(Files, {"/src/train.py"}, Run);
  ReportOptions O;
  O.Version = "test";
  for (Format F : {Format::Text, Format::Concise, Format::Json, Format::Sarif, Format::Github, Format::Gitlab,
                   Format::Junit}) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    writeReport(F, OS, Files, rules::registry(), O);
    OS.flush();
    EXPECT_NE(Out.find("not-reached"), std::string::npos) << static_cast<int>(F) << "\n" << Out;
    if (F != Format::Concise) { // concise shows the verdict only
      EXPECT_NE(Out.find("9 copies"), std::string::npos) << static_cast<int>(F) << "\n" << Out;
    }
    if (F == Format::Sarif) {
      EXPECT_NE(Out.find("\"verdict\": \"confirmed\""), std::string::npos) << Out;
      EXPECT_NE(Out.find("\"costMsPerStep\": 1.5"), std::string::npos) << Out;
    }
    if (F == Format::Json) {
      EXPECT_NE(Out.find("\"cost_ms_per_step\": 1.5"), std::string::npos) << Out;
    }
  }
}

namespace {

// A module whose tensor attribute did not follow `model.to()` (TL103 at the store, line 5), the
// mismatch it causes in forward (line 8), and a TL101 and a TL701 finding.
const char *ModuleSource = "import torch\n"                           // 1
                           "class Net(torch.nn.Module):\n"            // 2
                           "    def __init__(self):\n"                // 3
                           "        super().__init__()\n"             // 4
                           "        self.table = torch.ones(4)\n"     // 5
                           "        self.scale = torch.ones(4)\n"     // 6
                           "    def forward(self, x):\n"              // 7
                           "        return x * self.table\n"          // 8
                           "x = torch.ones(4)\n"                      // 9
                           "x.to('cuda')\n"                           // 10
                           "scaler = torch.cuda.amp.GradScaler()\n"   // 11
                           "def unused():\n"                          // 12
                           "    x.to('cuda')\n";                      // 13

FileOutcome moduleOutcome(std::vector<std::pair<const char *, uint32_t>> Findings) {
  FileOutcome F;
  F.Path = "net.py";
  F.Source = std::make_shared<SourceFile>("net.py", ModuleSource);
  for (auto [Code, Line1] : Findings) {
    Diagnostic D;
    D.Code = Code;
    uint32_t B = F.Source->lineStart(Line1 - 1);
    D.Range = {B, B + 4};
    F.Diagnostics.push_back(D);
  }
  return F;
}

const Diagnostic *find(const std::vector<Diagnostic> &Ds, std::string_view Code, uint32_t Line1,
                       const SourceFile &S) {
  for (const auto &D : Ds)
    if (D.Code == Code && S.lineOf(D.Range.Begin) + 1 == Line1)
      return &D;
  return nullptr;
}

} // namespace

// A rule no run can show gets `not-checkable` with why, whether or not its lines ran, and never
// `not-reproduced` (which would tell the user that nothing went wrong). A runtime event at its
// line that is evidence for another rule does not confirm it: it is reported on its own.
TEST(Join, NotCheckableSaysWhyAndWhetherItsLinesRan) {
  std::vector<FileOutcome> Files{moduleOutcome({{"TL101", 10}, {"TL701", 11}, {"TL101", 13}, {"TL001", 1}})};
  RuntimeRun Run = parse(R"({"version": 1, "started": true,
    "coverage": {"/src/net.py": [1, 9, 10, 11]},
    "events": [{"kind": "device-mismatch", "file": "/src/net.py", "line": 10, "evidence": "mixed at 10"}]})");
  joinRun(Files, {"/src/net.py"}, Run);
  const auto &D = Files[0].Diagnostics;
  const SourceFile &S = *Files[0].Source;
  ASSERT_EQ(D.size(), 5u);
  const Diagnostic *Ran = find(D, "TL101", 10, S), *Dead = find(D, "TL101", 13, S);
  const Diagnostic *Deprecated = find(D, "TL701", 11, S), *Source = find(D, "TL001", 1, S);
  ASSERT_TRUE(Ran && Dead && Deprecated && Source);
  for (const Diagnostic *X : {Ran, Dead, Deprecated, Source})
    EXPECT_EQ(X->Verdict->Kind, VerdictKind::NotCheckable) << X->Code << ": " << X->Verdict->Evidence;
  EXPECT_EQ(Ran->Verdict->Evidence, std::string(whyNotCheckable("TL101")) + " (its lines ran)");
  EXPECT_EQ(Dead->Verdict->Evidence, std::string(whyNotCheckable("TL101")) + " (its lines never ran)");
  EXPECT_NE(Deprecated->Verdict->Evidence.find("deprecation"), std::string::npos) << Deprecated->Verdict->Evidence;
  EXPECT_NE(Source->Verdict->Evidence.find("about the source"), std::string::npos) << Source->Verdict->Evidence;
  EXPECT_FALSE(Ran->Verdict->CostMs);
  // The mismatch at TL101's line is evidence for TL102/TL103/TL104, not TL101.
  const Diagnostic *Only = find(D, "TLR102", 10, S);
  ASSERT_TRUE(Only);
  EXPECT_EQ(Only->Verdict->Kind, VerdictKind::RuntimeOnly);
  EXPECT_EQ(Only->Verdict->Evidence, "mixed at 10");

  // Which codes are checkable: any that some event kind is evidence for.
  for (std::string_view Code : {"TL102", "TL103", "TL104", "TL106", "TL108", "TL201", "TL301", "TL303", "TL601"})
    EXPECT_EQ(whyNotCheckable(Code), "") << Code;
  for (std::string_view Code : {"TL101", "TL105", "TL402", "TL701", "TL001", "TL999"})
    EXPECT_NE(whyNotCheckable(Code), "") << Code;
  EXPECT_EQ(whyNotCheckable("TL999"), "no runtime event is evidence for this rule");
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  ReportOptions O;
  O.Version = "test";
  writeReport(Format::Json, OS, Files, rules::registry(), O);
  OS.flush();
  EXPECT_NE(Out.find("\"kind\": \"not-checkable\""), std::string::npos) << Out;
}

// A mixed-device op is joined to where its tensors came from (the line that created or stored
// them, recorded as the event's origins) as well as to the op's own line and its callers.
TEST(Join, ConfirmsByOriginOfTheTensors) {
  std::vector<FileOutcome> Files{moduleOutcome({{"TL103", 5}, {"TL103", 6}, {"TL102", 8}})};
  RuntimeRun Run = parse(R"({"version": 1, "started": true,
    "coverage": {"/src/net.py": [1, 2, 3, 4, 5, 6, 7, 8]},
    "events": [{"kind": "device-mismatch", "file": "/src/net.py", "line": 8, "related": [["/src/train.py", 30]],
                "origins": [["/src/net.py", 5], ["/src/other.py", 6]],
                "evidence": "RuntimeError: Expected all tensors to be on the same device"}]})");
  ASSERT_EQ(Run.Events.size(), 1u);
  ASSERT_EQ(Run.Events[0].Origins.size(), 2u);
  EXPECT_EQ(Run.Events[0].Origins[0], (std::pair<std::string, uint32_t>{"/src/net.py", 5}));
  joinRun(Files, {"/src/net.py"}, Run);
  const auto &D = Files[0].Diagnostics;
  const SourceFile &S = *Files[0].Source;
  ASSERT_EQ(D.size(), 3u); // the event was used: no runtime-only finding
  const Diagnostic *Stored = find(D, "TL103", 5, S), *Other = find(D, "TL103", 6, S), *Op = find(D, "TL102", 8, S);
  ASSERT_TRUE(Stored && Other && Op);
  EXPECT_EQ(Stored->Verdict->Kind, VerdictKind::Confirmed); // by the origin, not by a line of its own
  EXPECT_EQ(Stored->Verdict->Evidence, "RuntimeError: Expected all tensors to be on the same device");
  EXPECT_EQ(Op->Verdict->Kind, VerdictKind::Confirmed); // by the op's line
  // Line 6 of another file is an origin, not this file's line 6: it ran and nothing happened.
  EXPECT_EQ(Other->Verdict->Kind, VerdictKind::NotReproduced);

  // An origin confirms only the kinds the event is evidence for: a transfer's origin is no TL103.
  std::vector<FileOutcome> Again{moduleOutcome({{"TL103", 5}})};
  RuntimeRun Transfer = parse(R"({"version": 1, "started": true, "coverage": {"/src/net.py": [5, 8]},
    "events": [{"kind": "transfer-in-forward", "file": "/src/net.py", "line": 8, "origins": [["/src/net.py", 5]],
                "evidence": "1 transfer"}]})");
  joinRun(Again, {"/src/net.py"}, Transfer);
  const Diagnostic *T = find(Again[0].Diagnostics, "TL103", 5, *Again[0].Source);
  ASSERT_TRUE(T);
  EXPECT_EQ(T->Verdict->Kind, VerdictKind::NotReproduced);
  EXPECT_TRUE(find(Again[0].Diagnostics, "TLR201", 8, *Again[0].Source));
}

// What child processes recorded (DataLoader workers, torch.multiprocessing.spawn ranks) is merged
// into the script's run: their lines count as run, their events confirm, their optimizer steps
// are counted, and the evidence says where it was seen.
TEST(Join, MergesChildProcesses) {
  RuntimeRun Run = parse(R"({"version": 1, "started": true, "stopped": "finished", "steps": 0,
    "coverage": {"/src/train.py": [1, 6]}, "events": []})");
  RuntimeRun Rank0 = parse(R"({"version": 1, "child": "rank", "started": true, "stopped": "max-steps", "steps": 7,
    "max_steps_reached": true, "coverage": {"/src/train.py": [2, 3]},
    "events": [{"kind": "load-device", "file": "/src/train.py", "line": 2, "evidence": "8 on cuda:0"}]})");
  RuntimeRun Rank1 = parse(R"({"version": 1, "child": "rank", "started": true, "steps": 5,
    "tracer_stop": {"what": "`aten::foo`, which has no CPU kernel", "file": "/src/train.py", "line": 3,
                    "message": "no kernel"},
    "coverage": {"/src/train.py": [2, 3]}, "events": []})");
  RuntimeRun Worker = parse(R"({"version": 1, "child": "worker", "started": true, "steps": 0,
    "coverage": {"/src/data.py": [4]}, "events": []})");
  EXPECT_EQ(Rank0.Role, "rank");
  EXPECT_EQ(Run.Role, "");
  mergeChild(Run, std::move(Rank0));
  mergeChild(Run, std::move(Rank1));
  mergeChild(Run, std::move(Worker));
  EXPECT_EQ(Run.Children, 3u);
  EXPECT_EQ(Run.ChildRoles["rank"], 2u);
  EXPECT_EQ(Run.ChildRoles["worker"], 1u);
  EXPECT_EQ(Run.Steps, 12u);
  EXPECT_EQ(Run.ChildSteps, 12u);
  EXPECT_EQ(Run.ChildStops["max-steps"], 1u);
  EXPECT_TRUE(Run.MaxStepsReached);
  ASSERT_TRUE(Run.Stop); // a rank the virtual device stopped stops the run as the tracer's, not the script's
  EXPECT_EQ(Run.Stop->Line, 3u);
  EXPECT_EQ(Run.Coverage["/src/train.py"], (std::set<uint32_t>{1, 2, 3, 6}));
  EXPECT_EQ(Run.Coverage["/src/data.py"], (std::set<uint32_t>{4}));
  ASSERT_EQ(Run.Events.size(), 1u);
  EXPECT_EQ(Run.Events[0].Evidence, "8 on cuda:0 (in a torch.multiprocessing.spawn rank)");

  // The finding only a rank ran is confirmed by the rank's event; a line only a rank ran is not
  // "not-reached".
  std::vector<FileOutcome> Files{outcome()};
  joinRun(Files, {"/src/train.py"}, Run);
  const auto &D = Files[0].Diagnostics;
  ASSERT_EQ(D.size(), 3u);
  EXPECT_EQ(D[0].Verdict->Kind, VerdictKind::Confirmed); // TL301 at 2, in a rank
  EXPECT_EQ(D[1].Verdict->Kind, VerdictKind::NotReproduced); // TL201 at 3: a rank ran it
  EXPECT_EQ(D[2].Verdict->Kind, VerdictKind::NotReached);    // TL201 at 5: nobody did
}
