// A response carries its request's id exactly as the client wrote it: integers beyond 64
// bits, negative ones, fractions and a string with an escape, each compared as the text on
// the wire (a parsed comparison would let a rounded double pass).
#include "LspTestUtil.h"

#include "Rules.h"

#include <gtest/gtest.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/raw_ostream.h>

#include <string>
#include <vector>

namespace torchlint::test {
namespace {

/// Runs a server over \p Bodies (framed as they are) and returns its output bodies as text.
std::vector<std::string> rawResponses(const std::vector<std::string> &Bodies) {
  std::string In;
  for (const auto &B : Bodies)
    In += frame(B);
  lsp::StringSource Source(In);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  lsp::Transport T(Source, OS);
  lsp::Server S(rules::registry(), lsp::ServerOptions{});
  S.run(T);
  OS.flush();
  std::vector<std::string> Bodies2;
  llvm::StringRef R(Out);
  while (R.consume_front("Content-Length: ")) {
    size_t N = 0;
    if (R.consumeInteger(10, N) || !R.consume_front("\r\n\r\n") || R.size() < N) {
      ADD_FAILURE() << "malformed output framing";
      break;
    }
    Bodies2.push_back(R.take_front(N).str());
    R = R.drop_front(N);
  }
  EXPECT_TRUE(R.empty()) << "output without a header: " << R.take_front(80).str();
  return Bodies2;
}

TEST(RequestId, EchoedAsWritten) {
  const std::vector<std::string> Ids = {"123456789012345678901234567890", "-123456789012345678901234567890",
                                        "-7", "1.50", "1e3", "0.1", "18446744073709551616", "\"abc\\u00e9\""};
  std::vector<std::string> In = {R"({"jsonrpc":"2.0","id":123456789012345678901234567891,"method":"initialize",)"
                                 R"("params":{"capabilities":{}}})"};
  for (const auto &Id : Ids)
    In.push_back(R"({"jsonrpc":"2.0","id":)" + Id + R"(,"method":"torchlint/unknown","params":{}})");
  // The id after the params, with blanks around it, as some clients write it.
  In.push_back(R"({"jsonrpc":"2.0","method":"shutdown","params":null, "id" : 98765432109876543210987654321 })");
  In.push_back(R"({"jsonrpc":"2.0","method":"exit"})");
  std::vector<std::string> Out = rawResponses(In);
  ASSERT_EQ(Out.size(), Ids.size() + 2);
  EXPECT_NE(Out[0].find(R"("id":123456789012345678901234567891,)"), std::string::npos) << Out[0];
  for (size_t I = 0; I < Ids.size(); ++I)
    EXPECT_NE(Out[I + 1].find(R"("id":)" + Ids[I] + ","),
              std::string::npos)
        << "id " << Ids[I] << " came back as: " << Out[I + 1];
  EXPECT_NE(Out.back().find(R"("id":98765432109876543210987654321,)"), std::string::npos) << Out.back();
}

TEST(RequestId, PrettyOutputKeepsTheId) {
  lsp::StringSource Source("");
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  lsp::Transport T(Source, OS, lsp::InputStyle::Standard, lsp::DefaultMaxMessageBytes, /*Pretty=*/true);
  T.send(llvm::json::Object{{"jsonrpc", "2.0"}, {"id", 1.0}, {"result", nullptr}}, "123456789012345678901234567890");
  OS.flush();
  EXPECT_NE(Out.find("\"id\": 123456789012345678901234567890,"), std::string::npos) << Out;
  EXPECT_NE(Out.find("\"result\": null"), std::string::npos) << Out;
}

} // namespace
} // namespace torchlint::test
