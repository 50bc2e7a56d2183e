// Helpers for the LSP tests: an in-process server fed through the real transport, and a
// structural JSON match where an expected string "{{REGEX}}" matches by regex.
#pragma once

#include "lsp/Server.h"

#include <llvm/Support/JSON.h>

#include <memory>
#include <string>
#include <vector>

namespace torchlint::test {

/// Frames \p Body with a Content-Length header.
std::string frame(const std::string &Body);

/// Splits Content-Length framed output into parsed messages; malformed output fails the test.
std::vector<llvm::json::Value> unframe(const std::string &Output);

/// Whether \p Actual matches \p Expected: same shape and values; objects must have the same
/// keys; an expected string "{{RE}}" matches a string by ECMAScript regex, and "{{any}}"
/// matches any value. \p Why says where they differ.
bool jsonMatches(const llvm::json::Value &Expected, const llvm::json::Value &Actual, std::string &Why,
                 const std::string &Where = "$");

/// A server driven in-process with the transport's real framing.
class LspHarness {
public:
  explicit LspHarness(lsp::ServerOptions Opts = {}, size_t MaxMessageBytes = lsp::DefaultMaxMessageBytes);
  /// Feeds raw bytes (already framed) and returns what the server wrote.
  std::vector<llvm::json::Value> feedRaw(const std::string &Bytes);
  /// Frames and feeds messages.
  std::vector<llvm::json::Value> send(const std::vector<llvm::json::Value> &Msgs);
  lsp::Server &server() { return S; }
  /// What the server does while the client is quiet (its idle checks), and what it wrote.
  std::vector<llvm::json::Value> idle();

private:
  template <class F> std::vector<llvm::json::Value> through(const std::string &Bytes, F Work);
  lsp::Server S;
  size_t MaxBytes;
};

llvm::json::Value request(int Id, llvm::StringRef Method, llvm::json::Value Params);
llvm::json::Value notification(llvm::StringRef Method, llvm::json::Value Params);
/// `initialize` with no capabilities (id 1), and `didOpen` of a Python document.
llvm::json::Value initializeRequest();
llvm::json::Value didOpenNotification(const std::string &Uri, const std::string &Text, int Version = 1);

} // namespace torchlint::test
