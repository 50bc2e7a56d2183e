// Runs the JSON-RPC transcripts in tests/lsp/transcripts/: client messages in, the
// server's messages out, compared structurally and in order.
//
// Transcript syntax (one directive per line; JSON bodies may span lines):
//   # comment
//   >>> JSON           a client message, framed with Content-Length
//   >>> raw            the following lines, as they are, framed as one message body
//   >>> unframed       the following lines sent with no framing (`\r\n` spelled out)
//   <<< JSON           the next message the server must write
//   %% file NAME       write the following lines to ${ROOT}/NAME (input before it is
//                      processed first, so the server sees the file change in order)
//   %% wait            the client waits for the server's answers here (input before it is
//                      processed first; else didChange notifications queued together are
//                      linted once, after the last of them)
//   %% exit N          the exit status the server must end with
//   %% max-message-bytes N
// ${ROOT} is a fresh temporary folder and ${ROOT_URI} its file:// URI.
#include "LspTestUtil.h"
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <filesystem>
#include <fstream>

namespace torchlint::test {
namespace {

const std::string TranscriptDir = std::string(TORCHLINT_SOURCE_DIR) + "/tests/lsp/transcripts";

std::vector<std::string> transcripts() {
  std::vector<std::string> Names;
  for (const auto &E : std::filesystem::directory_iterator(TranscriptDir))
    if (E.path().extension() == ".lsp")
      Names.push_back(E.path().stem().string());
  std::sort(Names.begin(), Names.end());
  return Names;
}

std::string replaceAll(std::string S, const std::string &From, const std::string &To) {
  for (size_t At = 0; (At = S.find(From, At)) != std::string::npos; At += To.size())
    S.replace(At, From.size(), To);
  return S;
}

struct Block {
  std::string Directive; // ">>>", "<<<" or "%%" with its argument
  std::string Arg;
  std::string Body;
  int Line;
};

std::vector<Block> parseTranscript(const std::string &Text) {
  std::vector<Block> Blocks;
  llvm::SmallVector<llvm::StringRef> Lines;
  llvm::StringRef(Text).split(Lines, '\n');
  int N = 0;
  for (llvm::StringRef L : Lines) {
    ++N;
    bool Raw = !Blocks.empty() && (Blocks.back().Arg == "raw" || Blocks.back().Arg == "unframed" ||
                                   Blocks.back().Directive == "%% file");
    if (L.startswith(">>>") || L.startswith("<<<") || L.startswith("%%")) {
      Block B;
      B.Line = N;
      if (L.startswith("%%")) {
        auto [Dir, Arg] = L.drop_front(2).trim().split(' ');
        B.Directive = "%% " + Dir.str();
        B.Arg = Arg.trim().str();
      } else {
        B.Directive = L.take_front(3).str();
        llvm::StringRef Rest = L.drop_front(3).trim();
        if (B.Directive == ">>>" && (Rest == "raw" || Rest == "unframed"))
          B.Arg = Rest.str();
        else
          B.Body = Rest.str() + "\n";
      }
      Blocks.push_back(std::move(B));
      continue;
    }
    if (!Raw && (L.trim().startswith("#") || L.trim().empty()))
      continue;
    if (Blocks.empty())
      continue;
    Blocks.back().Body += L.str() + "\n";
  }
  return Blocks;
}

class Transcript : public ::testing::TestWithParam<std::string> {};

TEST_P(Transcript, MatchesExpectedMessages) {
  std::string Text = readFile(TranscriptDir + "/" + GetParam() + ".lsp");
  std::string Root = tempDir();
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Root, Real))
    Root = Real.str().str();
  Text = replaceAll(Text, "${ROOT_URI}", lsp::pathToUri(Root));
  Text = replaceAll(Text, "${ROOT}", Root);
  std::vector<Block> Blocks = parseTranscript(Text);

  size_t MaxBytes = lsp::DefaultMaxMessageBytes;
  std::optional<int> Exit;
  for (const auto &B : Blocks) {
    if (B.Directive == "%% max-message-bytes")
      MaxBytes = std::stoul(B.Arg);
    if (B.Directive == "%% exit")
      Exit = std::stoi(B.Arg);
  }
  lsp::ServerOptions Opts;
  Opts.RuleDocsUrl = "https://torchlint.test/rules/";
  LspHarness H(Opts, MaxBytes);

  std::vector<llvm::json::Value> Actual;
  std::vector<const Block *> Expected;
  std::string Pending;
  auto Flush = [&] {
    if (Pending.empty())
      return;
    for (auto &V : H.feedRaw(Pending))
      Actual.push_back(std::move(V));
    Pending.clear();
  };
  for (const auto &B : Blocks) {
    if (B.Directive == ">>>") {
      std::string Body = B.Body;
      if (B.Arg == "unframed") {
        Pending += replaceAll(replaceAll(Body, "\\r", "\r"), "\\n", "\n");
        continue;
      }
      if (B.Arg != "raw") {
        auto V = llvm::json::parse(Body);
        ASSERT_TRUE(static_cast<bool>(V)) << "line " << B.Line << ": " << llvm::toString(V.takeError());
        Body.clear();
        llvm::raw_string_ostream(Body) << *V;
      } else if (!Body.empty()) {
        Body.pop_back(); // the line break that ends the block
      }
      Pending += frame(Body);
    } else if (B.Directive == "<<<") {
      Expected.push_back(&B);
    } else if (B.Directive == "%% wait") {
      Flush();
    } else if (B.Directive == "%% file") {
      Flush();
      std::string Path = Root + "/" + B.Arg;
      llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path));
      writeFile(Path, B.Body);
    }
  }
  Flush();

  for (size_t I = 0; I < std::max(Expected.size(), Actual.size()); ++I) {
    if (I >= Expected.size()) {
      std::string S;
      llvm::raw_string_ostream(S) << Actual[I];
      ADD_FAILURE() << "unexpected message " << I << ": " << S;
      continue;
    }
    if (I >= Actual.size()) {
      ADD_FAILURE() << "line " << Expected[I]->Line << ": expected a message, the server wrote nothing more";
      continue;
    }
    auto E = llvm::json::parse(Expected[I]->Body);
    ASSERT_TRUE(static_cast<bool>(E)) << "line " << Expected[I]->Line << ": " << llvm::toString(E.takeError());
    std::string Why;
    EXPECT_TRUE(jsonMatches(*E, Actual[I], Why)) << "line " << Expected[I]->Line << ": " << Why;
  }
  if (Exit) {
    EXPECT_EQ(H.server().exitCode(), *Exit);
    if (*Exit == 0) {
      EXPECT_TRUE(H.server().exited());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Lsp, Transcript, ::testing::ValuesIn(transcripts()),
                         [](const auto &Info) { return Info.param; });

} // namespace
} // namespace torchlint::test
