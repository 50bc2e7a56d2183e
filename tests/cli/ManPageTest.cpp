// torchlint(1): generated from the program, so it lists every `check` option `--help`
// shows and every rule, and it renders without roff warnings.
#include "TestUtil.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Program.h>

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace torchlint::test {
namespace {

TEST(ManPage, ListsEveryCheckOptionAndRule) {
  RunResult Man = runTorchlint({"generate-man"});
  ASSERT_EQ(Man.Exit, 0) << Man.Err;
  RunResult Help = runTorchlint({"check", "--help"});
  ASSERT_EQ(Help.Exit, 0) << Help.Err;
  std::set<std::string> Flags;
  std::regex Flag(R"((^|\s)(--[a-z][a-z-]*|-[a-z])[ =<])");
  for (std::sregex_iterator It(Help.Out.begin(), Help.Out.end(), Flag), End; It != End; ++It)
    Flags.insert((*It)[2]);
  // The options the README documents must be among them, or the scrape itself is broken.
  for (const char *Known : {"--select", "--format", "--no-cache", "--statistics"})
    EXPECT_TRUE(Flags.count(Known)) << Known << " not found in --help:\n" << Help.Out;
  for (const auto &F : Flags) {
    if (F == "--help" || F == "--help-list" || F == "--version" || F == "-o")
      continue; // LLVM's own, and the alias of --output-file
    std::string Roff;
    for (char C : F)
      Roff += C == '-' ? std::string("\\-") : std::string(1, C);
    EXPECT_NE(Man.Out.find(".B " + Roff), std::string::npos) << F << " is not in the man page";
  }
  RunResult Rules = runTorchlint({"rules"});
  std::regex Code(R"(^(TL\d{3}) )", std::regex::multiline);
  size_t Seen = 0;
  for (std::sregex_iterator It(Rules.Out.begin(), Rules.Out.end(), Code), End; It != End; ++It, ++Seen)
    EXPECT_NE(Man.Out.find(".B " + (*It)[1].str() + "\n"), std::string::npos) << (*It)[1];
  EXPECT_GT(Seen, 10u);
}

TEST(ManPage, RendersWithoutRoffWarnings) {
  auto Groff = llvm::sys::findProgramByName("groff");
  if (!Groff)
    GTEST_SKIP() << "groff is not installed";
  std::string Dir = tempDir();
  RunResult Man = runTorchlint({"generate-man"});
  writeFile(Dir + "/torchlint.1", Man.Out);
  std::string Out = Dir + "/out", Err = Dir + "/err";
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::None, llvm::StringRef(Out), llvm::StringRef(Err)};
  int Rc = llvm::sys::ExecuteAndWait(*Groff, {*Groff, "-man", "-Tutf8", "-P-cbou", "-ww", Dir + "/torchlint.1"}, llvm::None,
                                     Redirects, 60);
  EXPECT_EQ(Rc, 0);
  EXPECT_EQ(readFile(Err), "");
  std::string Text = readFile(Out);
  EXPECT_NE(Text.find("EXIT STATUS"), std::string::npos);
  EXPECT_NE(Text.find("TL301"), std::string::npos);
}

} // namespace
} // namespace torchlint::test
