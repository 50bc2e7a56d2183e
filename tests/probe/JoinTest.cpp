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
