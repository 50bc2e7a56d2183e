// The notebook fixtures (fixtures/notebook/*.ipynb): linted by the binary with every rule, the
// findings must be exactly the `# expect: CODE` annotations of the code cells' lines, each in
// its cell (numbered as Jupyter shows them) and line.
#include "TestUtil.h"

#include "notebook/Ipynb.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

namespace torchlint::test {
namespace {

std::vector<std::string> notebookFixtures() {
  std::vector<std::string> Out;
  std::error_code EC;
  std::string Root = std::string(TORCHLINT_SOURCE_DIR) + "/fixtures/notebook";
  for (llvm::sys::fs::directory_iterator It(Root, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).endswith(".ipynb"))
      Out.push_back(It->path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

TEST(NotebookFixtures, FindingsAreTheExpectations) {
  auto Files = notebookFixtures();
  ASSERT_FALSE(Files.empty());
  for (const std::string &Path : Files) {
    auto Book = notebook::Notebook::parse(readFile(Path));
    ASSERT_TRUE(bool(Book)) << Path << ": " << llvm::toString(Book.takeError());
    std::multiset<std::string> Want, Got;
    std::regex Expect("#\\s*expect:\\s*([A-Z0-9, ]+)");
    for (const auto &C : Book->cells()) {
      std::istringstream In(C.Source);
      std::string Line;
      for (int No = 1; std::getline(In, Line); ++No) {
        std::smatch M;
        if (!std::regex_search(Line, M, Expect))
          continue;
        std::stringstream SS(M[1]);
        for (std::string Code; std::getline(SS, Code, ',');) {
          Code.erase(std::remove(Code.begin(), Code.end(), ' '), Code.end());
          if (!Code.empty())
            Want.insert("cell " + std::to_string(C.Index + 1) + ":" + std::to_string(No) + ":" + Code);
        }
      }
    }
    auto R = runTorchlint({"check", "--no-cache", "--select", "ALL", "--format", "json", Path});
    auto J = llvm::json::parse(R.Out);
    ASSERT_TRUE(bool(J)) << R.Out << R.Err;
    for (const auto &F : *J->getAsArray()) {
      const auto *O = F.getAsObject();
      Got.insert("cell " + std::to_string(*O->getInteger("cell")) + ":" +
                 std::to_string(*O->getObject("location")->getInteger("row")) + ":" + O->getString("code")->str());
    }
    EXPECT_EQ(Got, Want) << Path << "\n" << R.Out;
  }
}

} // namespace
} // namespace torchlint::test
