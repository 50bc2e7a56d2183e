// Validates torchlint's SARIF with Microsoft's SARIF Multitool (the npm devDependency
// @microsoft/sarif-multitool): the CLI's output on fixtures/, and a log built by hand with
// notes, fixes, every severity, non-ASCII text and paths, and an unreadable file.
#include "TestUtil.h"

#include "driver/Driver.h"
#include "report/Report.h"

#include <gtest/gtest.h>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Program.h>

#include <map>
#include <iostream>
#include <regex>

namespace torchlint::test {
namespace {

namespace json = llvm::json;

const std::string Validator = std::string(TORCHLINT_SOURCE_DIR) + "/node_modules/.bin/sarif-multitool";

struct Finding {
  std::string File, RuleId, Level, Text;
};

std::string shellQuote(const std::string &S) {
  std::string Q = "'";
  for (char C : S)
    Q += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Q + "'";
}

// The message of a validator result: its rule's message string with the arguments filled in.
std::string messageText(const json::Object &Result, const json::Object *Rule) {
  const json::Object *M = Result.getObject("message");
  if (!M)
    return {};
  if (auto T = M->getString("text"))
    return T->str();
  std::string Text;
  if (Rule)
    if (const json::Object *Strings = Rule->getObject("messageStrings"))
      if (const json::Object *S = Strings->getObject(M->getString("id").getValueOr("default")))
        Text = S->getString("text").getValueOr("").str();
  if (const json::Array *Args = M->getArray("arguments"))
    for (size_t I = 0; I < Args->size(); ++I) {
      std::string Arg = (*Args)[I].getAsString().getValueOr("").str();
      std::string Slot = "{" + std::to_string(I) + "}";
      for (size_t P; (P = Text.find(Slot)) != std::string::npos;)
        Text.replace(P, Slot.size(), Arg);
      if (Text.empty())
        Text += Arg + " ";
    }
  return Text;
}

// Runs `sarif-multitool validate` over \p Files and reads what it found from its own SARIF
// log: its exit status is 0 whether or not a file has errors, and its console output is
// for people. Returns false with \p Problem set when the validator itself did not run.
bool validate(const std::vector<std::string> &Files, std::vector<Finding> &Out, std::string &Problem) {
  std::string Dir = tempDir();
  std::string Log = Dir + "/validation.sarif", Console = Dir + "/console.txt";
  // Invariant globalization: .NET then needs no ICU, and nothing here is culture-specific.
  std::string Cmd = "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 exec " + shellQuote(Validator) + " validate";
  for (auto &F : Files)
    Cmd += " " + shellQuote(F);
  Cmd += " -o " + shellQuote(Log) + " --log ForceOverwrite";
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), llvm::StringRef(Console),
                                                 llvm::StringRef(Console)};
  std::string Err;
  int Rc = llvm::sys::ExecuteAndWait("/bin/sh", {"/bin/sh", "-c", Cmd}, llvm::None, Redirects, 300, 0, &Err);
  if (Rc != 0 || !llvm::sys::fs::exists(Log)) {
    Problem = "the validator did not run (exit " + std::to_string(Rc) + (Err.empty() ? "" : ", " + Err) +
              "; scripts/setup.sh installs it and marks its binary executable); output:\n" + readFile(Console);
    return false;
  }
  auto V = json::parse(readFile(Log));
  if (!V) {
    Problem = "the validator's log is not JSON: " + llvm::toString(V.takeError());
    return false;
  }
  const json::Array *Runs = V->getAsObject() ? V->getAsObject()->getArray("runs") : nullptr;
  if (!Runs || Runs->empty()) {
    Problem = "the validator's log has no runs";
    return false;
  }
  for (const json::Value &RunV : *Runs) {
    const json::Object *Run = RunV.getAsObject();
    std::map<std::string, const json::Object *> Rules;
    if (const json::Object *Tool = Run->getObject("tool"))
      if (const json::Object *Driver = Tool->getObject("driver"))
        if (const json::Array *Rs = Driver->getArray("rules"))
          for (const json::Value &R : *Rs)
            if (auto Id = R.getAsObject()->getString("id"))
              Rules[Id->str()] = R.getAsObject();
    // A run whose invocation failed found nothing, whatever its results say.
    if (const json::Array *Invocations = Run->getArray("invocations"))
      for (const json::Value &I : *Invocations)
        if (I.getAsObject()->getBoolean("executionSuccessful") == false) {
          Problem = "the validator reports an unsuccessful run:\n" + readFile(Console);
          return false;
        }
    const json::Array *Results = Run->getArray("results");
    if (!Results)
      continue;
    for (const json::Value &RV : *Results) {
      const json::Object &R = *RV.getAsObject();
      Finding F;
      F.RuleId = R.getString("ruleId").getValueOr("").str();
      const json::Object *Rule = Rules.count(F.RuleId) ? Rules[F.RuleId] : nullptr;
      // SARIF §3.27.10: an absent level comes from the rule's default configuration, else "warning".
      F.Level = "warning";
      if (Rule)
        if (const json::Object *DC = Rule->getObject("defaultConfiguration"))
          F.Level = DC->getString("level").getValueOr(F.Level).str();
      F.Level = R.getString("level").getValueOr(F.Level).str();
      if (const json::Array *Locs = R.getArray("locations"))
        if (!Locs->empty())
          if (const json::Object *P = (*Locs)[0].getAsObject()->getObject("physicalLocation"))
            if (const json::Object *A = P->getObject("artifactLocation"))
              F.File = A->getString("uri").getValueOr("").str();
      F.Text = messageText(R, Rule);
      Out.push_back(std::move(F));
    }
  }
  return true;
}

