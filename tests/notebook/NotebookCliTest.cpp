// End-to-end tests of notebooks through the torchlint binary: discovery and the opt-out, the
// cell in every output format, suppressions and per-file-ignores, --fix and --diff byte for
// byte, a notebook that is not one, the result cache, project mode, and `confirm`.
#include "TestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>

namespace torchlint::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Cell {
  std::string Type; // "code", "markdown"
  std::vector<std::string> Lines;
};

/// A notebook as nbformat writes one: indent 1, sorted keys, a line per string, a final newline.
std::string notebook(const std::vector<Cell> &Cells) {
  std::string S = "{\n \"cells\": [\n";
  for (size_t I = 0; I < Cells.size(); ++I) {
    const Cell &C = Cells[I];
    S += "  {\n   \"cell_type\": \"" + C.Type + "\",\n";
    if (C.Type == "code")
      S += "   \"execution_count\": " + std::to_string(I + 1) + ",\n";
    S += "   \"metadata\": {\n    \"id\": \"c" + std::to_string(I) + "\"\n   },\n";
    if (C.Type == "code")
      S += "   \"outputs\": [\n    {\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n"
           "     \"text\": [\n      \"ok \\u00e9\\n\"\n     ]\n    }\n   ],\n";
    S += "   \"source\": [";
    for (size_t L = 0; L < C.Lines.size(); ++L) {
      std::string Line = C.Lines[L] + (L + 1 < C.Lines.size() ? "\n" : "");
      S += (L ? ",\n    " : "\n    ") + llvm::formatv("{0}", llvm::json::Value(Line)).str();
    }
    S += C.Lines.empty() ? "]\n" : "\n   ]\n";
    S += I + 1 < Cells.size() ? "  },\n" : "  }\n";
  }
  S += " ],\n \"metadata\": {\n  \"kernelspec\": {\n   \"display_name\": \"Python 3\",\n   \"language\": "
       "\"python\",\n   \"name\": \"python3\"\n  }\n },\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
  return S;
}

// Cell 1 markdown; cell 2 the model; cell 3 a magic, a CPU batch fed to it, a discarded move.
const std::vector<Cell> Course = {
    {"markdown", {"# Training", "Some text."}},
    {"code", {"%matplotlib inline", "import torch", "model = torch.nn.Linear(4, 2).to(\"cuda\")"}},
    {"code", {"!pip install tqdm", "x = torch.randn(8, 4)", "y = model(x)", "x.to(\"cuda\")"}},
};

using Project = TempProject;

TEST(NotebookCli, LintedByDefaultWithCellPositions) {
  Project P;
  P.file("nb.ipynb", notebook(Course)).file("a.py", "import torch\nx = torch.ones(2)\n");
  auto R = P.run({"check", "--no-cache", "."});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 3:3:5: TL102"));
  EXPECT_THAT(R.Out, HasSubstr("note: nb.ipynb:cell 2:3:9: `model` is on cuda (moved at line 3 of cell 2)"));
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 3:4:3: TL101 [*]"));
  EXPECT_THAT(R.Out, HasSubstr("3 | y = model(x)")) << "the frame numbers the cell's lines";
  EXPECT_THAT(R.Out, Not(HasSubstr("TL001"))) << "magics are not syntax errors";
  R = P.run({"check", "--no-cache", "--format", "concise", "nb.ipynb"});
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 3:3:5: TL102"));
  // Ruff's opt-out, and `include`.
  P.file("pyproject.toml", "[tool.torchlint]\nextend-exclude = [\"*.ipynb\"]\n");
  R = P.run({"check", "--no-cache", "."});
  EXPECT_EQ(R.Exit, 0) << R.Out;
  P.file("pyproject.toml", "[tool.torchlint]\ninclude = [\"*.py\"]\n");
  EXPECT_EQ(P.run({"check", "--no-cache", "."}).Exit, 0);
  P.file("pyproject.toml", "[tool.torchlint]\ninclude = [\"*.py\"]\nextend-include = [\"*.ipynb\"]\n");
  EXPECT_EQ(P.run({"check", "--no-cache", "."}).Exit, 1);
  P.file("pyproject.toml", "[tool.torchlint]\n");
  // Jupyter's checkpoints are never linted.
  P.file("nb.ipynb", notebook({{"code", {"import torch"}}}));
  P.file(".ipynb_checkpoints/nb-checkpoint.ipynb", notebook(Course));
  EXPECT_EQ(P.run({"check", "--no-cache", "."}).Exit, 0);
}

