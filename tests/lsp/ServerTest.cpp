// An in-process LSP client: random incremental edits must give the same diagnostics as
// opening the final text afresh (incremental reparsing is only an optimisation), fix-all
// must leave nothing safely fixable, and the binary's delimited mode and exit statuses.
#include "LspTestUtil.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <random>

namespace torchlint::test {
namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

Value initialize() { return initializeRequest(); }
Value didOpen(const std::string &Uri, const std::string &Text) { return didOpenNotification(Uri, Text); }

/// The diagnostics of the last publishDiagnostics for \p Uri in \p Msgs.
const Array *lastDiagnostics(const std::vector<Value> &Msgs, const std::string &Uri) {
  const Array *Out = nullptr;
  for (const auto &M : Msgs) {
    const Object *O = M.getAsObject();
    if (O && O->getString("method") == llvm::StringRef("textDocument/publishDiagnostics"))
      if (const Object *P = O->getObject("params"); P && P->getString("uri") == llvm::StringRef(Uri))
        Out = P->getArray("diagnostics");
  }
  return Out;
}

std::string str(const Value &V) {
  std::string S;
  llvm::raw_string_ostream(S) << V;
  return S;
}

/// UTF-16 length of a line (the protocol's default columns).
int utf16Length(llvm::StringRef S) {
  int N = 0;
  for (size_t I = 0; I < S.size(); ++I) {
    unsigned char C = static_cast<unsigned char>(S[I]);
    if ((C & 0xC0) == 0x80)
      continue;
    N += C >= 0xF0 ? 2 : 1;
  }
  return N;
}

const char *Base = "import torch\n"
                   "from torch.utils.data import DataLoader\n"
                   "\n"
                   "\n"
                   "def train(dataset, model, device):\n"
                   "    loader = DataLoader(dataset, batch_size=8)\n"
                   "    s = \"h\u00e9llo \U0001F600\"\n"
                   "    for images, labels in loader:\n"
                   "        images.to(device)\n"
                   "        labels = labels.to(\"CPU\")\n"
                   "        state = torch.load(\"ckpt.pt\")\n"
                   "        model.cuda()\n";

TEST(LspServer, IncrementalEditsMatchAFreshParse) {
  // Random edits (insertions and deletions of snippets that make and unmake findings,
  // newlines and non-ASCII text) at random UTF-16 positions; after each, the incrementally
  // reparsed document must lint exactly as the same text opened from scratch.
  const std::string Uri = "file:///tmp/torchlint-lsp-incremental/a.py";
  const std::vector<std::string> Snippets = {"x", "\n", "(", ")", "\"CPU\"", ".to(device)", "    ", "\u00e9",
                                             "\U0001F600", "torch.load(p)\n", "#", "\"\"\"", ":"};
  std::mt19937 Rng(1234);
  LspHarness Inc;
  Inc.send({initialize()});
  std::string Text = Base;
  Inc.send({didOpen(Uri, Text)});
  for (int Step = 0; Step < 150; ++Step) {
    // Pick a line and a UTF-16 column on it, then a code-point-aligned byte offset.
    llvm::SmallVector<llvm::StringRef> Lines;
    llvm::StringRef(Text).split(Lines, '\n');
    int Line = static_cast<int>(Rng() % Lines.size());
    int Len = utf16Length(Lines[Line]);
    int Col = Len ? static_cast<int>(Rng() % (Len + 1)) : 0;
    size_t LineStart = 0;
    for (int I = 0; I < Line; ++I)
      LineStart += Lines[I].size() + 1;
    auto ByteOf = [&](int Units) {
      size_t B = LineStart;
      int U = 0;
      while (U < Units && B < LineStart + Lines[Line].size()) {
        unsigned char C = static_cast<unsigned char>(Text[B]);
        size_t L = C < 0x80 ? 1 : C >= 0xF0 ? 4 : C >= 0xE0 ? 3 : 2;
        U += L == 4 ? 2 : 1;
        B += L;
      }
      return B;
    };
    bool Delete = Rng() % 3 == 0 && Col < Len;
    int EndCol = Delete ? Col + 1 + static_cast<int>(Rng() % std::min(4, Len - Col)) : Col;
    size_t B = ByteOf(Col), E = ByteOf(EndCol);
    // A column inside a surrogate pair rounds up past the character, as the server does.
    std::string Insert = Delete ? "" : Snippets[Rng() % Snippets.size()];
    Text.replace(B, E - B, Insert);
    Object Change{{"range", Object{{"start", Object{{"line", Line}, {"character", Col}}},
                                   {"end", Object{{"line", Line}, {"character", EndCol}}}}},
                  {"text", Insert}};
    auto Out = Inc.send({notification(
        "textDocument/didChange",
        Object{{"textDocument", Object{{"uri", Uri}, {"version", Step + 2}}}, {"contentChanges", Array{std::move(Change)}}})});
    const Array *Got = lastDiagnostics(Out, Uri);
    ASSERT_NE(Got, nullptr) << "no diagnostics after step " << Step;

    LspHarness Fresh;
    Fresh.send({initialize()});
    auto FreshOut = Fresh.send({didOpen(Uri, Text)});
    const Array *Want = lastDiagnostics(FreshOut, Uri);
    ASSERT_NE(Want, nullptr);
    ASSERT_EQ(str(Value(Array(*Got))), str(Value(Array(*Want)))) << "step " << Step << ", text:\n" << Text;
  }
}

/// The ids of the responses in \p Out.
std::vector<int64_t> responseIds(const std::vector<Value> &Out) {
  std::vector<int64_t> Ids;
  for (const Value &M : Out)
    if (const Object *O = M.getAsObject(); O && (O->get("result") || O->get("error")))
      if (auto Id = O->getInteger("id"))
        Ids.push_back(*Id);
  return Ids;
}

TEST(LspTransport, ResynchronisesAfterAWrongContentLength) {
  auto body = [](const Value &V) {
    std::string B;
    llvm::raw_string_ostream(B) << V;
    return B;
  };
  std::string Init = frame(body(initializeRequest()));
  std::string Next = frame(body(request(7, "textDocument/hover", Object{{"textDocument", Object{{"uri", "file:///a.py"}}},
                                                                      {"position", Object{{"line", 0}, {"character", 0}}}}))) +
                     frame(body(request(8, "shutdown", nullptr)));
  // Too short, too long by a few bytes (the next header is cut), too long by far (the rest
  // of the stream is shorter than the claim): each bad message is answered with one error,
  // and the messages after it are read as the client framed them.
  for (long Delta : {-7L, -1L, 3L, 9L, 25L, 100000L}) {
    std::string Bad = body(request(2, "shutdown", nullptr));
    std::string Bytes = Init + "Content-Length: " + std::to_string(static_cast<long>(Bad.size()) + Delta) + "\r\n\r\n" +
                        Bad + Next;
    LspHarness H;
    std::vector<int64_t> Ids = responseIds(H.feedRaw(Bytes));
    EXPECT_EQ(Ids, (std::vector<int64_t>{1, 7, 8})) << "Content-Length off by " << Delta;
  }
  // Garbage before a header on its own line, and a long line of garbage glued to a header.
  for (std::string Junk : {std::string("garbage\r\n"), std::string(10000, 'x')}) {
    LspHarness H;
    EXPECT_EQ(responseIds(H.feedRaw(Init + Junk + Next)), (std::vector<int64_t>{1, 7, 8})) << Junk.size();
  }
}

TEST(LspServer, FixAllLeavesNothingSafeToFix) {
  std::string Dir = tempDir();
  writeFile(Dir + "/torchlint.toml", "extend-select = [\"TL301\"]\n"); // opt-in: a finding with an unsafe fix
  const std::string Uri = lsp::pathToUri(Dir + "/a.py");
  LspHarness H;
  H.send({initialize()});
  H.send({didOpen(Uri, Base)});
  auto Out = H.send({request(2, "textDocument/codeAction",
                             Object{{"textDocument", Object{{"uri", Uri}}},
                                    {"range", Object{{"start", Object{{"line", 0}, {"character", 0}}},
                                                     {"end", Object{{"line", 0}, {"character", 0}}}}},
                                    {"context", Object{{"diagnostics", Array{}}, {"only", Array{"source.fixAll"}}}}})});
  ASSERT_EQ(Out.size(), 1u);
  const Array *Actions = Out[0].getAsObject()->getArray("result");
  ASSERT_TRUE(Actions && Actions->size() == 1) << str(Out[0]);
  const Object *Edit = (*Actions)[0].getAsObject()->getObject("edit");
  const Array *Edits = Edit->getObject("changes")->getArray(Uri);
  ASSERT_TRUE(Edits && Edits->size() == 1);
  // Apply the one edit as the editor would, then ask again: nothing safe is left.
  auto Applied = H.send({notification(
      "textDocument/didChange",
      Object{{"textDocument", Object{{"uri", Uri}, {"version", 2}}},
             {"contentChanges", Array{Object{{"range", *(*Edits)[0].getAsObject()->get("range")},
                                             {"text", *(*Edits)[0].getAsObject()->getString("newText")}}}}})});
  const Array *After = lastDiagnostics(Applied, Uri);
  ASSERT_NE(After, nullptr);
  std::set<std::string> Codes;
  for (const auto &D : *After)
    Codes.insert(D.getAsObject()->getString("code")->str());
  EXPECT_FALSE(Codes.count("TL107")) << str(Value(Array(*After)));
  EXPECT_TRUE(Codes.count("TL301")) << "unsafe fixes are not part of fix-all";
  auto Again = H.send({request(3, "textDocument/codeAction",
                               Object{{"textDocument", Object{{"uri", Uri}}},
                                      {"range", Object{{"start", Object{{"line", 0}, {"character", 0}}},
                                                       {"end", Object{{"line", 0}, {"character", 0}}}}},
                                      {"context", Object{{"diagnostics", Array{}}, {"only", Array{"source.fixAll"}}}}})});
  ASSERT_EQ(Again.size(), 1u);
  EXPECT_EQ(str(Again[0]), R"({"id":3,"jsonrpc":"2.0","result":[]})");
}

TEST(LspServer, QuickFixRewritesTheFileToOneDevice) {
  // TL106's first finding carries the unsafe rewrite of the whole file (the same edits as
  // `--unsafe-fixes`): the editor offers it as a quick fix on that line.
  std::string Dir = tempDir();
  const std::string Uri = lsp::pathToUri(Dir + "/train.py");
  const std::string Text = "import torch\n"
                           "x = torch.ones(2).to(\"cuda:1\")\n"
                           "y = torch.zeros(2, device=\"cuda:0\")\n";
  LspHarness H;
  H.send({initialize()});
  H.send({didOpen(Uri, Text)});
  auto Out = H.send({request(2, "textDocument/codeAction",
                             Object{{"textDocument", Object{{"uri", Uri}}},
                                    {"range", Object{{"start", Object{{"line", 1}, {"character", 0}}},
                                                     {"end", Object{{"line", 1}, {"character", 30}}}}},
                                    {"context", Object{{"diagnostics", Array{}}}}})});
  ASSERT_EQ(Out.size(), 1u);
  const Array *Actions = Out[0].getAsObject()->getArray("result");
  ASSERT_NE(Actions, nullptr);
  const Object *Rewrite = nullptr;
  for (const auto &A : *Actions)
    if (auto T = A.getAsObject()->getString("title"); T && T->contains("Choose the device once"))
      Rewrite = A.getAsObject();
  ASSERT_NE(Rewrite, nullptr) << str(Out[0]);
  const Array *Edits = Rewrite->getObject("edit")->getObject("changes")->getArray(Uri);
  ASSERT_NE(Edits, nullptr);
  EXPECT_EQ(Edits->size(), 3u) << str(Value(Array(*Edits))); // the choice, then both placements
}

TEST(LspBinary, DelimitedSessionExitsZeroAfterShutdown) {
  std::string In = "# a hand-written session\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{}}}\n---\n"
                   "{\"jsonrpc\":\"2.0\",\"id\":2,\n \"method\":\"shutdown\"}\n---\n"
                   "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}\n";
  RunResult R = runTorchlint({"lsp", "--input-style=delimited"}, TORCHLINT_SOURCE_DIR, In);
  EXPECT_EQ(R.Exit, 0) << R.Err;
  auto Msgs = unframe(R.Out);
  ASSERT_EQ(Msgs.size(), 2u) << R.Out;
  EXPECT_EQ(str(*Msgs[1].getAsObject()->get("id")), "2");
}

TEST(LspBinary, EndOfInputWithoutExitIsStatusOne) {
  RunResult R = runTorchlint({"lsp"}, TORCHLINT_SOURCE_DIR,
                             frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}})"));
  EXPECT_EQ(R.Exit, 1);
  EXPECT_EQ(unframe(R.Out).size(), 1u);
}