bool sameFile(const std::string &Uri, const std::string &Path) {
  return Uri == Path || Uri == "file://" + Path;
}

std::string describe(const std::vector<Finding> &Fs, const std::string &Path, std::string_view Level) {
  std::string Out;
  for (auto &F : Fs)
    if (sameFile(F.File, Path) && F.Level == Level)
      Out += "  " + F.Level + " " + F.RuleId + ": " + F.Text + "\n";
  return Out;
}

// The validator leaves a log it cannot turn into its object model (an unknown enum value)
// without any result at all, so the values of the enumerations we write are checked here.
void checkEnums(const json::Value &V, const std::string &Where, std::string &Bad) {
  static const std::map<std::string, std::vector<std::string>> Enums = {
      {"level", {"none", "note", "warning", "error"}},
      {"columnKind", {"utf16CodeUnits", "unicodeCodePoints"}},
      {"kind", {"notApplicable", "pass", "fail", "review", "open", "informational"}},
  };
  if (const json::Object *O = V.getAsObject()) {
    for (const auto &KV : *O) {
      std::string Key = KV.first.str();
      if (auto It = Enums.find(Key); It != Enums.end()) {
        auto S = KV.second.getAsString();
        if (!S || std::find(It->second.begin(), It->second.end(), S->str()) == It->second.end())
          Bad += Where + "." + Key + " is not one of its enumeration's values\n";
      }
      checkEnums(KV.second, Where + "." + Key, Bad);
    }
  } else if (const json::Array *A = V.getAsArray()) {
    for (size_t I = 0; I < A->size(); ++I)
      checkEnums((*A)[I], Where + "[" + std::to_string(I) + "]", Bad);
  }
}

// A log with what fixtures/ may not have (yet): notes, multi-edit fixes, every severity,
// non-ASCII paths and text, an absolute path, CRLF, a range at the end of the file, and an
// unreadable file (a tool execution notification).
std::string handBuiltSarif() {
  auto Outcome = [](std::string Path, std::string Src, std::vector<Diagnostic> Ds) {
    FileOutcome O;
    O.Path = Path;
    O.Source = std::make_shared<SourceFile>(Path, Src);
    O.Diagnostics = std::move(Ds);
    return O;
  };
  auto At = [](const std::string &Src, const std::string &Needle) {
    size_t B = Src.find(Needle);
    return TextRange{static_cast<uint32_t>(B), static_cast<uint32_t>(B + Needle.size())};
  };
  std::string A = "import torch.nn as nn\r\nmodel = nn.Linear(2, 2)  # «modèle» 😀\r\n"
                  "wrapped = nn.DataParallel(model)\r\nwrapped = nn.DataParallel(model)\r\n";
  Diagnostic D1;
  D1.Code = "TL401";
  D1.Sev = Severity::Error;
  D1.Range = At(A, "nn.DataParallel");
  D1.Message = "`nn.DataParallel` with «quotes», 100% and a newline\nsecond line";
  D1.Notes = {{At(A, "model ="), "`model` created here"}, {At(A, "😀"), "an emoji"}};
  D1.Fix = Fix{"Use `DistributedDataParallel`", Applicability::Unsafe,
               {{{0, 0}, "from torch.nn.parallel import DistributedDataParallel as DDP\r\n"},
                {At(A, "nn.DataParallel"), "DDP"}}};
  Diagnostic D2 = D1;
  D2.Range.Begin = D2.Range.End = static_cast<uint32_t>(A.size()); // end of file
  D2.Sev = Severity::Info;
  D2.Notes.clear();
  D2.Fix = Fix{"Delete it", Applicability::DisplayOnly, {{At(A, "wrapped"), ""}}};
  Diagnostic D3;
  D3.Code = "TL999"; // not in the registry: no ruleIndex
  D3.Sev = Severity::Warning;
  D3.Range = At(A, "«modèle»");
  D3.Message = "a code torchlint does not know";

  std::string B = "x = 1  # noqa: TL999\n";
  FileOutcome Unreadable;
  Unreadable.Path = "missing dir/gone.py";
  Unreadable.Error = "cannot read: No such file or directory";

  const Registry &R = rules::registry();
  static const Linter L(R);
  LintSettings S;
  for (auto C : R.matching("ALL"))
    S.Enabled.emplace_back(C);
  std::sort(S.Enabled.begin(), S.Enabled.end());

  std::vector<FileOutcome> Files = {
      Outcome("src/ünï côde/a.py", A, {D1, D3, D2}),
      Outcome("/abs/path with space/b.py", B, {D3}),
      Outcome("./rel/../c.py", "x = 1\n", {}),
      lintSource("meta/syntax.py", "import torch.nn as nn\ndef f(:\nw = nn.DataParallel(m)  # noqa: TL7", L, S),
      Unreadable,
  };
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  ReportOptions O;
  O.Version = "0.1.0";
  writeSarif(OS, Files, R, O);
  OS.flush();
  return Out;
}

