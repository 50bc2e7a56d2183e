// Notebooks in the language server (LSP 3.17 notebook sync): findings land on their cells at
// the positions the joined file has them, in either column unit; random cell edits and cell
// moves give what opening the notebook afresh gives; removed cells are cleared; requests on a
// cell; and the map of fix edits, which never reaches into another cell or an IPython line.
#include "LspTestUtil.h"

#include "lsp/Notebooks.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace torchlint::test {
namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

const std::string NbUri = "file:///tmp/torchlint-lsp-notebook/course.ipynb";

std::string cellUri(int I) { return "vscode-notebook-cell:/tmp/torchlint-lsp-notebook/course.ipynb#C" + std::to_string(I); }

struct Cell {
  std::string Uri;
  std::string Text;
  bool Code = true;
};

Value initializeWith(llvm::StringRef Encoding, bool Pull = false) {
  Object Caps{{"general", Object{{"positionEncodings", Array{Encoding}}}}};
  if (Pull)
    Caps["textDocument"] = Object{{"diagnostic", Object{}}};
  return request(1, "initialize", Object{{"capabilities", std::move(Caps)}});
}

Value openNotebook(const std::vector<Cell> &Cells, int Version = 1) {
  Array List, Docs;
  for (const Cell &C : Cells) {
    List.push_back(Object{{"kind", C.Code ? 2 : 1}, {"document", C.Uri}});
    Docs.push_back(Object{{"uri", C.Uri}, {"languageId", C.Code ? "python" : "markdown"}, {"version", 1}, {"text", C.Text}});
  }
  return notification("notebookDocument/didOpen",
                      Object{{"notebookDocument", Object{{"uri", NbUri},
                                                         {"notebookType", "jupyter-notebook"},
                                                         {"version", Version},
                                                         {"cells", std::move(List)}}},
                             {"cellTextDocuments", std::move(Docs)}});
}

Value changeNotebook(int Version, Object Cells) {
  return notification("notebookDocument/didChange",
                      Object{{"notebookDocument", Object{{"uri", NbUri}, {"version", Version}}},
                             {"change", Object{{"cells", std::move(Cells)}}}});
}

std::string str(const Value &V) {
  std::string S;
  llvm::raw_string_ostream(S) << V;
  return S;
}

/// The last diagnostics published for each URI in \p Msgs, as JSON text.
std::map<std::string, std::string> published(const std::vector<Value> &Msgs) {
  std::map<std::string, std::string> Out;
  for (const Value &M : Msgs) {
    const Object *O = M.getAsObject();
    if (O && O->getString("method") == llvm::StringRef("textDocument/publishDiagnostics"))
      if (const Object *P = O->getObject("params"))
        Out[P->getString("uri")->str()] = str(*P->get("diagnostics"));
  }
  return Out;
}

/// The findings of \p Text opened as a Python file, moved to the lines of the cell that starts
/// at 0-based line \p First and has \p Lines lines (those outside are dropped).
Array fileFindingsOf(const std::string &Text, llvm::StringRef Encoding, int First, int Lines) {
  LspHarness H;
  H.send({initializeWith(Encoding)});
  const std::string FileUri = "file:///tmp/torchlint-lsp-notebook/course.py";
  auto Out = published(H.send({didOpenNotification(FileUri, Text)}));
  Array Kept;
  auto All = llvm::json::parse(Out[FileUri]);
  EXPECT_TRUE(bool(All));
  for (Value &D : *All->getAsArray()) {
    Object &O = *D.getAsObject();
    Object &R = *O.getObject("range");
    int64_t L = *R.getObject("start")->getInteger("line");
    if (L < First || L >= First + Lines)
      continue;
    for (const char *End : {"start", "end"}) {
      Object &P = *R.getObject(End);
      P["line"] = *P.getInteger("line") - First;
    }
    O.erase("relatedInformation"); // notes point into the file, not the cells
    Kept.push_back(std::move(D));
  }
  return Kept;
}

const std::vector<Cell> Course = {
    {cellUri(0), "# A course\n", false},
    {cellUri(1), "%matplotlib inline\nimport torch\nfrom torch.utils.data import DataLoader\n"},
    {cellUri(2), "def train(dataset, device):\n"
                 "    s = \"h\u00e9llo \U0001F600\"; loader = DataLoader(dataset, batch_size=8)\n"
                 "    for images, labels in loader:\n"
                 "        t = \"\U0001F600\"; images.to(device)\n"},
    {cellUri(3), "!nvidia-smi\ncpu = torch.device(\"CPU\")"},
};