TEST(LspBinary, UnknownOptionIsAUsageError) {
  RunResult R = runTorchlint({"lsp", "--bogus"}, TORCHLINT_SOURCE_DIR, "");
  EXPECT_EQ(R.Exit, 2);
  EXPECT_NE(R.Err.find("unknown option `--bogus`"), std::string::npos) << R.Err;
}

} // namespace
} // namespace torchlint::test

namespace torchlint::test {
namespace {

/// The diagnostics codes a publishDiagnostics for \p Uri in \p Out carries (nullopt: none sent).
std::optional<std::vector<std::string>> publishedCodes(const std::vector<Value> &Out, const std::string &Uri) {
  std::optional<std::vector<std::string>> Codes;
  for (const Value &M : Out) {
    const Object *O = M.getAsObject();
    if (!O || O->getString("method") != llvm::StringRef("textDocument/publishDiagnostics"))
      continue;
    const Object *P = O->getObject("params");
    if (P->getString("uri") != llvm::StringRef(Uri))
      continue;
    Codes.emplace();
    for (const Value &D : *P->getArray("diagnostics"))
      Codes->push_back(D.getAsObject()->getString("code")->str());
  }
  return Codes;
}

TEST(LspProject, AnEditOfAnImportedModuleRepublishesItsImporters) {
  // train.py feeds the model what data.py's helper builds. The editor has both open; making
  // the helper build on the caller's device (unsaved) clears train.py's finding, and undoing
  // it brings the finding back, without train.py being touched.
  std::string Dir = tempDir();
  writeFile(Dir + "/pyproject.toml", "[project]\nname = \"p\"\n");
  const std::string Data = "import torch\n\n\ndef batch(n):\n    return torch.randn(n, 4)\n";
  const std::string Placed = "import torch\n\n\ndef batch(n, device=None):\n    return torch.randn(n, 4, device=device)\n";
  const std::string Train = "import torch\nimport torch.nn as nn\nfrom data import batch\n\n"
                            "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
                            "model = nn.Linear(4, 2).to(device)\nout = model(batch(3))\n";
  writeFile(Dir + "/data.py", Data);
  writeFile(Dir + "/train.py", Train);
  const std::string DataUri = lsp::pathToUri(Dir + "/data.py"), TrainUri = lsp::pathToUri(Dir + "/train.py");
  LspHarness H;
  H.send({initialize()});
  auto Opened = H.send({didOpen(TrainUri, Train), didOpen(DataUri, Data)});
  EXPECT_EQ(publishedCodes(Opened, TrainUri), std::vector<std::string>{"TL102"}) << str(Value(Array(Opened)));
  auto Change = [&](int Version, const std::string &Text) {
    auto Out = H.send({notification("textDocument/didChange",
                                    Object{{"textDocument", Object{{"uri", DataUri}, {"version", Version}}},
                                           {"contentChanges", Array{Object{{"text", Text}}}}})});
    EXPECT_EQ(publishedCodes(Out, TrainUri), std::nullopt) << "importers wait for the editor to be idle";
    return H.idle();
  };
  auto Fixed = Change(2, Placed);
  EXPECT_EQ(publishedCodes(Fixed, TrainUri), std::vector<std::string>{}) << str(Value(Array(Fixed)));
  auto Undone = Change(3, Data);
  EXPECT_EQ(publishedCodes(Undone, TrainUri), std::vector<std::string>{"TL102"}) << str(Value(Array(Undone)));
}


/// A ranged didChange of \p Uri: bytes [B, E) of \p Text (ASCII) become \p Insert.
Value rangedChange(const std::string &Uri, int Version, const std::string &Text, size_t B, size_t E,
                   const std::string &Insert) {
  auto Pos = [&](size_t Off) {
    int64_t Line = std::count(Text.begin(), Text.begin() + static_cast<long>(Off), '\n');
    size_t NL = Off == 0 ? std::string::npos : Text.rfind('\n', Off - 1);
    int64_t Col = static_cast<int64_t>(NL == std::string::npos ? Off : Off - NL - 1);
    return Object{{"line", Line}, {"character", Col}};
  };
  return notification("textDocument/didChange",
                      Object{{"textDocument", Object{{"uri", Uri}, {"version", Version}}},
                             {"contentChanges", Array{Object{{"range", Object{{"start", Pos(B)}, {"end", Pos(E)}}},
                                                             {"text", Insert}}}}});
}

TEST(LspServer, QueuedEditsAreLintedOnceBeforeAPullIsAnswered) {
  // A client that sends edits faster than they are linted (here: all at once, more than the
  // server reads ahead) gets its pull request answered after one lint of the latest text, and
  // that answer is what a whole-file lint of the text says.
  const std::string Uri = "file:///tmp/torchlint-lsp-merge/a.py";
  Value PullInit = request(1, "initialize", Object{{"capabilities", Object{{"textDocument", Object{{"diagnostic", Object{}}}}}}});
  auto Pull = [&](int Id) {
    return request(Id, "textDocument/diagnostic", Object{{"textDocument", Object{{"uri", Uri}}}});
  };
  auto Items = [](const std::vector<Value> &Out, int Id) {
    for (const Value &M : Out)
      if (const Object *O = M.getAsObject(); O && O->getInteger("id") == int64_t(Id))
        if (const Object *R = O->getObject("result"))
          if (const Value *I = R->get("items"))
            return str(*I);
    return std::string("<no answer>");
  };
  // Typing a statement with a finding into train(), a character at a time, with a typo made
  // and taken back every tenth character.
  std::string Text = Base;
  const std::string Typed = "        x = torch.zeros(3).to(\"CPU\")\n"
                            "        y = x.double()\n"
                            "        scale = torch.ones(3) * 2 + torch.arange(3)\n"
                            "        total = (x + y + scale).sum() / 3\n"
                            "        print(total.item(), scale.mean().item())\n"
                            "        extra = [float(v) for v in scale.tolist()]\n";
  size_t At = Text.find("        state = torch.load");
  ASSERT_NE(At, std::string::npos);
  LspHarness H;
  H.send({PullInit});
  H.send({didOpen(Uri, Text)});
  std::vector<Value> Edits;
  int Version = 1;
  for (size_t I = 0; I < Typed.size(); ++I) {
    if (I % 10 == 5) {
      Edits.push_back(rangedChange(Uri, ++Version, Text, At, At, "q"));
      Edits.push_back(rangedChange(Uri, ++Version, Text.substr(0, At) + "q" + Text.substr(At), At, At + 1, ""));
    }
    Edits.push_back(rangedChange(Uri, ++Version, Text, At, At, Typed.substr(I, 1)));
    Text.insert(At, 1, Typed[I]);
    ++At;
  }
  ASSERT_GT(Edits.size(), 256u); // more than the server reads ahead at once
  const lsp::EditStats Before = H.server().editStats();
  Edits.push_back(Pull(2));
  auto Out = H.send(Edits);
  const lsp::EditStats &After = H.server().editStats();
  EXPECT_EQ(After.Lints - Before.Lints, 1u) << "the queued edits are linted once, after the last";
  EXPECT_EQ(After.Merged - Before.Merged, Edits.size() - 2);

  LspHarness Fresh;
  Fresh.send({PullInit});
  Fresh.send({didOpen(Uri, Text)});
  std::string Want = Items(Fresh.send({Pull(2)}), 2);
  EXPECT_NE(Want, "[]");
  EXPECT_EQ(Items(Out, 2), Want);
  EXPECT_NE(Want.find("TL107"), std::string::npos) << "the typed finding: " << Want;

  // Pushed diagnostics: one publish, of the last version, for edits queued together.
  LspHarness Push;
  Push.send({initialize()});
  Push.send({didOpen(Uri, Base)});
  std::string Cur = Base;
  std::vector<Value> More;
  size_t P = Cur.find("        model.cuda()");
  for (int V = 2; V < 12; ++V) {
    More.push_back(rangedChange(Uri, V, Cur, P, P, "#"));
    Cur.insert(P, "#");
  }
  auto Published = Push.send(More);
  size_t Publishes = 0;
  for (const Value &M : Published)
    if (const Object *O = M.getAsObject(); O && O->getString("method") == llvm::StringRef("textDocument/publishDiagnostics")) {
      ++Publishes;
      EXPECT_EQ(O->getObject("params")->getInteger("version"), int64_t(11));
    }
  EXPECT_EQ(Publishes, 1u);
}

} // namespace
} // namespace torchlint::test
