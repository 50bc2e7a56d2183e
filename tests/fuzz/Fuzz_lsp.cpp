// libFuzzer target: the LSP transport, protocol and server, in-process, fed an arbitrary byte
// stream.
// The first byte picks the framing: Content-Length headers (what editors send) or messages
// separated by `---` lines (what lets the fuzzer edit JSON without breaking the lengths).
// Whatever comes in, what the server writes must be well-framed JSON-RPC 2.0 objects.
#include "FuzzTargets.h"

// clang 14 cannot compile the server against LLVM 14's JSON.h in C++20 (llvm-project#55780):
// the fuzzer build (cmake/Fuzz.cmake) sets TORCHLINT_FUZZ_LSP_SERVER=0 and fuzzes the
// transport and the protocol; the test suite (g++) runs the saved inputs through the server too.
#ifndef TORCHLINT_FUZZ_LSP_SERVER
#define TORCHLINT_FUZZ_LSP_SERVER 1
#endif
#include "lsp/Protocol.h"
#include "lsp/Transport.h"
#if TORCHLINT_FUZZ_LSP_SERVER
#include "lsp/Server.h"
#include "Rules.h"
#endif

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <cstddef>
#include <cstdint>

using namespace torchlint;
using namespace torchlint::fuzz;

namespace {

void checkOutput(llvm::StringRef S) {
  while (!S.empty()) {
    require(S.consume_front("Content-Length: "), "server output without a Content-Length header");
    size_t N = 0;
    require(!S.consumeInteger(10, N) && S.consume_front("\r\n\r\n") && S.size() >= N, "malformed server framing");
    auto V = llvm::json::parse(S.take_front(N));
    if (!V) {
      llvm::consumeError(V.takeError());
      require(false, "the server wrote invalid JSON");
    }
    const llvm::json::Object *O = V->getAsObject();
    require(O && O->getString("jsonrpc") == llvm::StringRef("2.0"), "the server wrote a message that is not JSON-RPC 2.0");
    S = S.drop_front(N);
  }
}

} // namespace

namespace {

template <class T> void parseAs(const llvm::json::Value &Params) {
  T Out;
  llvm::json::Path::Root Root;
  (void)fromJSON(Params, Out, Root);
}

/// The transport and the protocol types alone: every message read, its params parsed as the
/// server would parse them, each replied to through the transport's writer.
void transportAndProtocol(lsp::InputStyle Style, const std::string &Bytes) {
  lsp::StringSource In(Bytes);
  std::string Written;
  llvm::raw_string_ostream Out(Written);
  lsp::Transport T(In, Out, Style, /*MaxMessageBytes=*/1 << 20);
  for (unsigned N = 0; N < 10000; ++N) {
    lsp::Incoming M = T.read();
    if (M.K == lsp::Incoming::End)
      break;
    if (M.K == lsp::Incoming::Error) {
      require(!M.Why.empty(), "a transport error without a reason");
      T.send(llvm::json::Object{{"jsonrpc", "2.0"}, {"id", nullptr},
                                {"error", llvm::json::Object{{"code", static_cast<int>(M.Code)}, {"message", M.Why}}}});
      continue;
    }
    const llvm::json::Object *O = M.Msg.getAsObject();
    if (!O)
      continue;
    llvm::StringRef Method = O->getString("method").getValueOr("");
    const llvm::json::Value *Params = O->get("params");
    llvm::json::Value None = nullptr;
    const llvm::json::Value &P = Params ? *Params : None;
    if (Method == "initialize")
      parseAs<lsp::InitializeParams>(P);
    else if (Method == "textDocument/didOpen") {
      lsp::DidOpenTextDocumentParams D;
      llvm::json::Path::Root Root;
      if (fromJSON(P, D, Root)) {
        if (auto Path = lsp::uriToPath(D.textDocument.uri))
          (void)lsp::pathToUri(*Path);
        lintAndCheck(D.textDocument.text);
      }
    } else if (Method == "textDocument/didChange")
      parseAs<lsp::DidChangeTextDocumentParams>(P);
    else if (Method == "textDocument/codeAction")
      parseAs<lsp::CodeActionParams>(P);
    else if (Method == "textDocument/hover")
      parseAs<lsp::TextDocumentPositionParams>(P);
    else if (Method == "notebookDocument/didOpen")
      parseAs<lsp::DidOpenNotebookDocumentParams>(P);
    else if (Method == "notebookDocument/didChange")
      parseAs<lsp::DidChangeNotebookDocumentParams>(P);
    else if (Method == "notebookDocument/didClose" || Method == "notebookDocument/didSave")
      parseAs<lsp::NotebookDocumentParams>(P);
    else
      parseAs<lsp::TextDocumentParams>(P);
    // With the id's text as the message had it (RequestId): what is written must still parse.
    if (const llvm::json::Value *Id = O->get("id"))
      T.send(llvm::json::Object{{"jsonrpc", "2.0"}, {"id", *Id}, {"result", nullptr}}, M.RawId);
  }
  Out.flush();
  checkOutput(Written);
}

#if TORCHLINT_FUZZ_LSP_SERVER
/// The server itself, fed through the transport.
void server(lsp::InputStyle Style, const std::string &Bytes) {
  lsp::StringSource In(Bytes);
  std::string Written;
  llvm::raw_string_ostream Out(Written);
  {
    // A small message cap so that a fuzzed Content-Length cannot ask for gigabytes.
    lsp::Transport T(In, Out, Style, /*MaxMessageBytes=*/1 << 20);
    lsp::ServerOptions Opts;
    Opts.RuleDocsUrl = "https://torchlint.test/rules/";
    lsp::Server S(rules::registry(), Opts);
    S.run(T);
  }
  Out.flush();
  checkOutput(Written);
}
#endif

} // namespace

void torchlint::fuzz::fuzzLsp(const uint8_t *Data, size_t Size) {
  if (Size == 0)
    return;
  auto Style = Data[0] & 1 ? lsp::InputStyle::Delimited : lsp::InputStyle::Standard;
  std::string Bytes(reinterpret_cast<const char *>(Data + 1), Size - 1);
  transportAndProtocol(Style, Bytes);
#if TORCHLINT_FUZZ_LSP_SERVER
  server(Style, Bytes);
#endif
}

#ifdef TORCHLINT_FUZZER_MAIN
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  torchlint::fuzz::fuzzLsp(Data, Size);
  return 0;
}
#endif
