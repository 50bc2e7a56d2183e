// Helpers for the LSP tests: framing, structural JSON matching, an in-process server.
#include "LspTestUtil.h"

#include "Rules.h"

#include <gtest/gtest.h>
#include <llvm/ADT/StringRef.h>

#include <regex>

namespace torchlint::test {

using llvm::json::Value;

std::string frame(const std::string &Body) {
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body;
}

std::vector<Value> unframe(const std::string &Output) {
  std::vector<Value> Out;
  llvm::StringRef S(Output);
  while (!S.empty()) {
    if (!S.consume_front("Content-Length: ")) {
      ADD_FAILURE() << "output without a Content-Length header: " << S.take_front(80).str();
      break;
    }
    size_t N = 0;
    if (S.consumeInteger(10, N) || !S.consume_front("\r\n\r\n") || S.size() < N) {
      ADD_FAILURE() << "malformed output framing";
      break;
    }
    auto V = llvm::json::parse(S.take_front(N));
    if (!V) {
      ADD_FAILURE() << "server wrote invalid JSON: " << llvm::toString(V.takeError());
      break;
    }
    Out.push_back(std::move(*V));
    S = S.drop_front(N);
  }
  return Out;
}

bool jsonMatches(const Value &E, const Value &A, std::string &Why, const std::string &Where) {
  auto Fail = [&](const std::string &What) {
    std::string Es, As;
    llvm::raw_string_ostream(Es) << E;
    llvm::raw_string_ostream(As) << A;
    Why = Where + ": " + What + "\n  expected: " + Es + "\n  actual:   " + As;
    return false;
  };
  if (auto S = E.getAsString(); S && S->startswith("{{") && S->endswith("}}")) {
    llvm::StringRef Re = S->drop_front(2).drop_back(2);
    if (Re == "any")
      return true;
    auto AS = A.getAsString();
    if (!AS)
      return Fail("expected a string");
    if (!std::regex_match(AS->str(), std::regex(Re.str())))
      return Fail("no regex match");
    return true;
  }
  if (E.kind() != A.kind())
    return Fail("different kinds");
  if (const auto *EO = E.getAsObject()) {
    const auto *AO = A.getAsObject();
    for (const auto &KV : *EO) {
      const Value *AV = AO->get(KV.first);
      if (!AV)
        return Fail("missing key `" + KV.first.str() + "`");
      if (!jsonMatches(KV.second, *AV, Why, Where + "." + KV.first.str()))
        return false;
    }
    for (const auto &KV : *AO)
      if (!EO->get(KV.first))
        return Fail("unexpected key `" + KV.first.str() + "`");
    return true;
  }
  if (const auto *EA = E.getAsArray()) {
    const auto *AA = A.getAsArray();
    if (EA->size() != AA->size())
      return Fail("arrays of different lengths");
    for (size_t I = 0; I < EA->size(); ++I)
      if (!jsonMatches((*EA)[I], (*AA)[I], Why, Where + "[" + std::to_string(I) + "]"))
        return false;
    return true;
  }
  if (E == A)
    return true;
  return Fail("different values");
}

LspHarness::LspHarness(lsp::ServerOptions Opts, size_t MaxMessageBytes)
    : S(rules::registry(), std::move(Opts)), MaxBytes(MaxMessageBytes) {}

/// Runs \p Work on a transport reading \p Bytes; returns what the server wrote to it.
template <class F> std::vector<Value> LspHarness::through(const std::string &Bytes, F Work) {
  lsp::StringSource In(Bytes);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  lsp::Transport T(In, OS, lsp::InputStyle::Standard, MaxBytes);
  Work(T);
  OS.flush();
  return unframe(Out);
}

std::vector<Value> LspHarness::feedRaw(const std::string &Bytes) {
  return through(Bytes, [&](lsp::Transport &T) { S.run(T); });
}

std::vector<Value> LspHarness::idle() {
  return through("", [&](lsp::Transport &T) { S.runIdleChecks(T); });
}

std::vector<Value> LspHarness::send(const std::vector<Value> &Msgs) {
  std::string Bytes;
  for (const auto &M : Msgs) {
    std::string Body;
    llvm::raw_string_ostream(Body) << M;
    Bytes += frame(Body);
  }
  return feedRaw(Bytes);
}

Value request(int Id, llvm::StringRef Method, Value Params) {
  return llvm::json::Object{{"jsonrpc", "2.0"}, {"id", Id}, {"method", Method}, {"params", std::move(Params)}};
}

Value notification(llvm::StringRef Method, Value Params) {
  return llvm::json::Object{{"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}};
}

llvm::json::Value initializeRequest() {
  return request(1, "initialize", llvm::json::Object{{"capabilities", llvm::json::Object{}}});
}

llvm::json::Value didOpenNotification(const std::string &Uri, const std::string &Text, int Version) {
  using llvm::json::Object;
  return notification("textDocument/didOpen",
                      Object{{"textDocument", Object{{"uri", Uri}, {"languageId", "python"}, {"version", Version},
                                                     {"text", Text}}}});
}

} // namespace torchlint::test