TEST(LspNotebook, FindingsLandOnTheirCellsWhereTheJoinedFileHasThem) {
  // The cells joined by hand, IPython lines as the comments they are read as.
  const std::string Joined = "#matplotlib inline\nimport torch\nfrom torch.utils.data import DataLoader\n" + Course[2].Text +
                             "#nvidia-smi\ncpu = torch.device(\"CPU\")\n";
  for (llvm::StringRef Encoding : {"utf-16", "utf-8"}) {
    LspHarness H;
    H.send({initializeWith(Encoding)});
    auto Out = published(H.send({openNotebook(Course)}));
    EXPECT_FALSE(Out.count(cellUri(0))) << "a markdown cell is not linted";
    EXPECT_EQ(Out[cellUri(1)], "[]");
    Array Cell2 = fileFindingsOf(Joined, Encoding, 3, 4);
    Array Cell3 = fileFindingsOf(Joined, Encoding, 7, 2);
    ASSERT_FALSE(Cell2.empty());
    ASSERT_FALSE(Cell3.empty());
    auto NoNotes = [](std::string Json) {
      auto V = llvm::json::parse(Json);
      for (Value &D : *V->getAsArray())
        D.getAsObject()->erase("relatedInformation");
      return str(*V);
    };
    EXPECT_EQ(NoNotes(Out[cellUri(2)]), str(Value(std::move(Cell2)))) << Encoding.str();
    EXPECT_EQ(NoNotes(Out[cellUri(3)]), str(Value(std::move(Cell3)))) << Encoding.str();
    // A note on another cell names that cell: `images` comes from the loader in cell 2 itself.
    EXPECT_NE(Out[cellUri(2)].find("\"uri\":\"" + cellUri(2) + "\""), std::string::npos) << Out[cellUri(2)];
  }
}

TEST(LspNotebook, RemovedAndMovedCellsFollowTheirFindings) {
  LspHarness H;
  H.send({initializeWith("utf-16")});
  auto Open = published(H.send({openNotebook(Course)}));
  ASSERT_NE(Open[cellUri(3)], "[]");
  // Cell 3 moved before cell 2 (no cell closed or opened): its finding stays on it, and the
  // module read in the new order still finds both.
  auto Moved = published(H.send({changeNotebook(
      2, Object{{"structure", Object{{"array", Object{{"start", 2}, {"deleteCount", 2},
                                                      {"cells", Array{Object{{"kind", 2}, {"document", cellUri(3)}},
                                                                      Object{{"kind", 2}, {"document", cellUri(2)}}}}}}}}})}));
  EXPECT_NE(Moved[cellUri(3)], "[]");
  EXPECT_EQ(Moved[cellUri(3)].find("\"line\":1"), Moved[cellUri(3)].find("\"line\""));
  EXPECT_NE(Moved[cellUri(2)], "[]");
  // Cell 2 deleted and closed: it is cleared, and the rest re-linted without it.
  auto Deleted = published(H.send({changeNotebook(
      3, Object{{"structure", Object{{"array", Object{{"start", 3}, {"deleteCount", 1}}},
                                     {"didClose", Array{Object{{"uri", cellUri(2)}}}}}}})}));
  EXPECT_EQ(Deleted[cellUri(2)], "[]");
  EXPECT_NE(Deleted[cellUri(3)], "[]");
  // A cell turned into markdown (cells.data) is cleared too.
  auto Markdown = published(H.send({changeNotebook(4, Object{{"data", Array{Object{{"kind", 1}, {"document", cellUri(3)}}}}})}));
  EXPECT_EQ(Markdown[cellUri(3)], "[]");
  // Closing clears every cell the notebook holds.
  auto Closed = published(H.send({notification("notebookDocument/didClose",
                                               Object{{"notebookDocument", Object{{"uri", NbUri}}},
                                                      {"cellTextDocuments", Array{Object{{"uri", cellUri(2)}}}}})}));
  for (int I = 1; I <= 3; ++I)
    EXPECT_EQ(Closed[cellUri(I)], "[]") << I;
  EXPECT_EQ(H.server().openDocuments(), 0u);
}

