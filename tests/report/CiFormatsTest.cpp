// GitLab Code Quality and JUnit XML: the documented shapes, checked on real output.
#include "TestUtil.h"

#include "report/Report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include <cstdlib>
#include <set>

namespace torchlint::test {
namespace {

using ::testing::HasSubstr;

std::vector<FileOutcome> outcomes() {
  std::string Src = "import torch\nd = torch.device(\"gpu\")\nd = torch.device(\"gpu\")\n"
                    "x = 1  # noqa: TL999\n";
  FileOutcome A;
  A.Path = "pkg/<odd & \"name\">.py";
  A.Source = std::make_shared<SourceFile>(A.Path, Src);
  A.Diagnostics = lintString(Src);
  FileOutcome B;
  B.Path = "broken.py";
  B.Error = "binary file (contains NUL bytes); skipped";
  FileOutcome C;
  C.Path = "clean.py";
  C.Source = std::make_shared<SourceFile>(C.Path, "x = 1\n");
  return {A, B, C};
}

TEST(CiFormats, GitlabCodeQuality) {
  auto O = outcomes();
  ASSERT_EQ(O[0].Diagnostics.size(), 3u);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeGitlab(OS, O, rules::registry(), {});
  OS.flush();
  auto J = llvm::json::parse(Out);
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  const auto *Issues = J->getAsArray();
  ASSERT_TRUE(Issues);
  ASSERT_EQ(Issues->size(), 3u);
  std::set<std::string> Fingerprints;
  for (const auto &V : *Issues) {
    const auto *I = V.getAsObject();
    ASSERT_TRUE(I);
    EXPECT_TRUE(I->getString("description"));
    EXPECT_TRUE(I->getString("check_name"));
    auto Sev = I->getString("severity");
    ASSERT_TRUE(Sev);
    EXPECT_TRUE(*Sev == "info" || *Sev == "minor" || *Sev == "major" || *Sev == "critical" || *Sev == "blocker");
    auto FP = I->getString("fingerprint");
    ASSERT_TRUE(FP);
    EXPECT_EQ(FP->size(), 32u);
    Fingerprints.insert(FP->str());
    const auto *Loc = I->getObject("location");
    ASSERT_TRUE(Loc);
    EXPECT_EQ(Loc->getString("path"), llvm::StringRef("pkg/<odd & \"name\">.py"));
    EXPECT_GE(*Loc->getObject("lines")->getInteger("begin"), 2);
  }
  EXPECT_EQ(Fingerprints.size(), 3u) << "two identical findings still need distinct fingerprints";
  // Stable when unrelated lines move.
  std::string Shifted;
  {
    auto O2 = outcomes();
    std::string Src = "# a new first line\n" + std::string(O2[0].Source->text());
    O2[0].Source = std::make_shared<SourceFile>(O2[0].Path, Src);
    O2[0].Diagnostics = lintString(Src);
    llvm::raw_string_ostream OS2(Shifted);
    writeGitlab(OS2, O2, rules::registry(), {});
  }
  auto J2 = llvm::json::parse(Shifted);
  ASSERT_TRUE(bool(J2));
  for (size_t I = 0; I < 3; ++I)
    EXPECT_EQ(*(*J2->getAsArray())[I].getAsObject()->getString("fingerprint"),
              *(*Issues)[I].getAsObject()->getString("fingerprint"));
}

TEST(CiFormats, JunitIsWellFormedXml) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeJunit(OS, outcomes(), rules::registry(), {});
  OS.flush();
  EXPECT_THAT(Out, HasSubstr("<testsuites name=\"torchlint\" tests=\"4\" failures=\"3\" errors=\"1\">"));
  EXPECT_THAT(Out, HasSubstr("classname=\"pkg/&lt;odd &amp; &quot;name&quot;&gt;.py\""));
  EXPECT_THAT(Out, HasSubstr("<testcase name=\"torchlint.TL107\""));
  EXPECT_THAT(Out, HasSubstr("<error message=\"binary file (contains NUL bytes); skipped\"/>"));
  // A real XML parser must accept it.
  std::string Dir = tempDir();
  writeFile(Dir + "/junit.xml", Out);
  std::string Cmd = "python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
                    "sys.exit(0 if r.tag == \"testsuites\" and len(r.findall(\".//failure\")) == 3 else 1)' '" +
                    Dir + "/junit.xml'";
  EXPECT_EQ(std::system(Cmd.c_str()), 0) << Out;
  writeFile(Dir + "/bad.xml", "<testsuites><testsuite></testsuites>");
  std::string Bad = "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '" + Dir +
                    "/bad.xml' 2>/dev/null";
  EXPECT_NE(std::system(Bad.c_str()), 0) << "the XML check must be able to fail";
}

/// Whether python3's XML parser accepts the file \p Path (it rejects invalid UTF-8 in a document
/// that says it is UTF-8, and characters XML 1.0 does not allow).
bool parsesAsXml(const std::string &Path) {
  std::string Cmd = "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' '" + Path + "'";
  return std::system(Cmd.c_str()) == 0;
}

// A file name is bytes: those that are not UTF-8 are written as U+FFFD, as the JSON, GitLab and
// SARIF reports write them, so the document stays well-formed.
TEST(CiFormats, JunitWithFileNamesThatAreNotUtf8IsWellFormed) {
  auto O = outcomes();
  O[0].Path = "pkg/caf\xe9 \xff\xfe\xc3.py";
  O[1].Path = "broken\x80.py";
  O[1].Error = "cannot read: \xed\xa0\x80 \xef\xbf\xbe"; // a surrogate and U+FFFE: not XML characters
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  writeJunit(OS, O, rules::registry(), {});
  OS.flush();
  EXPECT_TRUE(llvm::json::isUTF8(Out)) << Out;
  EXPECT_THAT(Out, HasSubstr("classname=\"pkg/caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd.py\""));
  EXPECT_THAT(Out, HasSubstr("name=\"broken\xef\xbf\xbd.py\""));
  std::string Dir = tempDir();
  writeFile(Dir + "/junit.xml", Out);
  EXPECT_TRUE(parsesAsXml(Dir + "/junit.xml")) << Out;
}

TEST(CiFormats, JunitOfARealFileWhoseNameIsNotUtf8) {
  std::string Dir = tempDir();
  writeFile(Dir + "/caf\xe9.py", "import torch\nd = torch.device(\"gpu\")\n");
  auto R = runTorchlint({"check", "--no-cache", "--format", "junit", "."}, Dir);
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_TRUE(llvm::json::isUTF8(R.Out)) << R.Out;
  EXPECT_THAT(R.Out, HasSubstr("classname=\"caf\xef\xbf\xbd.py\""));
  writeFile(Dir + "/junit.xml", R.Out);
  EXPECT_TRUE(parsesAsXml(Dir + "/junit.xml")) << R.Out;
  R = runTorchlint({"check", "--no-cache", "--format", "github", "."}, Dir);
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_TRUE(llvm::json::isUTF8(R.Out)) << R.Out;
  EXPECT_THAT(R.Out, HasSubstr("file=caf\xef\xbf\xbd.py,line=2"));
}

TEST(CiFormats, SelectableOnTheCommandLine) {
  std::string Dir = tempDir();
  writeFile(Dir + "/a.py", "import torch\nd = torch.device(\"gpu\")\n");
  auto R = runTorchlint({"check", "--format", "gitlab", "a.py"}, Dir);
  EXPECT_EQ(R.Exit, 1);
  EXPECT_THAT(R.Out, HasSubstr("\"check_name\": \"TL107\""));
  R = runTorchlint({"check", "--format", "junit", "a.py"}, Dir);
  EXPECT_EQ(R.Exit, 1);
  EXPECT_THAT(R.Out, HasSubstr("<testcase name=\"torchlint.TL107\" classname=\"a.py\""));
}

} // namespace
} // namespace torchlint::test
