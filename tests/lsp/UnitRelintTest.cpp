// Re-linting one definition after an edit (lsp/Incremental.h) must say exactly what linting
// the whole file says. Every fixture and example is edited at random (an edit, then its
// undo, as a person types and takes it back) with the idle-time check off, and each result is
// compared with a fresh whole-file server; the planner's refusals are checked one by one.
#include "LspTestUtil.h"
#include "TestUtil.h"
#include "Rules.h"
#include "lsp/Incremental.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

namespace torchlint::test {
namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string lastDiagnostics(const std::vector<Value> &Msgs) {
  std::string Out = "<none>";
  for (const auto &M : Msgs) {
    const Object *O = M.getAsObject();
    if (O && O->getString("method") == llvm::StringRef("textDocument/publishDiagnostics")) {
      Out.clear();
      llvm::raw_string_ostream(Out) << *O->get("params")->getAsObject()->get("diagnostics");
    }
  }
  return Out;
}

/// Line and UTF-16 column of byte \p Off (the protocol's default position encoding).
std::pair<int, int> position(const std::string &Text, size_t Off) {
  int Line = 0, Col = 0;
  for (size_t I = 0; I < Off; ++I) {
    unsigned char C = static_cast<unsigned char>(Text[I]);
    if (C == '\n') {
      ++Line;
      Col = 0;
    } else if ((C & 0xC0) != 0x80) {
      Col += C >= 0xF0 ? 2 : 1;
    }
  }
  return {Line, Col};
}

Value change(const std::string &Uri, int Version, const std::string &Text, size_t B, size_t E, const std::string &Insert) {
  auto [BL, BC] = position(Text, B);
  auto [EL, EC] = position(Text, E);
  Object Change{{"range", Object{{"start", Object{{"line", BL}, {"character", BC}}},
                                 {"end", Object{{"line", EL}, {"character", EC}}}}},
                {"text", Insert}};
  return notification("textDocument/didChange",
                      Object{{"textDocument", Object{{"uri", Uri}, {"version", Version}}},
                             {"contentChanges", Array{std::move(Change)}}});
}

std::string freshDiagnostics(const std::string &Uri, const std::string &Text) {
  lsp::ServerOptions Opts;
  Opts.UnitRelint = false;
  LspHarness Fresh(Opts);
  Fresh.send({initializeRequest()});
  return lastDiagnostics(Fresh.send({didOpenNotification(Uri, Text)}));
}

std::vector<std::filesystem::path> pythonSources() {
  std::vector<std::filesystem::path> Out;
  for (const char *Dir : {"fixtures", "examples", "runtime_probe/fixtures"}) {
    std::filesystem::path Root = std::filesystem::path(TORCHLINT_SOURCE_DIR) / Dir;
    if (!std::filesystem::exists(Root))
      continue;
    for (const auto &E : std::filesystem::recursive_directory_iterator(Root))
      if (E.is_regular_file() && E.path().extension() == ".py")
        Out.push_back(E.path());
  }
  // More code to try, e.g. a library's sources: TORCHLINT_UNIT_RELINT_CORPUS=/usr/lib/python3/dist-packages/torchvision
  if (const char *Extra = std::getenv("TORCHLINT_UNIT_RELINT_CORPUS"))
    for (const auto &E : std::filesystem::recursive_directory_iterator(Extra))
      if (E.is_regular_file() && E.path().extension() == ".py" && E.file_size() < 200000)
        Out.push_back(E.path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

TEST(UnitRelint, RandomEditsMatchTheWholeFile) {
  const std::vector<std::string> Snippets = {
      "x", "(", ")", "\"cpu\"", "\"cuda\"", ".to(device)", ".cuda()", ".cpu()", ".float()", ".double()",
      "torch.zeros(3)", "torch.randn(2, device=\"cuda\")", "\n", "    ", ":", "device", "self.w", "model",
      "\n        return x", "torch.load(p)", "model.cuda()\n        ", "x = x.to(\"cuda\")\n        ", "0", ", "};
  const std::vector<std::string> Words = {"x", "device", "cuda", "cpu", "to", "float", "double", "half", "model",
                                          "self", "torch", "zeros", "load", "map_location", "True", "None", "forward"};
  auto Files = pythonSources();
  ASSERT_GT(Files.size(), 20u);
  size_t Edits = 0, UnitEdits = 0, MethodEdits = 0;
  std::map<std::string, size_t> Refusals;
  for (const auto &Path : Files) {
    std::ifstream In(Path, std::ios::binary);
    std::stringstream SS;
    SS << In.rdbuf();
    const std::string Original = SS.str();
    if (Original.empty())
      continue;
    const std::string Uri = "file:///tmp/torchlint-unit-relint/" + Path.filename().string();
    SCOPED_TRACE(Path.string());
    std::mt19937 Rng(static_cast<unsigned>(std::hash<std::string>{}(Path.filename().string()) & 0xffff));
    lsp::ServerOptions Opts;
    Opts.CheckWhenIdle = false; // what the unit re-lint alone publishes
    LspHarness Inc(Opts);
    Inc.send({initializeRequest()});
    Inc.send({didOpenNotification(Uri, Original)});
    int Version = 1;
    for (int Step = 0; Step < 24; ++Step) {
      // A code-point boundary, an insertion or a short deletion, then the undo.
      size_t B = Rng() % (Original.size() + 1);
      while (B < Original.size() && (static_cast<unsigned char>(Original[B]) & 0xC0) == 0x80)
        ++B;
      size_t E = B;
      std::string Insert;
      auto Word = [&](size_t I) { return I < Original.size() && (std::isalnum(static_cast<unsigned char>(Original[I])) || Original[I] == '_'); };
      if (Rng() % 2 == 0) {
        // Swap a word for another (keeps the syntax, changes what the rules see).
        while (B < Original.size() && !Word(B))
          ++B;
        while (B > 0 && Word(B - 1))
          --B;
        E = B;
        while (Word(E))
          ++E;
        Insert = Words[Rng() % Words.size()];
      } else if (Rng() % 3 == 0) {
        E = std::min(Original.size(), B + 1 + Rng() % 6);
        while (E < Original.size() && (static_cast<unsigned char>(Original[E]) & 0xC0) == 0x80)
          ++E;
      } else {
        Insert = Snippets[Rng() % Snippets.size()];
      }
      std::string Edited = Original;
      Edited.replace(B, E - B, Insert);
      for (int Half = 0; Half < 2; ++Half) {
        const std::string &Before = Half == 0 ? Original : Edited;
        const std::string &After = Half == 0 ? Edited : Original;
        size_t Bb = B, Eb = Half == 0 ? E : B + Insert.size();
        std::string Text = Half == 0 ? Insert : Original.substr(B, E - B);
        size_t UnitBefore = Inc.server().editStats().UnitOnly;
        std::string Got = lastDiagnostics(Inc.send({change(Uri, ++Version, Before, Bb, Eb, Text)}));
        ++Edits;
        UnitEdits += Inc.server().editStats().UnitOnly - UnitBefore;
        std::string Want = freshDiagnostics(Uri, After);
        ASSERT_EQ(Got, Want)
            << Path << ": step " << Step << (Half ? " (undo)" : "") << ", bytes " << B << ".." << E << " -> \""
            << Insert << "\"\n"
            << After;
      }
    }
    for (auto &[Why, N] : Inc.server().editStats().Refusals)
      Refusals[Why] += N;
    MethodEdits += Inc.server().editStats().MethodOnly;
  }
  std::string Why;
  for (auto &[W, N] : Refusals)
    Why += "  " + std::to_string(N) + " " + W + "\n";
  std::printf("unit re-lint: %zu of %zu edits over %zu files re-linted by their definition and its users (%zu by "
              "their method and those tied to it); the others:\n%s",
              UnitEdits, Edits, Files.size(), MethodEdits, Why.c_str());
  // The comparison means something only if the fast path was taken often. (Less often in the
  // fixtures than in real files: nearly every definition there spells `cuda` or `device`,
  // which TL105's one-finding-per-file decision reads file-wide.)
  EXPECT_GE(UnitEdits * 20, Edits) << UnitEdits << " of " << Edits << " edits were re-linted by their definition; "
                                  << "the others were refused for:\n"
                                  << Why;
}

/// The file-wide words of a lint with every rule, or every rule but \p Without.
Linter::FileWideWords wordsFor(std::vector<std::string_view> Without = {}) {
  LintSettings S;
  for (auto &R : rules::registry().rules())
    if (std::find(Without.begin(), Without.end(), R->info().Code) == Without.end())
      S.Enabled.emplace_back(R->info().Code);
  std::sort(S.Enabled.begin(), S.Enabled.end());
  return Linter(rules::registry()).fileWideWords(S);
}
const Linter::FileWideWords &allWords() {
  static const Linter::FileWideWords W = wordsFor();
  return W;
}

struct Planned {
  lsp::PlanResult R;
  std::string OldText, NewText;
};

/// Plans the edit replacing the first \p Find in \p Old by \p Replace.
Planned plan(const std::string &Old, const std::string &Find, const std::string &Replace,
             const std::vector<Diagnostic> &OldDiags = {}, const Linter::FileWideWords &Words = allWords()) {
  Planned P;
  P.OldText = Old;
  size_t B = Old.find(Find);
  EXPECT_NE(B, std::string::npos) << Find;
  P.NewText = Old;
  P.NewText.replace(B, Find.size(), Replace);
  TreePtr OldTree = parsePython(P.OldText), NewTree = parsePython(P.NewText);
  TSNode OldRoot = ts_tree_root_node(OldTree.get());
  auto Units = lsp::topUnits(OldRoot, P.OldText);
  lsp::EditSpan E{static_cast<uint32_t>(B), static_cast<uint32_t>(B + Find.size()),
                  static_cast<uint32_t>(B + Replace.size())};
  P.R = lsp::planUnitRelint(Units, P.OldText, ts_node_has_error(OldRoot), ts_tree_root_node(NewTree.get()),
                            P.NewText, E, OldDiags, Words);
  return P;
}

const std::string Script = "import torch\n"
                           "\n"
                           "DEVICE = torch.device(\"cuda\")\n"
                           "\n"
                           "\n"
                           "def make_batch():\n"
                           "    return torch.zeros(4)\n"
                           "\n"
                           "\n"
                           "def unrelated():\n"
                           "    return 1\n"
                           "\n"
                           "\n"
                           "def train(model):\n"
                           "    model.to(DEVICE)\n"
                           "    x = make_batch()\n"
                           "    return model(x)\n";

TEST(UnitRelint, KeepsWhatTheDefinitionNamesAndBlanksTheRest) {
  auto P = plan(Script, "return model(x)", "return model(x + 1)");
  ASSERT_TRUE(P.R.Plan) << P.R.Refusal;
  const std::string &M = P.R.Plan->Masked;
  ASSERT_EQ(M.size(), P.NewText.size());
  EXPECT_NE(M.find("def make_batch"), std::string::npos); // named by train
  EXPECT_NE(M.find("DEVICE = torch.device"), std::string::npos); // module-level code stays
  EXPECT_EQ(M.find("unrelated"), std::string::npos); // blanked
  EXPECT_EQ(std::count(M.begin(), M.end(), '\n'), std::count(P.NewText.begin(), P.NewText.end(), '\n'));
  EXPECT_EQ(P.R.Plan->KeptUnits, 4u); // import, DEVICE, make_batch, train
  // The parser reads the kept parts and positions are those of the real file.
  TreePtr T = lsp::parseUnitPlan(*P.R.Plan);
  ASSERT_TRUE(T);
  TSNode Root = ts_tree_root_node(T.get());
  EXPECT_FALSE(ts_node_has_error(Root));
  TSNode Last = ts_node_named_child(Root, ts_node_named_child_count(Root) - 1);
  EXPECT_EQ(ts_node_start_byte(Last), P.NewText.find("def train"));
  EXPECT_EQ(ts_node_start_point(Last).row, 13u);
}

TEST(UnitRelint, RefusesWhatReachesBeyondTheDefinition) {
  // make_batch is called by train: its summary is part of train's findings, so both are
  // re-linted.
  auto Helper = plan(Script, "torch.zeros(4)", "torch.zeros(4).double()");
  ASSERT_TRUE(Helper.R.Plan) << Helper.R.Refusal;
  ASSERT_EQ(Helper.R.Plan->Relinted.size(), 2u);
  EXPECT_EQ(Helper.R.Plan->Relinted[0].Begin, Helper.NewText.find("def make_batch"));
  EXPECT_EQ(Helper.R.Plan->Relinted[1].Begin, Helper.NewText.find("def train"));
  // DEVICE's value reaches train: an edit of a function DEVICE is computed from re-lints
  // the assignment and, through what it binds, train.
  std::string Chain = Script;
  Chain.replace(Chain.find("DEVICE = torch.device(\"cuda\")"), 29, "DEVICE = pick()");
  Chain.insert(Chain.find("def make_batch"), "def pick():\n    return torch.device(\"cuda\")\n\n\n");
  // (Without TL105, TL110 and TL301, which read every definition that spells `"cpu"` (a fallback of
  // the program's device choice), and the rules whose first finding carries the rewrite of the
  // whole file to one device (TL105, TL106, TL402), which reads every definition that spells
  // `cuda`: with them, this edit re-lints the whole file.)
  EXPECT_EQ(plan(Chain, "return torch.device(\"cuda\")", "return torch.device(\"cpu\")").R.Refusal,
            "the definition has code with file-wide effects");
  static const Linter::FileWideWords NoTL105 = wordsFor({"TL105", "TL106", "TL402", "TL301", "TL110"});
  auto Pick = plan(Chain, "return torch.device(\"cuda\")", "return torch.device(\"cpu\")", {}, NoTL105);
  ASSERT_TRUE(Pick.R.Plan) << Pick.R.Refusal;
  ASSERT_EQ(Pick.R.Plan->Relinted.size(), 3u); // DEVICE = pick(), pick, train
  EXPECT_EQ(Pick.R.Plan->Relinted[0].Begin, Pick.NewText.find("DEVICE = pick()"));
  EXPECT_EQ(Pick.R.Plan->Relinted[2].Begin, Pick.NewText.find("def train"));
  EXPECT_EQ(plan(Script, "return 1", "import os\n    return 1").R.Refusal,
            "the definition has code with file-wide effects");
  EXPECT_EQ(plan(Script, "return 1", "torch.cuda.set_device(0)").R.Refusal,
            "the definition has code with file-wide effects");
  EXPECT_EQ(plan(Script, "DEVICE = torch.device(\"cuda\")", "DEVICE = torch.device(\"cpu\")").R.Refusal,
            "the edit is not inside one top-level definition");
  EXPECT_EQ(plan(Script, "return 1", "return (1").R.Refusal, "a syntax error");
  EXPECT_EQ(plan(Script, "return 1", "return 1\nx = 2").R.Refusal,
            "top-level statements were added or removed");
  EXPECT_EQ(plan(Script, "def unrelated", "def unrelated2").R.Refusal, "the definition was renamed");
  EXPECT_EQ(plan(Script + "# torchlint: disable-file=TL101\n", "return 1", "return 2").R.Refusal,
            "the file has code that makes every edit re-lint all of it");
  // A finding elsewhere whose note points into the definition.
  Diagnostic D;
  D.Code = "TL102";
  D.Range = {static_cast<uint32_t>(Script.find("model(x)")), static_cast<uint32_t>(Script.find("model(x)") + 8)};
  D.Notes.push_back({{static_cast<uint32_t>(Script.find("return 1")), static_cast<uint32_t>(Script.find("return 1") + 8)},
                     "moved at line 11"});
  EXPECT_EQ(plan(Script, "return 1", "return 2", {D}).R.Refusal, "a finding elsewhere refers into the definition");
  // Line numbers quoted elsewhere go stale when lines come or go.
  D.Notes.clear();
  D.Message = "on cuda (moved at line 15)";
  EXPECT_TRUE(plan(Script, "return 1", "return 2", {D}).R.Plan);
  EXPECT_EQ(plan(Script, "return 1", "x = 0\n    return 1", {D}).R.Refusal, "a finding elsewhere quotes a line number");
}

TEST(UnitRelint, FileWideWordsAreWhatTheEnabledRulesRead) {
  auto Has = [](const std::vector<std::string_view> &L, std::string_view W) {
    return std::find(L.begin(), L.end(), W) != L.end();
  };
  const Linter::FileWideWords &All = allWords();
  EXPECT_TRUE(Has(All.Words, "import"));             // the semantic model's
  EXPECT_TRUE(Has(All.Words, "set_default_device")); // the device flow's
  EXPECT_TRUE(Has(All.Words, "init_process_group")); // the process group's (TL105, TL106, TL402)
  EXPECT_TRUE(Has(All.WholeFile, "disable-file"));   // the suppressions'
  EXPECT_TRUE(Has(All.WholeFile, "cuda.amp"));       // TL701's rewrite of every use
  EXPECT_FALSE(Has(wordsFor({"TL701"}).WholeFile, "cuda.amp"));
  LintSettings Only;
  Only.Enabled = {"TL304"}; // reads no file-wide analysis
  Linter::FileWideWords Few = Linter(rules::registry()).fileWideWords(Only);
  EXPECT_FALSE(Has(Few.Words, "init_process_group"));
  EXPECT_FALSE(Has(Few.Words, "set_default_device"));
  EXPECT_TRUE(Has(Few.Words, "import"));
}

TEST(UnitRelint, ShiftsTheFindingsAfterTheEdit) {
  auto P = plan(Script, "return 1", "return 1234");
  ASSERT_TRUE(P.R.Plan);
  uint32_t At = static_cast<uint32_t>(Script.find("model.to"));
  Diagnostic After;
  After.Code = "TL101";
  After.Range = {At, At + 8};
  After.Fix = Fix{"f", Applicability::Safe, {{{At, At + 8}, "y"}}};
  Diagnostic Inside;
  Inside.Code = "TL104";
  Inside.Range = {static_cast<uint32_t>(Script.find("return 1")), static_cast<uint32_t>(Script.find("return 1") + 8)};
  lsp::EditSpan E{static_cast<uint32_t>(Script.find("return 1")), static_cast<uint32_t>(Script.find("return 1") + 8),
                  static_cast<uint32_t>(Script.find("return 1") + 11)};
  auto Out = lsp::mergeUnitDiagnostics({Inside, After}, {}, *P.R.Plan, E);
  ASSERT_EQ(Out.size(), 1u); // the old finding inside the unit is gone; none came fresh
  EXPECT_EQ(Out[0].Range.Begin, At + 3);
  EXPECT_EQ(Out[0].Fix->Edits[0].Range.End, At + 11);
}


TEST(UnitRelint, CombinedEditsSpanWhatChanged) {
  // "abcdef": "cd" -> "XYZ" gives "abXYZef"; then "Ze" (in that text) -> "" gives "abXYf".
  lsp::EditSpan S = lsp::combine({2, 4, 5}, {4, 6, 4});
  EXPECT_EQ(S.Begin, 2u);
  EXPECT_EQ(S.OldEnd, 5u); // "cde" of "abcdef"...
  EXPECT_EQ(S.NewEnd, 4u); // ...became "XY"
  // An edit before the first one: the span starts there and ends where the first one did.
  S = lsp::combine({10, 12, 13}, {3, 3, 5});
  EXPECT_EQ(S.Begin, 3u);
  EXPECT_EQ(S.OldEnd, 12u);
  EXPECT_EQ(S.NewEnd, 15u);
}

const std::string Model = "import torch\n"
                          "import torch.nn as nn\n"
                          "\n"
                          "\n"
                          "class Net(nn.Module):\n"
                          "    scale = 2\n"
                          "\n"
                          "    def __init__(self):\n"
                          "        super().__init__()\n"
                          "        self.proj = nn.Linear(4, 4)\n"
                          "        self.bins = torch.zeros(4)\n"
                          "\n"
                          "    def forward(self, x):\n"
                          "        h = self.proj(x)\n"
                          "        h = h + 0\n"
                          "        return self.helper(h)\n"
                          "\n"
                          "    def helper(self, x):\n"
                          "        y = x * 2\n"
                          "        return y\n"
                          "\n"
                          "    def unrelated(self, x):\n"
                          "        z = x + 1\n"
                          "        return z\n"
                          "\n"
                          "    def other(self, x):\n"
                          "        w = x - 1\n"
                          "        return self.bins + w\n"
                          "\n"
                          "\n"
                          "def build():\n"
                          "    return Net()\n";

TEST(UnitRelint, AnEditInAMethodRelintsItAndTheMethodsTiedToIt) {
  // Nothing names unrelated(): it alone is re-linted, in a text that keeps the class header, its
  // class-level statements and __init__, and blanks the other methods (and build(), which
  // reads nothing an edit of unrelated() can change).
  auto Alone = plan(Model, "z = x + 1", "z = x + 2");
  ASSERT_TRUE(Alone.R.Plan) << Alone.R.Refusal;
  EXPECT_EQ(Alone.R.MethodRefusal, "");
  const lsp::UnitPlan &P = *Alone.R.Plan;
  EXPECT_EQ(P.Methods, 1u);
  EXPECT_EQ(P.BlankedMethods, 3u); // forward, helper, other
  ASSERT_EQ(P.Relinted.size(), 1u);
  EXPECT_EQ(P.Relinted[0].Begin, Alone.NewText.find("def unrelated"));
  EXPECT_EQ(P.Relinted[0].End, Alone.NewText.find("return z") + 8);
  EXPECT_EQ(P.OldEnd, Model.find("return z") + 8);
  const std::string &M = P.Masked;
  ASSERT_EQ(M.size(), Alone.NewText.size());
  for (const char *Kept : {"class Net(nn.Module):", "    scale = 2", "self.bins = torch.zeros(4)", "def unrelated"})
    EXPECT_NE(M.find(Kept), std::string::npos) << Kept;
  for (const char *Blanked : {"def forward", "def helper", "def other", "def build"})
    EXPECT_EQ(M.find(Blanked), std::string::npos) << Blanked;
  EXPECT_EQ(std::count(M.begin(), M.end(), '\n'), std::count(Alone.NewText.begin(), Alone.NewText.end(), '\n'));
  TreePtr T = lsp::parseUnitPlan(P);
  ASSERT_TRUE(T);
  EXPECT_FALSE(ts_node_has_error(ts_tree_root_node(T.get()))) << M;

  // helper() is called by forward(): forward hands it its role, and reads what it returns.
  auto Helper = plan(Model, "y = x * 2", "y = x * 3");
  ASSERT_TRUE(Helper.R.Plan) << Helper.R.Refusal;
  EXPECT_EQ(Helper.R.Plan->Methods, 2u);
  ASSERT_EQ(Helper.R.Plan->Relinted.size(), 2u);
  EXPECT_EQ(Helper.R.Plan->Relinted[0].Begin, Helper.NewText.find("def forward"));
  EXPECT_EQ(Helper.R.Plan->Relinted[1].Begin, Helper.NewText.find("def helper"));
  EXPECT_EQ(Helper.R.Plan->Masked.find("def unrelated"), std::string::npos);

  // forward() is read from outside the class (whether it moves its inputs, where the class is
  // built): build() is re-linted with it.
  auto Forward = plan(Model, "h = h + 0", "h = h + 1");
  ASSERT_TRUE(Forward.R.Plan) << Forward.R.Refusal;
  EXPECT_EQ(Forward.R.Plan->Methods, 2u);
  ASSERT_EQ(Forward.R.Plan->Relinted.size(), 3u);
  EXPECT_EQ(Forward.R.Plan->Relinted[2].Begin, Forward.NewText.find("def build"));
}

TEST(UnitRelint, WhatTheClassReadsAsAWholeRelintsTheClass) {
  auto WholeClass = [](const Planned &P, std::string_view Why) {
    EXPECT_EQ(P.R.MethodRefusal, Why);
    ASSERT_TRUE(P.R.Plan) << P.R.Refusal;
    EXPECT_EQ(P.R.Plan->Methods, 0u);
    ASSERT_EQ(P.R.Plan->Relinted.size(), 2u); // the class, and build() which names it
    EXPECT_EQ(P.R.Plan->Relinted[0].Begin, P.NewText.find("class Net"));
    EXPECT_EQ(P.R.Plan->BlankedMethods, 0u);
  };
  // What __init__ assigns is what every method starts from.
  WholeClass(plan(Model, "self.proj = nn.Linear(4, 4)", "self.proj = nn.Linear(4, 8)"), "the edit is inside `__init__`");
  // TL103 compares __init__'s plain tensor attributes with their uses in the other methods.
  WholeClass(plan(Model, "return self.bins + w", "return self.bins * w"), "the edit is at an attribute `__init__` sets");
  WholeClass(plan(Model, "return self.bins + w", "return w"), "the edit is at an attribute `__init__` sets");
  WholeClass(plan(Model, "w = x - 1", "self.register_buffer(\"w\", x)"), "the method registers state by name");
  // The class body and the header are no method's.
  WholeClass(plan(Model, "scale = 2", "scale = 3"), "the edit is not inside the body of one method");
  WholeClass(plan(Model, "def unrelated(self, x)", "def unrelated(self, x, y=1)"),
             "the edit is not inside the body of one method");
  WholeClass(plan(Model, "z = x + 1\n", "z = x + 1\n\n    def added(self):\n        pass\n"),
             "statements of the class were added or removed");
  // A method the class body names is read at class level.
  std::string Aliased = Model;
  Aliased.replace(Aliased.find("scale = 2"), 9, "scale = 2\n    alias = unrelated");
  auto Alias = plan(Aliased, "z = x + 1", "z = x + 2");
  EXPECT_EQ(Alias.R.MethodRefusal, "the class body outside its methods names the method");
  // A method holding a file-wide word re-lints the class, or (here, the class holding it too)
  // the whole file.
  EXPECT_EQ(plan(Model, "z = x + 1", "z = x.cuda()").R.MethodRefusal, "the method has code with file-wide effects");
  EXPECT_EQ(plan(Model, "z = x + 1", "z = x.cuda()").R.Refusal, "the definition has code with file-wide effects");
}

/// Opens \p Text in a server without idle checks, applies each edit (the first occurrence of
/// a string replaced by another) and its undo, and compares what is published each time with
/// a whole-file lint. Returns how many edits were re-linted by their method.
size_t methodEditsMatch(const std::string &Text, const std::vector<std::pair<std::string, std::string>> &Edits) {
  const std::string Uri = "file:///tmp/torchlint-unit-relint/model.py";
  lsp::ServerOptions Opts;
  Opts.CheckWhenIdle = false;
  LspHarness Inc(Opts);
  Inc.send({initializeRequest()});
  Inc.send({didOpenNotification(Uri, Text)});
  int Version = 1;
  for (const auto &[Find, Replace] : Edits) {
    size_t B = Text.find(Find);
    EXPECT_NE(B, std::string::npos) << Find;
    if (B == std::string::npos)
      continue;
    std::string Edited = Text;
    Edited.replace(B, Find.size(), Replace);
    std::string Got = lastDiagnostics(Inc.send({change(Uri, ++Version, Text, B, B + Find.size(), Replace)}));
    EXPECT_EQ(Got, freshDiagnostics(Uri, Edited)) << Find << " -> " << Replace << "\n" << Edited;
    Got = lastDiagnostics(Inc.send({change(Uri, ++Version, Edited, B, B + Replace.size(), Find)}));
    EXPECT_EQ(Got, freshDiagnostics(Uri, Text)) << "undo of " << Find << " -> " << Replace;
  }
  return Inc.server().editStats().MethodOnly;
}

TEST(UnitRelint, MethodEditsMatchTheWholeFile) {
  // Each edit makes or unmakes a finding; those inside a method are re-linted by it.
  auto Has = [](const std::string &Text, const char *Code) {
    return freshDiagnostics("file:///tmp/torchlint-unit-relint/model.py", Text).find(Code) != std::string::npos;
  };
  std::string WithFinding = Model;
  WithFinding.replace(WithFinding.find("z = x + 1"), 9, "z = x.to(\"CPU\")");
  ASSERT_TRUE(Has(WithFinding, "TL107")) << "the edit below must add a finding in unrelated()";
  // A CPU tensor built in helper(), which runs in forward: only forward (kept with helper)
  // says so.
  std::string Built = Model;
  Built.replace(Built.find("y = x * 2"), 9, "y = x + torch.zeros(4)");
  std::string BuiltNoForward = Built;
  BuiltNoForward.replace(BuiltNoForward.find("return self.helper(h)"), 21, "return h");
  ASSERT_NE(freshDiagnostics("file:///m.py", Built), freshDiagnostics("file:///m.py", BuiltNoForward))
      << "the finding in helper() must depend on forward() calling it";
  size_t ByMethod = methodEditsMatch(Model, {
                                                {"z = x + 1", "z = x.to(\"CPU\")"},   // adds a finding in the method
                                                {"y = x * 2", "y = x + torch.zeros(4)"}, // a helper of forward
                                                {"return y", "return y.double()"},
                                                {"w = x - 1", "w = x.float()"},
                                                {"return self.bins + w", "return w"}, // a self.x another method sets
                                                {"self.bins = torch.zeros(4)", "self.bins = torch.zeros(4).double()"},
                                            });
  EXPECT_GE(ByMethod, 8u); // the first four edits and their undos
  // The same edits with the finding there first: the undo removes it.
  EXPECT_GE(methodEditsMatch(WithFinding, {{"z = x.to(\"CPU\")", "z = x + 1"}}), 2u);
}


TEST(UnitRelint, RandomMethodEditsMatchTheWholeFile) {
  // Snippets appended to statements of a module's methods (roles handed down through self
  // calls, attributes __init__ sets, factories on the CPU in forward), each edit then its undo.
  const std::string Source = "import torch\n"
                             "import torch.nn as nn\n"
                             "\n"
                             "\n"
                             "class Model(nn.Module):\n"
                             "    def __init__(self):\n"
                             "        super().__init__()\n"
                             "        self.lin = nn.Linear(3, 3)\n"
                             "        self.w = torch.zeros(3)\n"
                             "\n"
                             "    def forward(self, x):\n"
                             "        h = self.lin(x)\n"
                             "        h = self.step(h)\n"
                             "        return h + 1\n"
                             "\n"
                             "    def step(self, h):\n"
                             "        t = h * 2\n"
                             "        return t\n"
                             "\n"
                             "    def scaled(self, x):\n"
                             "        s = x * 3\n"
                             "        return s + self.w\n"
                             "\n"
                             "    @torch.no_grad()\n"
                             "    def stats(self, x):\n"
                             "        m = x.mean()\n"
                             "        return m\n"
                             "\n"
                             "    def unused(self):\n"
                             "        k = torch.ones(2)\n"
                             "        return k\n"
                             "\n"
                             "\n"
                             "def run(x):\n"
                             "    model = Model()\n"
                             "    return model(x)\n";
  const std::vector<std::string> Snippets = {" + torch.zeros(3)", ".double()", ".to(\"CPU\")", ".float()",
                                             " * self.w", ".cpu()", " + torch.randn(3)", ".numpy()", " - 1"};
  std::vector<size_t> LineEnds; // ends of the body statements of the methods
  for (size_t At = Source.find("\n        "); At != std::string::npos; At = Source.find("\n        ", At + 1)) {
    size_t End = Source.find('\n', At + 1);
    std::string_view Line = std::string_view(Source).substr(At + 1, End - At - 1);
    if (Line.find("return") == std::string_view::npos && Line.find(" = ") == std::string_view::npos)
      continue;
    LineEnds.push_back(End);
  }
  ASSERT_GT(LineEnds.size(), 8u);
  const std::string Uri = "file:///tmp/torchlint-unit-relint/random_model.py";
  lsp::ServerOptions Opts;
  Opts.CheckWhenIdle = false;
  LspHarness Inc(Opts);
  Inc.send({initializeRequest()});
  Inc.send({didOpenNotification(Uri, Source)});
  std::mt19937 Rng(2026);
  int Version = 1;
  std::set<std::string> Seen; // the edits make and unmake findings
  for (int Step = 0; Step < 40; ++Step) {
    size_t At = LineEnds[Rng() % LineEnds.size()];
    const std::string &Insert = Snippets[Rng() % Snippets.size()];
    std::string Edited = Source;
    Edited.insert(At, Insert);
    std::string Got = lastDiagnostics(Inc.send({change(Uri, ++Version, Source, At, At, Insert)}));
    ASSERT_EQ(Got, freshDiagnostics(Uri, Edited)) << Edited;
    Seen.insert(Got);
    Got = lastDiagnostics(Inc.send({change(Uri, ++Version, Edited, At, At + Insert.size(), "")}));
    ASSERT_EQ(Got, freshDiagnostics(Uri, Source)) << "undo of\n" << Edited;
  }
  EXPECT_GE(Inc.server().editStats().MethodOnly, 20u) << "the method path must be what is tested";
  EXPECT_GE(Seen.size(), 5u);
}

} // namespace
} // namespace torchlint::test