TEST(LspNotebook, RandomCellEditsGiveWhatAFreshOpenGives) {
  // Random edits in random cells (snippets that make and unmake findings, magics, newlines,
  // non-ASCII text), and now and then a cell moved to the front; after each, every cell's
  // findings must be those of the same cells opened afresh. The module edits are ranged, so
  // this holds the incremental reparse and the unit re-lint to the cells' map too.
  const std::vector<std::string> Snippets = {"x", "\n", "(", ")", "%time ", "!ls\n", ".to(device)", "    ",
                                             "\u00e9", "\U0001F600", "torch.load(p)\n", "#", ":"};
  std::mt19937 Rng(4711);
  std::vector<Cell> Cells(Course.begin() + 1, Course.end());
  LspHarness Inc;
  Inc.send({initializeWith("utf-16")});
  Inc.send({openNotebook(Cells)});
  for (int Step = 0; Step < 80; ++Step) {
    Value Change = nullptr;
    if (Step % 10 == 9) {
      std::rotate(Cells.begin(), Cells.end() - 1, Cells.end());
      Array Order;
      for (const Cell &C : Cells)
        Order.push_back(Object{{"kind", 2}, {"document", C.Uri}});
      Change = changeNotebook(Step + 2, Object{{"structure", Object{{"array", Object{{"start", 0},
                                                                                    {"deleteCount", Cells.size()},
                                                                                    {"cells", std::move(Order)}}}}}});
    } else {
      Cell &C = Cells[Rng() % Cells.size()];
      // A code-point boundary, then its line and UTF-16 column.
      size_t B = Rng() % (C.Text.size() + 1);
      while (B < C.Text.size() && (static_cast<unsigned char>(C.Text[B]) & 0xC0) == 0x80)
        ++B;
      auto PosOf = [&](size_t Off) {
        int Line = 0, Col = 0;
        for (size_t I = 0; I < Off; ++I) {
          unsigned char Ch = static_cast<unsigned char>(C.Text[I]);
          if (Ch == '\n') {
            ++Line;
            Col = 0;
          } else if ((Ch & 0xC0) != 0x80) {
            Col += Ch >= 0xF0 ? 2 : 1;
          }
        }
        return Object{{"line", Line}, {"character", Col}};
      };
      size_t E = B;
      std::string Insert;
      if (Rng() % 3 == 0) {
        for (int N = 1 + static_cast<int>(Rng() % 4); N > 0 && E < C.Text.size() && C.Text[E] != '\n'; --N)
          do
            ++E;
          while (E < C.Text.size() && (static_cast<unsigned char>(C.Text[E]) & 0xC0) == 0x80);
      } else {
        Insert = Snippets[Rng() % Snippets.size()];
      }
      Object Range{{"start", PosOf(B)}, {"end", PosOf(E)}};
      C.Text.replace(B, E - B, Insert);
      Change = changeNotebook(
          Step + 2, Object{{"textContent", Array{Object{{"document", Object{{"uri", C.Uri}, {"version", Step + 2}}},
                                                        {"changes", Array{Object{{"range", std::move(Range)}, {"text", Insert}}}}}}}});
    }
    auto Got = published(Inc.send({std::move(Change)}));
    LspHarness Fresh;
    Fresh.send({initializeWith("utf-16")});
    auto Want = published(Fresh.send({openNotebook(Cells)}));
    for (const Cell &C : Cells)
      ASSERT_EQ(Got[C.Uri], Want[C.Uri]) << "step " << Step << ", cell " << C.Uri << ":\n" << C.Text;
  }
}

TEST(LspNotebook, QueuedCellEditsAreLintedOnceInUtf8) {
  // Two edits the client wrote together: the first is applied without a lint of its own, and
  // the findings published are those of the text after both (ranges in UTF-8 bytes).
  LspHarness H;
  H.send({initializeWith("utf-8")});
  H.send({openNotebook(Course)});
  auto Edit = [](int Version, int Line, int Col, const std::string &Text) {
    Object Range{{"start", Object{{"line", Line}, {"character", Col}}}, {"end", Object{{"line", Line}, {"character", Col}}}};
    return changeNotebook(Version, Object{{"textContent", Array{Object{{"document", Object{{"uri", cellUri(2)}, {"version", Version}}},
                                                                       {"changes", Array{Object{{"range", std::move(Range)},
                                                                                                {"text", Text}}}}}}}});
  };
  // Line 3 of cell 2 is `        t = "😀"; images.to(device)`: the move is assigned, in two steps.
  size_t Before = H.server().editStats().Lints;
  auto Out = published(H.send({Edit(2, 3, 20, "images"), Edit(3, 3, 26, " = ")}));
  EXPECT_EQ(H.server().editStats().Merged, 1u);
  EXPECT_EQ(H.server().editStats().Lints, Before + 1);
  EXPECT_EQ(Out[cellUri(2)], "[]");
  EXPECT_NE(Out[cellUri(3)], "[]");
}

