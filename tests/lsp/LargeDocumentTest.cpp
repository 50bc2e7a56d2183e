// A large document keeps the server answering: requests written behind its didOpen are answered
// before its lint ends (from what is known: nothing yet of that document), `shutdown` without
// waiting for the lint, and `exit` ends the server; a lint made stale by a later change of its
// document is given up, and what is published is the last text's. The checks are of order and
// counts, not of time (the benchmark measures time: bench/lsp_bench.cpp).
#include "LspTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

namespace torchlint::test {
namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

/// A training script of at least \p Bytes bytes: a module class and a training loop per block,
/// a finding (TL107) in every 25th.
std::string largeScript(size_t Bytes) {
  std::string S = "import torch\nimport torch.nn as nn\n\n";
  for (unsigned N = 0; S.size() < Bytes; ++N) {
    std::string I = std::to_string(N);
    S += "\n\nclass Block" + I + "(nn.Module):\n"
         "    def __init__(self, width):\n"
         "        super().__init__()\n"
         "        self.proj = nn.Linear(width, width)\n"
         "\n"
         "    def forward(self, x):\n"
         "        return torch.relu(self.proj(x)) + x\n"
         "\n\n"
         "def train_" + I + "(model, loader, device):\n"
         "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
         "    for inputs, targets in loader:\n"
         "        inputs = inputs.to(device)\n"
         "        loss = torch.nn.functional.mse_loss(model(inputs), targets.to(device))\n"
         "        opt.zero_grad()\n"
         "        loss.backward()\n"
         "        opt.step()\n"
         "    return model.to(" + std::string(N % 25 == 1 ? "\"CPU\"" : "device") + ")\n";
  }
  return S;
}

std::vector<std::string> methods(const std::vector<Value> &Msgs) {
  std::vector<std::string> Out;
  for (const auto &M : Msgs) {
    const Object *O = M.getAsObject();
    auto Method = O ? O->getString("method") : llvm::None;
    Out.push_back(Method ? Method->str() : "reply " + std::to_string(O && O->getInteger("id") ? *O->getInteger("id") : -1));
  }
  return Out;
}

Value didChange(const std::string &Uri, int Version, int Line, const std::string &Text) {
  auto Pos = [&] { return Object{{"line", Line}, {"character", 0}}; };
  Object Change{{"range", Object{{"start", Pos()}, {"end", Pos()}}}, {"text", Text}};
  Array Changes;
  Changes.push_back(std::move(Change));
  return notification("textDocument/didChange", Object{{"textDocument", Object{{"uri", Uri}, {"version", Version}}},
                                                       {"contentChanges", std::move(Changes)}});
}

Value hoverRequest(int Id, const std::string &Uri, int Line, int Character = 0) {
  return request(Id, "textDocument/hover", Object{{"textDocument", Object{{"uri", Uri}}},
                                                  {"position", Object{{"line", Line}, {"character", Character}}}});
}

Value codeActionRequest(int Id, const std::string &Uri, int Line) {
  auto Pos = [&](int Char) { return Object{{"line", Line}, {"character", Char}}; };
  return request(Id, "textDocument/codeAction",
                 Object{{"textDocument", Object{{"uri", Uri}}},
                        {"range", Object{{"start", Pos(0)}, {"end", Pos(40)}}},
                        {"context", Object{{"diagnostics", Array{}}, {"only", Array{"quickfix"}}}}});
}

/// Where the first finding of largeScript is: the line and column of its first `"CPU"`.
std::pair<int, int> firstFinding(const std::string &Text) {
  size_t At = Text.find("\"CPU\"");
  return {static_cast<int>(std::count(Text.begin(), Text.begin() + static_cast<long>(At), '\n')),
          static_cast<int>(At - Text.rfind('\n', At) - 1)};
}

TEST(LargeDocument, RequestsBehindItsDidOpenAreAnsweredBeforeItsLintEnds) {
  // The lint runs beside the messages: a hover, a code action and an unknown request written
  // right behind the didOpen are answered first (nothing is known of the document yet), and
  // the diagnostics come when the lint ends. Before, each waited for the whole lint.
  const std::string Uri = "file:///big/train.py";
  std::string Text = largeScript(1u << 20);
  auto [Line, Column] = firstFinding(Text);
  LspHarness H;
  auto Out = H.send({initializeRequest(), didOpenNotification(Uri, Text), hoverRequest(2, Uri, Line, Column),
                     codeActionRequest(3, Uri, Line),
                     request(4, "textDocument/documentSymbol", Object{{"textDocument", Object{{"uri", Uri}}}})});
  ASSERT_EQ(methods(Out), (std::vector<std::string>{"reply 1", "reply 2", "reply 3", "reply 4",
                                                     "textDocument/publishDiagnostics"}));
  EXPECT_EQ(*Out[1].getAsObject()->get("result"), Value(nullptr));
  EXPECT_EQ(*Out[2].getAsObject()->get("result"), Value(Array{}));
  EXPECT_TRUE(Out[3].getAsObject()->getObject("error"));
  EXPECT_GT(Out[4].getAsObject()->getObject("params")->getArray("diagnostics")->size(), 0u);
  EXPECT_EQ(H.server().editStats().AnsweredAside, 3u);
  EXPECT_EQ(H.server().editStats().Lints, 1u);
  EXPECT_EQ(H.server().editStats().Interrupted, 0u);
  // Once linted, the same requests see its findings.
  auto After = H.send({hoverRequest(5, Uri, Line, Column), codeActionRequest(6, Uri, Line)});
  ASSERT_EQ(methods(After), (std::vector<std::string>{"reply 5", "reply 6"}));
  EXPECT_TRUE(After[0].getAsObject()->getObject("result"));
  EXPECT_GT(After[1].getAsObject()->getArray("result")->size(), 0u);
}

TEST(LargeDocument, AChangeBehindARequestCancelsTheLintAndOnlyTheNewestTextIsPublished) {
  // The hover between the didOpen and the change is answered aside, so nothing waits for the
  // first text's findings: its lint is given up, and only the second text's are published.
  // Before, the hover held the lint to its end and both versions were published.
  const std::string Uri = "file:///big/train.py";
  std::string Text = largeScript(1u << 20);
  LspHarness H;
  auto Out = H.send({initializeRequest(), didOpenNotification(Uri, Text), hoverRequest(2, Uri, 3),
                     didChange(Uri, 2, 3, "y = torch.zeros(2).to(\"CPU\")\n")});
  ASSERT_EQ(methods(Out), (std::vector<std::string>{"reply 1", "reply 2", "textDocument/publishDiagnostics"}));
  const Object *Published = Out[2].getAsObject()->getObject("params");
  EXPECT_EQ(Published->getInteger("version").getValueOr(-1), 2);
  // The second text's findings: the one on the line the change added among them.
  const Array *Ds = Published->getArray("diagnostics");
  EXPECT_TRUE(std::any_of(Ds->begin(), Ds->end(), [](const Value &D) {
    return D.getAsObject()->getObject("range")->getObject("start")->getInteger("line").getValueOr(-1) == 3;
  }));
  EXPECT_EQ(H.server().editStats().Interrupted, 1u);
  EXPECT_EQ(H.server().editStats().Lints, 1u);
}

TEST(LargeDocument, APulledDiagnosticOfTheDocumentBeingLintedWaitsForItsFindings) {
  // Pulled diagnostics are the findings of the text the client has: they wait for its lint
  // (and so does what is behind them), rather than answer "none".
  const std::string Uri = "file:///big/train.py";
  std::string Text = largeScript(1u << 20);
  LspHarness H;
  Value PullInit =
      request(1, "initialize", Object{{"capabilities", Object{{"textDocument", Object{{"diagnostic", Object{}}}}}}});
  auto Out = H.send({std::move(PullInit), didOpenNotification(Uri, Text),
                     request(2, "textDocument/diagnostic", Object{{"textDocument", Object{{"uri", Uri}}}}),
                     hoverRequest(3, Uri, 3)});
  ASSERT_EQ(methods(Out), (std::vector<std::string>{"reply 1", "reply 2", "reply 3"}));
  EXPECT_GT(Out[1].getAsObject()->getObject("result")->getArray("items")->size(), 0u);
  EXPECT_EQ(H.server().editStats().Interrupted, 0u);
}

TEST(LargeDocument, ShutdownIsAnsweredWithoutWaitingForItsLintAndExitEnds) {
  std::string Text = largeScript(3u << 20);
  ASSERT_GE(Text.size(), lsp::InterruptibleBytes);
  LspHarness H;
  auto Start = std::chrono::steady_clock::now();
  auto Out = H.send({initializeRequest(), didOpenNotification("file:///big/train.py", Text),
                     request(2, "shutdown", nullptr), notification("exit", nullptr)});
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  // The answer to `shutdown` comes before any publish: no lint of the document ran to its end.
  EXPECT_EQ(methods(Out), (std::vector<std::string>{"reply 1", "reply 2"}));
  EXPECT_EQ(H.server().editStats().Lints, 0u);
  EXPECT_EQ(H.server().editStats().Interrupted, 1u);
  EXPECT_TRUE(H.server().exited());
  EXPECT_EQ(H.server().exitCode(), 0);
  // Only a bound against a hang (the lint alone takes seconds); the benchmark measures.
  EXPECT_LT(Seconds, 60.0);
}

TEST(LargeDocument, ExitWithoutShutdownEndsTheServerToo) {
  LspHarness H;
  auto Out = H.send({initializeRequest(), didOpenNotification("file:///big/train.py", largeScript(1u << 20)),
                     notification("exit", nullptr)});
  EXPECT_EQ(methods(Out), std::vector<std::string>{"reply 1"});
  EXPECT_TRUE(H.server().exited());
  EXPECT_EQ(H.server().exitCode(), 1);
}

TEST(LargeDocument, ARequestOnADocumentWhoseParseWasGivenUpIsAnswered) {
  // The change replaces the whole text: its parse (no old tree to reuse) is given up, as
  // shutdown is queued, and so is the flush before the hover, which finds no tree.
  const std::string Uri = "file:///big/train.py";
  LspHarness H;
  H.send({initializeRequest(), didOpenNotification(Uri, largeScript(1u << 20))});
  Array Whole;
  Whole.push_back(Object{{"text", largeScript(2u << 20)}});
  auto Out = H.send({notification("textDocument/didChange",
                                  Object{{"textDocument", Object{{"uri", Uri}, {"version", 2}}},
                                         {"contentChanges", std::move(Whole)}}),
                     request(3, "textDocument/hover",
                             Object{{"textDocument", Object{{"uri", Uri}}},
                                    {"position", Object{{"line", 3}, {"character", 0}}}}),
                     request(4, "textDocument/codeAction",
                             Object{{"textDocument", Object{{"uri", Uri}}},
                                    {"range", Object{{"start", Object{{"line", 3}, {"character", 0}}},
                                                     {"end", Object{{"line", 3}, {"character", 0}}}}},
                                    {"context", Object{{"diagnostics", Array{}}, {"only", Array{"quickfix"}}}}}),
                     request(2, "shutdown", nullptr), notification("exit", nullptr)});
  EXPECT_EQ(methods(Out), (std::vector<std::string>{"reply 3", "reply 4", "reply 2"}));
  EXPECT_EQ(H.server().exitCode(), 0);
}

TEST(LargeDocument, AStaleLintIsGivenUpAndTheLastTextPublished) {
  const std::string Uri = "file:///big/train.py", Small = "file:///big/small.py";
  std::string Text = largeScript(1u << 20);
  LspHarness H;
  auto Opened = H.send({initializeRequest(), didOpenNotification(Uri, Text)});
  ASSERT_EQ(methods(Opened), (std::vector<std::string>{"reply 1", "textDocument/publishDiagnostics"}));
  size_t Findings = Opened[1].getAsObject()->getObject("params")->getArray("diagnostics")->size();
  ASSERT_GT(Findings, 0u);
  // The first change's lint is moot: another change of the document is queued behind it (not
  // directly behind, where the two would be merged without a lint).
  auto Out = H.send({didChange(Uri, 2, 3, "x = 1\n"), didOpenNotification(Small, "import torch\n"),
                     didChange(Uri, 3, 3, "y = torch.zeros(2).to(\"CPU\")\n")});
  ASSERT_EQ(methods(Out), (std::vector<std::string>{"textDocument/publishDiagnostics",
                                                     "textDocument/publishDiagnostics"}));
  const Object *Last = Out[1].getAsObject()->getObject("params");
  EXPECT_EQ(Last->getString("uri"), llvm::StringRef(Uri));
  EXPECT_EQ(Last->getInteger("version").getValueOr(-1), 3);
  EXPECT_EQ(Last->getArray("diagnostics")->size(), Findings + 1);
  // (Twice, maybe: the didOpen of the other document first flushes the edit, and that lint is
  // moot too.)
  EXPECT_GE(H.server().editStats().Interrupted, 1u);
}

} // namespace
} // namespace torchlint::test