class SarifValidate : public ::testing::Test {
protected:
  void SetUp() override {
    if (!llvm::sys::fs::exists(Validator))
      GTEST_SKIP() << Validator << " is missing: run scripts/setup.sh (npm ci installs @microsoft/sarif-multitool)";
  }
};

// A copy of \p Log without its `$schema`, written beside it: the validator must warn about
// that (SARIF2008). It loads a log into its object model before its SARIF rules run, and a
// log it cannot load (say, an unknown enumeration value) gets no result at all and a
// successful run, so only a warning on a copy proves the rules really ran on this content.
std::string writeProbe(const std::string &Path) {
  auto V = json::parse(readFile(Path));
  if (!V || !V->getAsObject()) {
    ADD_FAILURE() << Path << " is not a JSON object";
    return {};
  }
  V->getAsObject()->erase("$schema");
  std::string Probe = Path + ".probe.sarif", Out;
  llvm::raw_string_ostream OS(Out);
  OS << llvm::formatv("{0:2}", *V);
  writeFile(Probe, OS.str());
  return Probe;
}

// Validates \p Path (and its probe) and fails on every error the validator reports; its
// warnings (SARIF's best-practice rules, SARIF2xxx) are shown but do not fail.
void expectValid(const std::string &Name, const std::string &Path, std::vector<std::string> Extra = {},
                 std::vector<Finding> *FoundOut = nullptr) {
  auto V = json::parse(readFile(Path));
  ASSERT_TRUE(bool(V)) << Name << ": " << llvm::toString(V.takeError());
  std::string BadEnums;
  checkEnums(*V, "$", BadEnums);
  EXPECT_EQ(BadEnums, "") << Name;

  std::string Probe = writeProbe(Path);
  std::vector<std::string> Files = {Path, Probe};
  Files.insert(Files.end(), Extra.begin(), Extra.end());
  std::vector<Finding> Found;
  std::string Problem;
  ASSERT_TRUE(validate(Files, Found, Problem)) << Problem;
  bool Analysed = std::any_of(Found.begin(), Found.end(),
                              [&](const Finding &F) { return sameFile(F.File, Probe) && F.RuleId == "SARIF2008"; });
  EXPECT_TRUE(Analysed) << "the validator did not analyse " << Name << " (no SARIF2008 on a copy without $schema); "
                        << "it skips logs it cannot load without reporting anything";
  EXPECT_EQ(describe(Found, Path, "error"), "") << Name << ":\n" << readFile(Path);
  if (std::string W = describe(Found, Path, "warning"); !W.empty())
    std::cout << "[   NOTE   ] validator warnings for " << Name << ":\n" << W;
  if (FoundOut)
    *FoundOut = std::move(Found);
}

TEST_F(SarifValidate, HandBuiltLogHasNoErrors) {
  std::string Dir = tempDir();
  std::string Hand = Dir + "/hand.sarif", Broken = Dir + "/broken.sarif";
  std::string Log = handBuiltSarif();
  writeFile(Hand, Log);
  // A copy with one region made invalid: the validator must flag it, or these tests prove
  // nothing.
  std::smatch M;
  ASSERT_TRUE(std::regex_search(Log, M, std::regex("\"startLine\": [0-9]+")));
  writeFile(Broken, Log.replace(M.position(0), M.length(0), "\"startLine\": 0"));

  std::vector<Finding> Found;
  expectValid("hand-built log", Hand, {Broken}, &Found);
  EXPECT_NE(describe(Found, Broken, "error"), "") << "the validator did not flag a startLine of 0";
}

TEST_F(SarifValidate, CliOutputOnFixturesHasNoErrors) {
  RunResult CLI = runTorchlint({"check", "--format", "sarif", "fixtures/"});
  ASSERT_EQ(CLI.Exit, 1) << CLI.Err; // the fixtures have findings
  ASSERT_NE(CLI.Out.find("\"ruleId\""), std::string::npos) << CLI.Out;
  std::string Path = tempDir() + "/fixtures.sarif";
  writeFile(Path, CLI.Out);
  expectValid("torchlint check --format sarif fixtures/", Path);
}

} // namespace
} // namespace torchlint::test
