// The output formats on known inputs: JSON in Ruff's shape, GitHub workflow commands and
// their escaping, concise one-liners, code-point columns, and text code frames with notes.
#include "TestUtil.h"

#include "driver/Driver.h"
#include "report/Report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <llvm/Support/JSON.h>

#include <regex>
#include <sstream>

namespace torchlint::test {
namespace {

namespace json = llvm::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// `é` is 2 bytes and 1 UTF-16 unit, `😀` 4 bytes and 2 units: 14 code points precede
// `nn`, 16 UTF-16 units and 19 bytes, so column 15 can only be a code-point column.
const std::string NonAscii = "import torch.nn as nn\n"
                             "x = \"é😀\"; w = nn.DataParallel(m)  # noqa: TL999\n";

FileOutcome lintOne(const std::string &Path, const std::string &Source, std::vector<std::string> Select) {
  const Registry &R = rules::registry();
  static const Linter L(R);
  LintSettings S;
  for (auto &Sel : Select)
    for (auto C : R.matching(Sel))
      S.Enabled.emplace_back(C);
  std::sort(S.Enabled.begin(), S.Enabled.end());
  return lintSource(Path, Source, L, S);
}

// An outcome built by hand, for what no rule produces yet (notes, every severity).
FileOutcome outcome(const std::string &Path, const std::string &Source, std::vector<Diagnostic> Diags) {
  FileOutcome O;
  O.Path = Path;
  O.Source = std::make_shared<SourceFile>(Path, Source);
  O.Diagnostics = std::move(Diags);
  return O;
}

TextRange rangeOf(const std::string &Source, const std::string &Needle, size_t From = 0) {
  size_t B = Source.find(Needle, From);
  EXPECT_NE(B, std::string::npos) << Needle;
  return {static_cast<uint32_t>(B), static_cast<uint32_t>(B + Needle.size())};
}

Diagnostic diag(std::string Code, Severity Sev, TextRange R, std::string Message) {
  Diagnostic D;
  D.Code = std::move(Code);
  D.Sev = Sev;
  D.Range = R;
  D.Message = std::move(Message);
  return D;
}

std::string render(Format F, const std::vector<FileOutcome> &Files, ReportOptions O = {}) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeReport(F, OS, Files, rules::registry(), O);
  OS.flush();
  return S;
}

std::vector<std::string> lines(const std::string &S) {
  std::vector<std::string> Out;
  std::istringstream In(S);
  for (std::string L; std::getline(In, L);)
    Out.push_back(L);
  return Out;
}

json::Value parseJson(const std::string &S) {
  auto V = json::parse(S);
  if (!V) {
    ADD_FAILURE() << "not JSON: " << llvm::toString(V.takeError()) << "\n" << S;
    return nullptr;
  }
  return std::move(*V);
}

// {"row": R, "column": C} as a pair.
std::pair<int64_t, int64_t> rowCol(const json::Object &O, llvm::StringRef Key) {
  const json::Object *L = O.getObject(Key);
  if (!L) {
    ADD_FAILURE() << "no " << Key.str();
    return {-1, -1};
  }
  EXPECT_EQ(L->size(), 2u) << Key.str();
  return {L->getInteger("row").getValueOr(-1), L->getInteger("column").getValueOr(-1)};
}

using RC = std::pair<int64_t, int64_t>;

int64_t intOf(const json::Object &O, llvm::StringRef Key) { return O.getInteger(Key).getValueOr(-1); }

TEST(ReportJson, HasRuffsShape) {
  auto Out = render(Format::Json, {lintOne("pkg/a.py", NonAscii, {"TL401", "TL002"})});
  json::Value V = parseJson(Out);
  const json::Array *A = V.getAsArray();
  ASSERT_TRUE(A) << Out;
  ASSERT_EQ(A->size(), 2u) << Out;

  // Every object has Ruff's fields (and torchlint's severity and notes), nothing else.
  for (const json::Value &E : *A) {
    const json::Object *O = E.getAsObject();
    ASSERT_TRUE(O);
    std::vector<std::string> Keys;
    for (const auto &KV : *O)
      Keys.push_back(KV.first.str());
    std::sort(Keys.begin(), Keys.end());
    EXPECT_THAT(Keys, ElementsAre("cell", "code", "end_location", "filename", "fix", "location", "message",
                                  "noqa_row", "notes", "severity", "url"));
    EXPECT_EQ(*O->get("cell"), json::Value(nullptr)) << "Ruff's `cell`: null outside a notebook";
    EXPECT_EQ(O->getString("filename"), llvm::StringRef("pkg/a.py"));
    EXPECT_EQ(intOf(*O, "noqa_row"), 2);
    ASSERT_TRUE(O->getArray("notes"));
    EXPECT_TRUE(O->getArray("notes")->empty());
  }

  // Sorted by position: the DataParallel call, then the unknown code in the noqa comment.
  const json::Object &Dp = *(*A)[0].getAsObject();
  EXPECT_EQ(Dp.getString("code"), llvm::StringRef("TL401"));
  EXPECT_THAT(Dp.getString("message")->str(), HasSubstr("`nn.DataParallel`"));
  EXPECT_EQ(rowCol(Dp, "location"), RC(2, 15));
  EXPECT_EQ(rowCol(Dp, "end_location"), RC(2, 30));
  EXPECT_EQ(Dp.getString("url"), llvm::StringRef("https://torchlint.dev/rules/TL401"));
  EXPECT_EQ(Dp.getString("severity"), llvm::StringRef("warning"));
  ASSERT_TRUE(Dp.get("fix"));
  EXPECT_EQ(Dp.get("fix")->kind(), json::Value::Null);

  const json::Object &Unknown = *(*A)[1].getAsObject();
  EXPECT_EQ(Unknown.getString("code"), llvm::StringRef("TL002"));
  EXPECT_EQ(Unknown.getString("message"), llvm::StringRef("unknown rule code `TL999` in suppression"));
  EXPECT_EQ(rowCol(Unknown, "location"), RC(2, 43));
  EXPECT_EQ(rowCol(Unknown, "end_location"), RC(2, 48));
  const json::Object *Fix = Unknown.getObject("fix");
  ASSERT_TRUE(Fix);
  EXPECT_EQ(Fix->getString("applicability"), llvm::StringRef("safe"));
  EXPECT_EQ(Fix->getString("message"), llvm::StringRef("Remove `TL999` from the suppression"));
  const json::Array *Edits = Fix->getArray("edits");
  ASSERT_TRUE(Edits);
  ASSERT_EQ(Edits->size(), 1u);
  const json::Object &E = *(*Edits)[0].getAsObject();
  EXPECT_EQ(E.getString("content"), llvm::StringRef(""));
  // The whole comment goes, with the spaces before it.
  EXPECT_EQ(rowCol(E, "location"), RC(2, 33));
  EXPECT_EQ(rowCol(E, "end_location"), RC(2, 48));
}

TEST(ReportJson, NotesEditsAndSeverities) {
  std::string Src = "model = nn.Linear(2, 2)\nwrapped = nn.DataParallel(model)\n";
  Diagnostic D = diag("TL401", Severity::Error, rangeOf(Src, "nn.DataParallel"), "use DDP");
  D.Notes.push_back({rangeOf(Src, "model"), "`model` created here"});
  D.Notes.push_back({rangeOf(Src, "model", 30), "passed here"});
  D.Fix = Fix{"Use `DistributedDataParallel`", Applicability::Unsafe,
              {{rangeOf(Src, "nn.DataParallel"), "DDP"}, {{0, 0}, "from torch.nn.parallel import DistributedDataParallel as DDP\n"}}};
  Diagnostic Info = diag("TL002", Severity::Info, rangeOf(Src, "wrapped"), "info");
  json::Value V = parseJson(render(Format::Json, {outcome("b.py", Src, {D, Info})}));
  const json::Array *A = V.getAsArray();
  ASSERT_TRUE(A);
  ASSERT_EQ(A->size(), 2u);
  const json::Object &O = *(*A)[0].getAsObject();
  EXPECT_EQ(O.getString("severity"), llvm::StringRef("error"));
  EXPECT_EQ((*A)[1].getAsObject()->getString("severity"), llvm::StringRef("info"));
  const json::Array *Notes = O.getArray("notes");
  ASSERT_TRUE(Notes);
  ASSERT_EQ(Notes->size(), 2u);
  const json::Object &N0 = *(*Notes)[0].getAsObject(), &N1 = *(*Notes)[1].getAsObject();
  EXPECT_EQ(N0.getString("message"), llvm::StringRef("`model` created here"));
  EXPECT_EQ(rowCol(N0, "location"), RC(1, 1));
  EXPECT_EQ(rowCol(N0, "end_location"), RC(1, 6));
  EXPECT_EQ(rowCol(N1, "location"), RC(2, 27));
  const json::Object *Fix = O.getObject("fix");
  ASSERT_TRUE(Fix);
  EXPECT_EQ(Fix->getString("applicability"), llvm::StringRef("unsafe"));
  const json::Array *Edits = Fix->getArray("edits");
  ASSERT_TRUE(Edits);
  ASSERT_EQ(Edits->size(), 2u);
  EXPECT_EQ((*Edits)[0].getAsObject()->getString("content"), llvm::StringRef("DDP"));
  EXPECT_EQ(rowCol(*(*Edits)[1].getAsObject(), "location"), RC(1, 1));
  EXPECT_EQ(rowCol(*(*Edits)[1].getAsObject(), "end_location"), RC(1, 1));
}

TEST(ReportJson, EmptyAndUnreadableGiveAnEmptyList) {
  FileOutcome Unreadable;
  Unreadable.Path = "gone.py";
  Unreadable.Error = "cannot read: No such file or directory";
  EXPECT_EQ(render(Format::Json, {}), "[]\n");
  EXPECT_EQ(render(Format::Json, {Unreadable, outcome("ok.py", "x = 1\n", {})}), "[]\n");
}

TEST(ReportGithub, WorkflowCommandsWithEscaping) {
  std::string Src = "a = 1\nb = 2\n";
  std::string Path = "dir/a,b:c%.py";
  std::vector<Diagnostic> Ds = {
      diag("TL401", Severity::Error, rangeOf(Src, "a = 1"), "100% sure\r\nsecond: line, here"),
      diag("TL002", Severity::Warning, rangeOf(Src, "b"), "warn"),
      diag("TL003", Severity::Info, {6, 11}, "info"),
  };
  FileOutcome Unreadable;
  Unreadable.Path = "x,y.py";
  Unreadable.Error = "cannot read: 50% gone";
  auto L = lines(render(Format::Github, {outcome(Path, Src, Ds), Unreadable}));
  EXPECT_THAT(L, ElementsAre("::error title=torchlint (TL401),file=dir/a%2Cb%3Ac%25.py,line=1,col=1,endLine=1,"
                             "endColumn=6::dir/a,b:c%25.py:1:1: TL401 100%25 sure%0D%0Asecond: line, here",
                             "::warning title=torchlint (TL002),file=dir/a%2Cb%3Ac%25.py,line=2,col=1,endLine=2,"
                             "endColumn=2::dir/a,b:c%25.py:2:1: TL002 warn",
                             "::notice title=torchlint (TL003),file=dir/a%2Cb%3Ac%25.py,line=2,col=1,endLine=2,"
                             "endColumn=6::dir/a,b:c%25.py:2:1: TL003 info",
                             "::error file=x%2Cy.py,title=torchlint::cannot read: 50%25 gone"));
}

TEST(ReportGithub, FileNamesThatAreNotUtf8AreWrittenWithReplacementCharacters) {
  std::string Src = "a = 1\n";
  FileOutcome Unreadable;
  Unreadable.Path = "x\xff.py";
  Unreadable.Error = "cannot read: \xc3";
  std::string Out = render(Format::Github,
                           {outcome("dir/caf\xe9.py", Src, {diag("TL401", Severity::Error, rangeOf(Src, "a"), "m")}),
                            Unreadable});
  EXPECT_TRUE(json::isUTF8(Out)) << Out;
  EXPECT_THAT(lines(Out), ElementsAre("::error title=torchlint (TL401),file=dir/caf\xef\xbf\xbd.py,line=1,col=1,"
                                      "endLine=1,endColumn=2::dir/caf\xef\xbf\xbd.py:1:1: TL401 m",
                                      "::error file=x\xef\xbf\xbd.py,title=torchlint::cannot read: \xef\xbf\xbd"));
}

TEST(ReportGithub, RealFindings) {
  auto L = lines(render(Format::Github, {lintOne("a.py", NonAscii, {"TL401", "TL002"})}));
  ASSERT_EQ(L.size(), 2u);
  EXPECT_THAT(L[0], ::testing::StartsWith("::warning title=torchlint (TL401),file=a.py,line=2,col=15,endLine=2,"
                                          "endColumn=30::a.py:2:15: TL401 `nn.DataParallel` "));
  EXPECT_EQ(L[1], "::warning title=torchlint (TL002),file=a.py,line=2,col=43,endLine=2,endColumn=48::a.py:2:43: "
                  "TL002 unknown rule code `TL999` in suppression");
}

TEST(ReportConcise, OneLinePerFinding) {
  std::string Src = "import torch.nn as nn\n"
                    "a = nn.DataParallel(m)\n"
                    "b = nn.DataParallel(m)  # noqa: TL999\n"
                    "c = 1  # torchlint: disable=TL0\n";
  auto L = lines(render(Format::Concise, {lintOne("p/c.py", Src, {"TL401", "TL002"})}));
  ASSERT_EQ(L.size(), 5u) << ::testing::PrintToString(L);
  std::regex Line(R"(p/c\.py:[0-9]+:[0-9]+: TL[0-9]{3} (\[\*\] )?[^ ].*)");
  for (size_t I = 0; I < 4; ++I)
    EXPECT_TRUE(std::regex_match(L[I], Line)) << L[I];
  EXPECT_THAT(L[0], ::testing::StartsWith("p/c.py:2:5: TL401 `nn.DataParallel`"));
  EXPECT_THAT(L[1], ::testing::StartsWith("p/c.py:3:5: TL401 "));
  EXPECT_EQ(L[2], "p/c.py:3:33: TL002 [*] unknown rule code `TL999` in suppression");
  EXPECT_EQ(L[3], "p/c.py:4:29: TL002 [*] unknown rule code `TL0` in suppression");
  EXPECT_EQ(L[4], "Found 4 errors.");
  EXPECT_EQ(render(Format::Concise, {outcome("ok.py", "x = 1\n", {})}), "");
}

TEST(ReportColumns, CodePointsOnNonAsciiLines) {
  FileOutcome O = lintOne("a.py", NonAscii, {"TL401"});
  ASSERT_EQ(O.Diagnostics.size(), 1u);
  // The engine's range is in bytes; every format shows 1-based code points.
  EXPECT_EQ(O.Diagnostics[0].Range.Begin, NonAscii.find("nn.DataParallel"));
  EXPECT_EQ(lineCol(*O.Source, O.Diagnostics[0].Range.Begin).Column, 15u);
  EXPECT_EQ(O.Source->position(O.Diagnostics[0].Range.Begin, ColumnUnit::Utf16Units).Column + 1, 16u);
  EXPECT_EQ(O.Source->position(O.Diagnostics[0].Range.Begin, ColumnUnit::Utf8Bytes).Column + 1, 19u);

  EXPECT_THAT(render(Format::Concise, {O}), ::testing::StartsWith("a.py:2:15: TL401 "));
  EXPECT_THAT(render(Format::Text, {O}), ::testing::StartsWith("a.py:2:15: TL401 "));
  EXPECT_THAT(render(Format::Github, {O}), HasSubstr(",line=2,col=15,endLine=2,endColumn=30::a.py:2:15: "));

  json::Value J = parseJson(render(Format::Json, {O}));
  ASSERT_TRUE(J.getAsArray() && J.getAsArray()->size() == 1);
  EXPECT_EQ(rowCol(*(*J.getAsArray())[0].getAsObject(), "location"), RC(2, 15));

  json::Value S = parseJson(render(Format::Sarif, {O}));
  const json::Object *Run = (*S.getAsObject()->getArray("runs"))[0].getAsObject();
  EXPECT_EQ(Run->getString("columnKind"), llvm::StringRef("unicodeCodePoints"));
  const json::Object *Result = (*Run->getArray("results"))[0].getAsObject();
  const json::Object *Region = (*Result->getArray("locations"))[0]
                                   .getAsObject()
                                   ->getObject("physicalLocation")
                                   ->getObject("region");
  ASSERT_TRUE(Region);
  EXPECT_EQ(intOf(*Region, "startLine"), 2);
  EXPECT_EQ(intOf(*Region, "startColumn"), 15);
  EXPECT_EQ(intOf(*Region, "endColumn"), 30);
}

TEST(ReportText, CodeFrameWithCaretsNotesAndHelp) {
  std::string Src = "import torch.nn as nn\n"
                    "model = nn.Linear(2, 2)\n"
                    "wrapped = nn.DataParallel(model)\n";
  Diagnostic D = diag("TL401", Severity::Warning, rangeOf(Src, "nn.DataParallel"), "use `DistributedDataParallel`");
  D.Notes.push_back({rangeOf(Src, "model ="), "`model` created here"});
  D.Fix = Fix{"Wrap in `DistributedDataParallel`", Applicability::Unsafe, {{rangeOf(Src, "nn.DataParallel"), "DDP"}}};
  EXPECT_EQ(render(Format::Text, {outcome("t.py", Src, {D})}),
            "t.py:3:11: TL401 use `DistributedDataParallel`\n"
            "  |\n"
            "3 | wrapped = nn.DataParallel(model)\n"
            "  |           ^^^^^^^^^^^^^^^\n"
            "note: t.py:2:1: `model` created here\n"
            "  |\n"
            "2 | model = nn.Linear(2, 2)\n"
            "  | ^^^^^^^\n"
            "help: Wrap in `DistributedDataParallel` (unsafe fix)\n"
            "\n"
            "Found 1 error.\n"
            "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n");

  // With --unsafe-fixes the same fix counts as fixable and is marked.
  ReportOptions Unsafe;
  Unsafe.FixLevel = Applicability::Unsafe;
  std::string T = render(Format::Text, {outcome("t.py", Src, {D})}, Unsafe);
  EXPECT_THAT(T, ::testing::StartsWith("t.py:3:11: TL401 [*] use"));
  EXPECT_THAT(T, ::testing::EndsWith("Found 1 error.\n[*] 1 fixable with the `--fix` option.\n"));
}

TEST(ReportText, LongLinesAreFramedAsAWindow) {
  // A generated line of 10,000 terms: each finding shows a window around itself, not the
  // whole line (a frame per finding would print the line once per finding).
  std::string Line = "x = a.cuda()";
  for (int I = 1; I < 10000; ++I)
    Line += " + a.cuda()";
  std::string Src = "import torch\n" + Line + " + \"\xc3\xa9\xc3\xa9\"\n";
  size_t Mid = Src.find("a.cuda()", Src.size() / 2);
  Diagnostic D = diag("TL105", Severity::Warning, {static_cast<uint32_t>(Mid), static_cast<uint32_t>(Mid + 8)}, "m");
  std::string T = render(Format::Text, {outcome("t.py", Src, {D})});
  EXPECT_LT(T.size(), 600u) << T.substr(0, 600);
  EXPECT_THAT(T, HasSubstr("\n2 | ...")) << T;
  EXPECT_THAT(T, HasSubstr("...\n  |")) << T;
  // The caret sits under the range: "2 | " + "..." + 60 characters of context.
  EXPECT_THAT(T, HasSubstr("\n  | " + std::string(3 + 60, ' ') + "^^^^^^^^\n"));
  EXPECT_THAT(T, HasSubstr("t.py:2:" + std::to_string(Mid - Src.find('\n')) + ": TL105"));
  // At the end of the line, with two-byte characters: no "..." after, whole characters.
  size_t Last = Src.rfind("a.cuda()");
  D.Range = {static_cast<uint32_t>(Last), static_cast<uint32_t>(Last + 8)};
  T = render(Format::Text, {outcome("t.py", Src, {D})});
  EXPECT_THAT(T, HasSubstr(" + a.cuda() + \"\xc3\xa9\xc3\xa9\"\n"));
}

TEST(ReportText, RealFindingsAndFixSummary) {
  std::string T = render(Format::Text, {lintOne("a.py", NonAscii, {"TL401", "TL002"})});
  EXPECT_EQ(T, "a.py:2:15: TL401 `nn.DataParallel` replicates the model on every step and piles memory on GPU 0; "
               "use `DistributedDataParallel`\n"
               "  |\n"
               "2 | x = \"é😀\"; w = nn.DataParallel(m)  # noqa: TL999\n"
               "  |               ^^^^^^^^^^^^^^^\n"
               "\n"
               "a.py:2:43: TL002 [*] unknown rule code `TL999` in suppression\n"
               "  |\n"
               "2 | x = \"é😀\"; w = nn.DataParallel(m)  # noqa: TL999\n"
               "  |                                           ^^^^^\n"
               "help: Remove `TL999` from the suppression\n"
               "\n"
               "Found 2 errors.\n"
               "[*] 1 fixable with the `--fix` option.\n");
  EXPECT_EQ(render(Format::Text, {outcome("ok.py", "x = 1\n", {})}), "All checks passed!\n");
}

TEST(ReportText, CaretsFollowDisplayWidthAndTabs) {
  // CJK characters take two terminal columns; a tab is shown as four spaces.
  std::string Src = "s = \"形状\"; w = nn.DataParallel(m)\n\tnn.DataParallel(m)\n";
  std::vector<Diagnostic> Ds = {diag("TL401", Severity::Warning, rangeOf(Src, "nn.DataParallel"), "m"),
                                diag("TL401", Severity::Warning, rangeOf(Src, "nn.DataParallel", 20), "m")};
  auto L = lines(render(Format::Text, {outcome("w.py", Src, Ds)}));
  ASSERT_GE(L.size(), 9u);
  EXPECT_EQ(L[0], "w.py:1:15: TL401 m");
  EXPECT_EQ(L[3], "  | " + std::string(16, ' ') + std::string(15, '^'));
  EXPECT_EQ(L[5], "w.py:2:2: TL401 m");
  EXPECT_EQ(L[7], "2 |     nn.DataParallel(m)");
  EXPECT_EQ(L[8], "  |     " + std::string(15, '^'));
}

TEST(ReportText, MultiLineRangeAndEndOfFile) {
  // A range over several lines is underlined to the end of its first line; an empty range
  // at the end of the file still gets one caret.
  std::string Src = "x = f(\n    1)\ny";
  std::vector<Diagnostic> Ds = {diag("TL001", Severity::Error, {4, 13}, "multi"),
                                diag("TL001", Severity::Error, {static_cast<uint32_t>(Src.size()),
                                                                static_cast<uint32_t>(Src.size())},
                                     "eof")};
  auto L = lines(render(Format::Text, {outcome("m.py", Src, Ds)}));
  ASSERT_GE(L.size(), 9u);
  EXPECT_EQ(L[3], "  |     ^^");
  EXPECT_EQ(L[5], "m.py:3:2: TL001 eof");
  EXPECT_EQ(L[7], "3 | y");
  EXPECT_EQ(L[8], "  |  ^");
}

} // namespace
} // namespace torchlint::test