TEST(NotebookCli, EveryFormatPlacesTheCell) {
  Project P;
  std::string Text = notebook(Course);
  P.file("nb.ipynb", Text);
  // The line of the .ipynb file where `y = model(x)` is written, and its column there.
  size_t At = Text.find("\"y = model(x)");
  ASSERT_NE(At, std::string::npos);
  int64_t FileLine = 1 + std::count(Text.begin(), Text.begin() + static_cast<std::ptrdiff_t>(At), '\n');
  int64_t FileColumn = static_cast<int64_t>(At - Text.rfind('\n', At)) + 5; // past the quote and `y = `, at `model`

  auto R = P.run({"check", "--no-cache", "--format", "json", "nb.ipynb"});
  auto J = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(J)) << R.Out;
  bool Seen = false;
  for (const auto &F : *J->getAsArray()) {
    const auto *O = F.getAsObject();
    if (*O->getString("code") != "TL102")
      continue;
    Seen = true;
    EXPECT_EQ(O->getInteger("cell").getValueOr(0), 3);
    EXPECT_EQ(O->getObject("location")->getInteger("row").getValueOr(0), 3);
    EXPECT_EQ(O->getObject("location")->getInteger("column").getValueOr(0), 5);
    EXPECT_EQ(O->getInteger("noqa_row").getValueOr(0), 3);
  }
  EXPECT_TRUE(Seen) << R.Out;

  R = P.run({"check", "--no-cache", "--format", "sarif", "nb.ipynb"});
  J = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(J)) << R.Out;
  const auto *Results = J->getAsObject()->getArray("runs")->front().getAsObject()->getArray("results");
  Seen = false;
  for (const auto &Res : *Results) {
    const auto *O = Res.getAsObject();
    if (*O->getString("ruleId") != "TL102")
      continue;
    Seen = true;
    const auto *Loc = O->getArray("locations")->front().getAsObject();
    const auto *Region = Loc->getObject("physicalLocation")->getObject("region");
    EXPECT_EQ(Region->getInteger("startLine").getValueOr(0), FileLine);
    EXPECT_EQ(Region->getInteger("startColumn").getValueOr(0), FileColumn);
    EXPECT_EQ(Loc->getObject("properties")->getInteger("cell").getValueOr(0), 3);
    EXPECT_EQ(Loc->getObject("properties")->getInteger("cellLine").getValueOr(0), 3);
  }
  EXPECT_TRUE(Seen) << R.Out;

  R = P.run({"check", "--no-cache", "--format", "github", "nb.ipynb"});
  EXPECT_THAT(R.Out, HasSubstr("file=nb.ipynb,line=" + std::to_string(FileLine) + ",col=" + std::to_string(FileColumn)));
  EXPECT_THAT(R.Out, HasSubstr("::nb.ipynb:cell 3:3:5: TL102"));
  R = P.run({"check", "--no-cache", "--format", "gitlab", "nb.ipynb"});
  EXPECT_THAT(R.Out, HasSubstr("\"begin\": " + std::to_string(FileLine)));
  R = P.run({"check", "--no-cache", "--format", "junit", "nb.ipynb"});
  EXPECT_THAT(R.Out, HasSubstr("line=\"" + std::to_string(FileLine) + "\""));
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 3:3:5: TL102"));
}

TEST(NotebookCli, SuppressionsAndPerFileIgnores) {
  Project P;
  std::vector<Cell> Cells = Course;
  Cells[2].Lines[2] = "y = model(x)  # noqa: TL102";
  P.file("nb.ipynb", notebook(Cells));
  auto R = P.run({"check", "--no-cache", "--format", "concise", "nb.ipynb"});
  EXPECT_THAT(R.Out, Not(HasSubstr("TL102")));
  EXPECT_THAT(R.Out, HasSubstr("TL101"));
  P.file("pyproject.toml", "[tool.torchlint]\nper-file-ignores = { \"*.ipynb\" = [\"TL101\"] }\n");
  R = P.run({"check", "--no-cache", "."});
  EXPECT_EQ(R.Exit, 0) << R.Out;
  // A file-wide suppression in any cell holds for the whole notebook; standard input named as a
  // notebook is read as one.
  P.file("pyproject.toml", "[tool.torchlint]\n");
  Cells = Course;
  Cells[1].Lines.push_back("# torchlint: disable-file=TL102");
  R = P.run({"check", "--no-cache", "--format", "concise", "--stdin-filename", "nb.ipynb"}, notebook(Cells));
  EXPECT_THAT(R.Out, Not(HasSubstr("TL102")));
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 3:4:3: TL101"));
}