TEST(LspNotebook, RequestsOnACell) {
  LspHarness H;
  H.send({initializeWith("utf-16", /*Pull=*/true)});
  H.send({openNotebook(Course)});
  auto Diags = H.send({request(2, "textDocument/diagnostic", Object{{"textDocument", Object{{"uri", cellUri(3)}}}})});
  ASSERT_EQ(Diags.size(), 1u);
  const Array *Items = Diags[0].getAsObject()->getObject("result")->getArray("items");
  ASSERT_TRUE(Items && Items->size() == 1) << str(Diags[0]);
  EXPECT_EQ(*(*Items)[0].getAsObject()->getString("code"), "TL107") << "an invalid device string";
  EXPECT_EQ(*(*Items)[0].getAsObject()->getObject("range")->getObject("start")->getInteger("line"), 1);

  auto Hover = H.send({request(3, "textDocument/hover", Object{{"textDocument", Object{{"uri", cellUri(3)}}},
                                                              {"position", Object{{"line", 1}, {"character", 20}}}})});
  ASSERT_EQ(Hover.size(), 1u);
  EXPECT_NE(str(Hover[0]).find("TL107"), std::string::npos) << str(Hover[0]);
  auto Nothing = H.send({request(4, "textDocument/hover", Object{{"textDocument", Object{{"uri", cellUri(1)}}},
                                                                {"position", Object{{"line", 1}, {"character", 10}}}})});
  EXPECT_EQ(str(Nothing[0]), R"({"id":4,"jsonrpc":"2.0","result":null})");

  // A code action over the whole cell: the fix and the disable edit, both on this cell.
  auto Actions = H.send({request(5, "textDocument/codeAction",
                                 Object{{"textDocument", Object{{"uri", cellUri(3)}}},
                                        {"range", Object{{"start", Object{{"line", 0}, {"character", 0}}},
                                                         {"end", Object{{"line", 1}, {"character", 30}}}}},
                                        {"context", Object{{"diagnostics", Array{}}}}})});
  ASSERT_EQ(Actions.size(), 1u);
  std::string A = str(Actions[0]);
  EXPECT_NE(A.find("Disable TL107 for this line"), std::string::npos) << A;
  EXPECT_NE(A.find(R"({"newText":"cpu","range":{"end":{"character":23,"line":1},"start":{"character":20,"line":1}}})"),
            std::string::npos)
      << A;
  EXPECT_EQ(A.find(cellUri(2)), std::string::npos) << "no edit of another cell: " << A;
  EXPECT_EQ(A.find("fixAll"), std::string::npos) << "fix-all is the CLI's for a notebook: " << A;
}

TEST(LspNotebook, FixEditsStayInOneCellAndOffIPythonLines) {
  lsp::DidOpenNotebookDocumentParams P;
  P.notebookDocument.uri = NbUri;
  for (int I = 0; I < 2; ++I)
    P.notebookDocument.cells.push_back({lsp::NotebookCellKind::Code, cellUri(I)});
  P.cellTextDocuments.push_back({cellUri(0), "python", 1, "%time x = 1\nimport torch"});
  P.cellTextDocuments.push_back({cellUri(1), "python", 1, "y = 2\n"});
  lsp::Notebook Nb(P);
  SourceFile M("nb.ipynb", Nb.join());
  ASSERT_EQ(M.text(), "#time x = 1\nimport torch\ny = 2\n");
  auto Edit = [&](uint32_t B, uint32_t E) { return Nb.editRange(M, {B, E}, ColumnUnit::Utf16Units); };
  EXPECT_FALSE(Edit(6, 7)) << "inside the magic";
  EXPECT_FALSE(Edit(0, 12)) << "the whole magic line";
  EXPECT_TRUE(Edit(0, 0)) << "an insertion before it leaves it as it is";
  EXPECT_FALSE(Edit(12, 26)) << "from one cell into the next";
  // The cell's last line, up to where the next cell starts: the end of this cell.
  auto Last = Edit(12, 25);
  ASSERT_TRUE(Last);
  EXPECT_EQ(Last->start.line, 1);
  EXPECT_EQ(Last->end.line, 1);
  EXPECT_EQ(Last->end.character, 12);
  auto Second = Edit(25, 26);
  ASSERT_TRUE(Second);
  EXPECT_EQ(Nb.cellAt(M, 25), 1u);
  EXPECT_EQ(Second->start.line, 0);
  EXPECT_EQ(Second->end.character, 1);
  EXPECT_EQ(Nb.offset(M, 1, {0, 1}, ColumnUnit::Utf16Units), 26u);
  EXPECT_EQ(Nb.offset(M, 0, {7, 0}, ColumnUnit::Utf16Units), 24u) << "past the cell: its end";
}

} // namespace
} // namespace torchlint::test