TEST(NotebookCli, SyntaxErrorStaysInItsCell) {
  Project P;
  P.file("nb.ipynb", notebook({{"code", {"import torch", "x = torch.ones((2, 3)"}},
                               {"code", {"y = 1"}},
                               {"code", {"def f(:", "    pass"}},
                               {"code", {"z = 2"}}}));
  auto R = P.run({"check", "--no-cache", "--format", "concise", "nb.ipynb"});
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 1:2:"));
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 3:1:"));
  EXPECT_THAT(R.Out, Not(HasSubstr("cell 2:"))) << R.Out;
  EXPECT_THAT(R.Out, Not(HasSubstr("cell 4:"))) << R.Out;
}

TEST(NotebookCli, FixRewritesOnlyTheChangedSourceLine) {
  Project P;
  std::string Before = notebook(Course);
  P.file("nb.ipynb", Before).file("bad.ipynb", "{\"cells\": [").file("old.ipynb", "{\"nbformat\": 3}\n");
  P.file("b.py", "import torch\nx = torch.ones(2)\nx.to(\"cuda\")\n");
  auto R = P.run({"check", "--no-cache", "--diff", "."});
  EXPECT_EQ(R.Exit, 2) << "the two broken notebooks are errors";
  EXPECT_THAT(R.Out, HasSubstr("--- nb.ipynb:cell 3\n+++ nb.ipynb:cell 3\n"));
  EXPECT_THAT(R.Out, HasSubstr("-x.to(\"cuda\")\n+x = x.to(\"cuda\")\n"));
  EXPECT_THAT(R.Out, HasSubstr(" !pip install tqdm\n")) << "the magic shows as written";
  EXPECT_THAT(R.Out, HasSubstr("+++ b.py")) << "the run goes on past the broken notebooks";
  EXPECT_EQ(P.read("nb.ipynb"), Before) << "--diff writes nothing";

  R = P.run({"check", "--no-cache", "--fix", "."});
  EXPECT_THAT(R.Err, HasSubstr("bad.ipynb: not a valid notebook"));
  EXPECT_THAT(R.Err, HasSubstr("old.ipynb: not a notebook in nbformat 4 (nbformat 3); left alone"));
  EXPECT_EQ(P.read("bad.ipynb"), "{\"cells\": [");
  EXPECT_EQ(P.read("b.py"), "import torch\nx = torch.ones(2)\nx = x.to(\"cuda\")\n");
  std::string Want = Before;
  std::string From = "    \"x.to(\\\"cuda\\\")\"\n";
  size_t At = Want.find(From);
  ASSERT_NE(At, std::string::npos);
  Want.replace(At, From.size(), "    \"x = x.to(\\\"cuda\\\")\"\n");
  EXPECT_EQ(P.read("nb.ipynb"), Want) << "every other byte, outputs and metadata included, as it was";
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 3:3:5: TL102")) << "what is left, placed in the fixed notebook";
  EXPECT_THAT(R.Out, Not(HasSubstr("TL101")));
  // Applied again, nothing changes.
  P.run({"check", "--no-cache", "--fix", "nb.ipynb"});
  EXPECT_EQ(P.read("nb.ipynb"), Want);

  // Through stdin: the whole notebook on stdout.
  R = P.run({"check", "--fix", "--stdin-filename", "nb.ipynb"}, Before);
  EXPECT_EQ(R.Out, Want);
}

// The unsafe rewrite to one device chosen at run time inserts a line after the imports and edits
// lines in later cells: each edit lands in its own cell, the magic stays as written.
TEST(NotebookCli, FixesAcrossCells) {
  Project P;
  std::string Before = notebook({{"code", {"import torch", "%load_ext autoreload"}},
                                 {"markdown", {"text"}},
                                 {"code", {"model = torch.nn.Linear(4, 2).cuda()", "x = torch.randn(2, 4).cuda()"}},
                                 {"code", {"y = model(x)"}}});
  P.file("nb.ipynb", Before);
  auto R = P.run({"check", "--no-cache", "--fix", "--unsafe-fixes", "--select", "ALL", "nb.ipynb"});
  std::string After = P.read("nb.ipynb");
  auto J = llvm::json::parse(After);
  ASSERT_TRUE(bool(J)) << After;
  const auto *Cells = J->getAsObject()->getArray("cells");
  ASSERT_EQ(Cells->size(), 4u);
  auto Source = [&](size_t I) {
    std::string S;
    for (const auto &L : *(*Cells)[I].getAsObject()->getArray("source"))
      S += L.getAsString()->str();
    return S;
  };
  EXPECT_THAT(Source(0), HasSubstr("%load_ext autoreload")) << Source(0);
  EXPECT_EQ(Source(1), "text");
  EXPECT_EQ(Source(3), "y = model(x)");
  if (After != Before) {
    EXPECT_THAT(Source(2), Not(HasSubstr(".cuda()"))) << Source(2);
    // Applied again, nothing changes.
    P.run({"check", "--no-cache", "--fix", "--unsafe-fixes", "--select", "ALL", "nb.ipynb"});
    EXPECT_EQ(P.read("nb.ipynb"), After);
  }
  EXPECT_THAT(R.Err, Not(HasSubstr("error"))) << R.Err;
}

TEST(NotebookCli, CachedLikeAFile) {
  Project P;
  P.file("nb.ipynb", notebook(Course));
  auto First = P.run({"check", "--cache-dir", "cache", "--format", "concise", "."});
  auto Second = P.run({"check", "--cache-dir", "cache", "--format", "concise", "."});
  EXPECT_EQ(First.Exit, 1);
  EXPECT_EQ(First.Out, Second.Out);
  EXPECT_THAT(Second.Out, HasSubstr("nb.ipynb:cell 3:3:5: TL102"));
  EXPECT_THAT(readFile(P.Root + "/cache/results.bin"), HasSubstr("nb.ipynb"));
  P.file("nb.ipynb", notebook({{"code", {"import torch"}}}));
  EXPECT_EQ(P.run({"check", "--cache-dir", "cache", "."}).Exit, 0) << "a changed notebook is linted again";
}

TEST(NotebookCli, ImportsTheProjectsModules) {
  Project P;
  P.file("pyproject.toml", "[project]\nname = \"p\"\n");
  P.file("data.py", "import torch\n\ndef make_batch(n):\n    return torch.randn(n, 4)\n");
  P.file("train.ipynb", notebook({{"code", {"import torch", "from data import make_batch"}},
                                  {"code", {"model = torch.nn.Linear(4, 2).cuda()", "out = model(make_batch(8))"}}}));
  auto R = P.run({"check", "--no-cache", "--format", "concise", "train.ipynb"});
  EXPECT_THAT(R.Out, HasSubstr("train.ipynb:cell 2:2:7: TL102")) << R.Out << R.Err;
  R = P.run({"check", "--no-cache", "--no-project", "--format", "concise", "train.ipynb"});
  EXPECT_THAT(R.Out, Not(HasSubstr("TL102")));
}

TEST(NotebookCli, ConfirmRunsTheCells) {
  Project P;
  P.file("bad.ipynb", "{\"nbformat\": 3}\n");
  auto R = P.run({"confirm", "--", "python3", "bad.ipynb"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("bad.ipynb: not a notebook in nbformat 4 (nbformat 3); left alone; it cannot be run"));
  if (torchPython().empty())
    GTEST_SKIP() << "no Python with torch (scripts/setup.sh installs Debian's python3-torch)";
  P.file("nb.ipynb", notebook({{"markdown", {"# Run"}},
                               {"code", {"%matplotlib inline", "import torch"}},
                               {"code", {"model = torch.nn.Linear(4, 2).to(\"cuda\")", "x = torch.randn(8, 4)"}},
                               {"code", {"!echo hi", "y = model(x)"}}}));
  R = P.run({"confirm", "--virtual-cuda", "1", "--format", "concise", "--", torchPython(), "nb.ipynb"});
  EXPECT_THAT(R.Out, HasSubstr("nb.ipynb:cell 4:2:5: TL102")) << R.Out << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("[confirmed]")) << R.Out << R.Err;
  EXPECT_THAT(R.Err, HasSubstr("ran nb.ipynb"));
  EXPECT_THAT(R.Err, HasSubstr("(nb.ipynb:cell 4:2)")) << "where the script failed, in its cell";
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(P.Root, EC), End; It != End && !EC; It.increment(EC))
    EXPECT_THAT(It->path(), Not(HasSubstr("torchlint-confirm"))) << "the script of the cells is removed";
}

} // namespace
} // namespace torchlint::test
