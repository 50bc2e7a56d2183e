// End-to-end tests of the torchlint binary: exit codes, formats, stdin, configuration
// discovery, excludes, suppressions, statistics, and bad input of every kind.
#include "TestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>

#include <algorithm>

#include <sys/stat.h>
#include <unistd.h>

namespace torchlint::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A finding of a default rule that no analysis refines: an invalid device string (TL107).
const std::string Finding = "import torch\ndevice = torch.device(\"gpu\")\n";
const std::string Clean = "import torch\nx = torch.ones(3)\n";

using Project = TempProject;

TEST(Cli, ExitCodes) {
  Project P;
  P.file("clean.py", Clean).file("bad.py", Finding);
  auto R = P.run({"check", "clean.py"});
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("All checks passed!"));
  R = P.run({"check", "bad.py"});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("bad.py:2:23: TL107"));
  EXPECT_EQ(P.run({"bad.py"}).Exit, 1) << "bare `torchlint PATHS` is `check`";
  EXPECT_EQ(P.run({"check", "--exit-zero", "bad.py"}).Exit, 0);
  R = P.run({"check", "--no-such-option", "bad.py"});
  EXPECT_EQ(R.Exit, 2);
  R = P.run({"check", "--select", "TL999", "bad.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("TL999"));
  R = P.run({"check", "--format", "xml", "bad.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("xml"));
  R = P.run({"check", "missing.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("missing.py"));
}

// Ruff's behaviour: a run that found nothing to lint says so on stderr and exits 0, rather than
// printing nothing, which reads as "all clean" when the path or the excludes are wrong.
TEST(Cli, NoPythonFilesFoundIsSaid) {
  Project P;
  const std::string Warning = "No Python files found under the given path(s)";
  ASSERT_FALSE(llvm::sys::fs::create_directories(P.Root + "/empty"));
  auto R = P.run({"check", "empty"});
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_THAT(R.Err, HasSubstr(Warning));
  EXPECT_EQ(std::count(R.Err.begin(), R.Err.end(), '\n'), 1) << R.Err;
  R = P.run({"check", "--format", "json", "empty"});
  EXPECT_EQ(R.Exit, 0);
  EXPECT_EQ(R.Out, "[]\n") << "the report itself is unchanged";
  EXPECT_THAT(R.Err, HasSubstr(Warning));
  EXPECT_THAT(P.run({"check", "--fix", "empty"}).Err, HasSubstr(Warning));
  // A folder whose only Python file is a link: the walk does not follow links.
  P.file("real/a.py", Finding);
  ASSERT_FALSE(llvm::sys::fs::create_directories(P.Root + "/links"));
  ASSERT_EQ(symlink((P.Root + "/real/a.py").c_str(), (P.Root + "/links/a.py").c_str()), 0);
  R = P.run({"check", "links"});
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_THAT(R.Err, HasSubstr(Warning));
  // Files found: no warning, whatever they hold.
  R = P.run({"check", "real"});
  EXPECT_EQ(R.Exit, 1);
  EXPECT_THAT(R.Err, Not(HasSubstr(Warning)));
  R = P.run({"check", "links/a.py"});
  EXPECT_EQ(R.Exit, 1) << "a link named on the command line is linted";
  EXPECT_THAT(R.Err, Not(HasSubstr(Warning)));
  // A path that does not exist is an error of its own, not this warning.
  R = P.run({"check", "missing"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, Not(HasSubstr(Warning)));
}

TEST(Cli, DirectoryDiscoveryIsSortedAndSkipsExcludedFolders) {
  Project P;
  P.file("b.py", Finding).file("a/a.py", Finding).file(".venv/lib/x.py", Finding).file("build/gen.py", Finding)
      .file("node_modules/pkg/y.py", Finding).file("notes.txt", Finding).file("ignored/z.py", Finding)
      .file(".gitignore", "ignored/\n*.tmp.py\n").file("c.tmp.py", Finding);
  llvm::sys::fs::create_directories(P.Root + "/.git");
  auto R = P.run({"check", "--format", "concise", "."});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_EQ(R.Out, "a/a.py:2:23: TL107 `\"gpu\"` is not a device string `torch.device` accepts: it raises `RuntimeError`; PyTorch calls NVIDIA and AMD GPUs `\"cuda\"` and Apple GPUs `\"mps\"`\n"
                   "b.py:2:23: TL107 `\"gpu\"` is not a device string `torch.device` accepts: it raises `RuntimeError`; PyTorch calls NVIDIA and AMD GPUs `\"cuda\"` and Apple GPUs `\"mps\"`\n"
                   "Found 2 errors.\n");
  // The same with one thread: output does not depend on the thread count.
  EXPECT_EQ(P.run({"check", "--format", "concise", "-j", "1", "."}).Out, R.Out);
}

TEST(Cli, FormatsAreWellFormed) {
  Project P;
  P.file("bad.py", Finding + "x = 1  # noqa: TL999\n");
  auto R = P.run({"check", "--format", "json", "bad.py"});
  EXPECT_EQ(R.Exit, 1);
  auto J = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(J)) << llvm::toString(J.takeError());
  ASSERT_EQ(J->getAsArray()->size(), 2u);
  const auto *First = (*J->getAsArray())[0].getAsObject();
  EXPECT_EQ(First->getString("code"), llvm::StringRef("TL107"));
  EXPECT_EQ(First->getString("filename"), llvm::StringRef("bad.py"));
  EXPECT_EQ(*First->getObject("location")->getInteger("row"), 2);
  EXPECT_EQ(*First->getObject("location")->getInteger("column"), 23);

  R = P.run({"check", "--format", "sarif", "bad.py"});
  auto S = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_EQ(S->getAsObject()->getString("version"), llvm::StringRef("2.1.0"));

  R = P.run({"check", "--format", "github", "bad.py"});
  EXPECT_THAT(R.Out, HasSubstr("::error title=torchlint (TL107),file=bad.py,line=2,col=23"));

  R = P.run({"check", "--format", "concise", "bad.py"});
  EXPECT_THAT(R.Out, HasSubstr("bad.py:3:16: TL002 [*] unknown rule code `TL999` in suppression\n"));

  R = P.run({"check", "bad.py"});
  EXPECT_THAT(R.Out, HasSubstr("2 | device = torch.device(\"gpu\")\n  |                       ^^^^^\n"));
  EXPECT_THAT(R.Out, Not(HasSubstr("\x1b["))) << "no colours when not on a terminal";
}

TEST(Cli, OutputFileAndStatistics) {
  Project P;
  P.file("bad.py", Finding + Finding);
  auto R = P.run({"check", "-o", "report.json", "--format", "json", "bad.py"});
  EXPECT_EQ(R.Exit, 1);
  EXPECT_EQ(R.Out, "");
  EXPECT_THAT(readFile(P.Root + "/report.json"), HasSubstr("\"TL107\""));
  R = P.run({"check", "--statistics", "bad.py"});
  EXPECT_EQ(R.Exit, 1);
  EXPECT_EQ(R.Out, "    2\tTL107\t[ ] invalid-device-string\n");
}

TEST(Cli, Stdin) {
  Project P;
  auto R = P.run({"check", "--stdin-filename", "pkg/model.py"}, Finding);
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("pkg/model.py:2:23: TL107"));
  R = P.run({"check", "-"}, Clean);
  EXPECT_EQ(R.Exit, 0) << R.Err;
  // The stdin file name finds its configuration.
  P.file("pkg/pyproject.toml", "[tool.torchlint]\nignore = [\"TL107\"]\n");
  R = P.run({"check", "--stdin-filename", "pkg/model.py"}, Finding);
  EXPECT_EQ(R.Exit, 0) << R.Out << R.Err;
}

TEST(Cli, ConfigurationDiscoveryNearestWins) {
  Project P;
  P.file("pyproject.toml", "[project]\nname = 'x'\n[tool.torchlint]\nignore = [\"TL1\"]\n")
      .file("top.py", Finding)
      .file("sub/torchlint.toml", "select = [\"TL107\"]\n")
      .file("sub/inner.py", Finding)
      .file("other/pyproject.toml", "[project]\nname = 'no torchlint table: keep walking up'\n")
      .file("other/o.py", Finding);
  auto R = P.run({"check", "--format", "concise", "."});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("sub/inner.py:2:23: TL107"));
  EXPECT_THAT(R.Out, Not(HasSubstr("top.py")));
  EXPECT_THAT(R.Out, Not(HasSubstr("other/o.py")));
  // --select on the command line overrides the files.
  R = P.run({"check", "--format", "concise", "--select", "TL107", "top.py"});
  EXPECT_EQ(R.Exit, 1);
  // --config applies one file to everything.
  P.file("empty.toml", "");
  R = P.run({"check", "--format", "concise", "--config", "empty.toml", "top.py"});
  EXPECT_EQ(R.Exit, 1);
}

TEST(Cli, PerFileIgnoresAndExcludes) {
  Project P;
  P.file("pyproject.toml", "[tool.torchlint]\nper-file-ignores = { \"tests/*.py\" = [\"TL107\"] }\n"
                           "extend-exclude = [\"vendored\"]\n")
      .file("tests/test_a.py", Finding)
      .file("src/a.py", Finding)
      .file("vendored/v.py", Finding);
  auto R = P.run({"check", "--format", "concise", "."});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("src/a.py"));
  EXPECT_THAT(R.Out, Not(HasSubstr("tests/test_a.py")));
  EXPECT_THAT(R.Out, Not(HasSubstr("vendored")));
  // Named explicitly, an excluded file is linted unless --force-exclude (pre-commit) says otherwise.
  EXPECT_EQ(P.run({"check", "vendored/v.py"}).Exit, 1);
  EXPECT_EQ(P.run({"check", "--force-exclude", "vendored/v.py"}).Exit, 0);
}

TEST(Cli, Suppressions) {
  Project P;
  P.file("a.py", "import torch\n"
                 "a = torch.device(\"gpu\")  # noqa: TL107\n"
                 "b = torch.device(\"gpu\")  # noqa\n"
                 "c = torch.device(\"gpu\")  # torchlint: disable=TL107\n"
                 "d = torch.device(\"gpu\")  # noqa: TL105\n");
  auto R = P.run({"check", "--format", "concise", "a.py"});
  EXPECT_EQ(R.Exit, 1);
  EXPECT_THAT(R.Out, HasSubstr("a.py:5:18: TL107"));
  EXPECT_THAT(R.Out, Not(HasSubstr("a.py:2:")));
  P.file("b.py", "# torchlint: disable-file=TL107\n" + Finding);
  EXPECT_EQ(P.run({"check", "b.py"}).Exit, 0);
}

TEST(Cli, RulesAndDocumentation) {
  auto R = runTorchlint({"rules"});
  EXPECT_EQ(R.Exit, 0);
  for (auto &Ru : rules::registry().rules())
    EXPECT_THAT(R.Out, HasSubstr(std::string(Ru->info().Code) + "  " + std::string(Ru->info().Name)));
  R = runTorchlint({"rule", "TL401"});
  EXPECT_EQ(R.Exit, 0);
  EXPECT_THAT(R.Out, HasSubstr("## Why is this bad?"));
  R = runTorchlint({"rule", "TL999"});
  EXPECT_EQ(R.Exit, 2);
  R = runTorchlint({"--version"});
  EXPECT_EQ(R.Exit, 0);
  EXPECT_THAT(R.Out, HasSubstr("tree-sitter-python 0.23.6"));
}

TEST(Cli, DumpFlowShowsScopesAndValues) {
  Project P;
  P.file("train.py", "import torch\n"
                     "class Net(torch.nn.Module):\n"
                     "    def forward(self, x):\n"
                     "        return x\n"
                     "model = torch.nn.Linear(2, 2).to(\"cuda:1\")\n");
  auto R = P.run({"dump-flow", "train.py"});
  EXPECT_EQ(R.Exit, 0);
  EXPECT_THAT(R.Out, HasSubstr("scope 2 parent 1 forward roles 1 method-of Net"));
  EXPECT_THAT(R.Out, HasSubstr("class Net module"));
  EXPECT_THAT(R.Out, HasSubstr("5:9-5:43 call `torch.nn.Linear(2, 2).to(\"cuda`: module on cuda:1 (moved at line 5) "
                               "float32 (constructed at line 5)"));
  EXPECT_EQ(P.run({"dump-flow"}).Exit, 2);
  EXPECT_EQ(P.run({"dump-flow", "missing.py"}).Exit, 2);
}

// ---- Bad input: one clear line each, the run goes on, nothing crashes. ----

TEST(CliBadInput, UnreadableBinaryAndNonUtf8FilesAreSkippedWithOneLine) {
  Project P;
  P.file("good.py", Finding);
  P.file("binary.py", std::string("import torch\0\x01\x02", 15));
  P.file("latin1.py", "# caf\xe9\nimport torch\n");
  ASSERT_EQ(symlink("nowhere.py", (P.Root + "/dangling.py").c_str()), 0);
  auto R = P.run({"check", "--format", "concise", "good.py", "binary.py", "latin1.py", "dangling.py"});
  EXPECT_EQ(R.Exit, 2) << "files that could not be checked make the run an error";
  EXPECT_THAT(R.Out, HasSubstr("good.py:2:23: TL107")) << "the other files are still linted";
  EXPECT_THAT(R.Err, HasSubstr("binary.py: binary file (contains NUL bytes); skipped"));
  EXPECT_THAT(R.Err, HasSubstr("latin1.py: not valid UTF-8 (line 1, column 6); skipped"));
  EXPECT_THAT(R.Err, HasSubstr("dangling.py: No such file or directory"));
  size_t Lines = std::count(R.Err.begin(), R.Err.end(), '\n');
  EXPECT_EQ(Lines, 3u) << R.Err;
}

TEST(CliBadInput, FifoIsSkippedNotWaitedOn) {
  Project P;
  P.file("good.py", Finding);
  ASSERT_EQ(mkfifo((P.Root + "/pipe.py").c_str(), 0600), 0);
  // Named and found by the walk: either way one line, and the run ends.
  auto R = P.run({"check", "--format", "concise", "--no-cache", ".", "pipe.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Out, HasSubstr("good.py:2:23: TL107"));
  EXPECT_THAT(R.Err, HasSubstr("pipe.py: not a regular file (a FIFO, socket or device); skipped"));
}

TEST(CliBadInput, ConfigurationThatIsNoFileIsAnError) {
  Project P;
  P.file("a.py", Finding);
  auto R = P.run({"check", "--config", P.Root, "a.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr(P.Root + ": cannot read the configuration file: it is a directory"));
  R = P.run({"check", "--config", P.Root + "/absent.toml", "a.py"});
  EXPECT_EQ(R.Exit, 2);
  ASSERT_EQ(symlink("nowhere.toml", (P.Root + "/torchlint.toml").c_str()), 0);
  R = P.run({"check", "a.py"});
  EXPECT_EQ(R.Exit, 2) << "a dangling torchlint.toml is not silently ignored";
  EXPECT_THAT(R.Err, HasSubstr("torchlint.toml: cannot read the configuration file: a symbolic link to a missing file"));
  ASSERT_EQ(unlink((P.Root + "/torchlint.toml").c_str()), 0);
  ASSERT_EQ(mkfifo((P.Root + "/torchlint.toml").c_str(), 0600), 0);
  R = P.run({"check", "a.py"});
  EXPECT_EQ(R.Exit, 2) << "a FIFO is not read (it would block)";
  EXPECT_THAT(R.Err, HasSubstr("not a regular file"));
  R = P.run({"check", "--select", "", "a.py"});
  EXPECT_EQ(R.Exit, 2) << "an empty code selects nothing and is rejected";
}

TEST(CliBadInput, Pep263DeclaredEncodingIsReadAndWrittenBack) {
  Project P;
  // Latin-1: `é` is one byte in the file and one column in the report.
  std::string Latin1 = "# -*- coding: latin-1 -*-\n# caf\xe9\nimport torch\ns = \"\xe9\xe9\"; y = torch.device(\"CPU\")\n";
  P.file("latin1.py", Latin1);
  auto R = P.run({"check", "--no-cache", "--format", "concise", "latin1.py"});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("latin1.py:4:28: TL107"));
  R = P.run({"check", "--no-cache", "latin1.py"});
  EXPECT_THAT(R.Out, HasSubstr("s = \"\xc3\xa9\xc3\xa9\"")) << "the snippet is shown in UTF-8";
  R = P.run({"check", "--no-cache", "--format", "json", "latin1.py"});
  EXPECT_THAT(R.Out, HasSubstr("\"column\": 28"));
  R = P.run({"check", "--no-cache", "--fix", "latin1.py"});
  EXPECT_EQ(R.Exit, 0) << R.Err;
  std::string Fixed = Latin1;
  Fixed.replace(Fixed.find("\"CPU\""), 5, "\"cpu\"");
  EXPECT_EQ(readFile(P.Root + "/latin1.py"), Fixed) << "written back in Latin-1, only the fix changed";
  // Second line, after a shebang; windows-1252's own characters.
  P.file("cp1252.py", "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nimport torch\nq = \"\x93\x94\"; torch.device(\"gpu\")\n");
  R = P.run({"check", "--no-cache", "--format", "concise", "cp1252.py"});
  EXPECT_THAT(R.Out, HasSubstr("cp1252.py:4:24: TL107"));
  // An encoding torchlint cannot decode, and bytes the declared one has no character for.
  P.file("koi8.py", "# coding: koi8-r\nimport torch\n").file("ascii.py", "# coding=ascii\n# \xe9\n");
  R = P.run({"check", "--no-cache", "koi8.py", "ascii.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("koi8.py: declares the encoding `koi8-r` (PEP 263), which torchlint cannot read; skipped"));
  EXPECT_THAT(R.Err, HasSubstr("ascii.py: not valid ascii as it declares (line 2, column 3); skipped"));
  // Without a declaration the file is UTF-8, as for Python 3; a declaration on line 2 counts
  // only after a comment line.
  P.file("late.py", "import torch\n# coding: latin-1\nx = 1 # \xe9\n");
  R = P.run({"check", "--no-cache", "late.py"});
  EXPECT_THAT(R.Err, HasSubstr("late.py: not valid UTF-8"));
}

TEST(CliBadInput, DirectoryNamedLikeAFileIsWalked) {
  Project P;
  P.file("pkg.py/inner.py", Finding);
  auto R = P.run({"check", "--format", "concise", "pkg.py"});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr("pkg.py/inner.py:2:23: TL107"));
}

TEST(CliBadInput, SyntaxErrorIsReportedOnceAndTheRestIsLinted) {
  Project P;
  P.file("broken.py", "import torch\ndef f(:\n    pass\ndef g(:\n    pass\n"
                      "m = torch.device(\"gpu\")\n");
  auto R = P.run({"check", "--format", "concise", "broken.py"});
  EXPECT_EQ(R.Exit, 1);
  EXPECT_EQ(std::count(R.Out.begin(), R.Out.end(), '\n'), 3) << R.Out;
  EXPECT_THAT(R.Out, HasSubstr("broken.py:2:7: TL001 syntax error"));
  EXPECT_THAT(R.Out, HasSubstr("broken.py:6:18: TL107"));
}

TEST(CliBadInput, HugeFile) {
  Project P;
  std::string Big;
  Big.reserve(7 << 20);
  Big += "import torch\n";
  while (Big.size() < (7u << 20))
    Big += "def layer_" + std::to_string(Big.size()) + "(x):\n    return x * 2 + 1  # a comment to pad the line\n";
  Big += "m = torch.device(\"gpu\")\n";
  P.file("big.py", Big);
  auto R = P.run({"check", "--format", "concise", "big.py"});
  EXPECT_EQ(R.Exit, 1) << R.Err;
  EXPECT_THAT(R.Out, HasSubstr(": TL107"));
}

TEST(CliBadInput, DeepNestingDoesNotOverflowTheStack) {
  Project P;
  std::string Parens = "import torch\nx = " + std::string(3000, '(') + "1" + std::string(3000, ')') + "\n";
  std::string Calls = "import torch\nx = ";
  for (int I = 0; I < 3000; ++I)
    Calls += "torch.load(";
  Calls += "p" + std::string(3000, ')') + "\n";
  std::string Lists = "y = " + std::string(3000, '[') + std::string(3000, ']') + "\n";
  std::string Blocks = "import torch\n";
  for (int I = 0; I < 1000; ++I)
    Blocks += std::string(I, ' ') + "if x:\n";
  Blocks += std::string(1000, ' ') + "pass\n";
  std::string Attrs = "import torch\nz = torch";
  for (int I = 0; I < 3000; ++I)
    Attrs += ".a";
  Attrs += "\n";
  P.file("parens.py", Parens).file("calls.py", Calls).file("lists.py", Lists).file("blocks.py", Blocks)
      .file("attrs.py", Attrs);
  auto R = P.run({"check", "--select", "ALL", "--format", "concise", "."});
  EXPECT_TRUE(R.Exit == 0 || R.Exit == 1) << "exit " << R.Exit << "\n" << R.Err;
  EXPECT_EQ(R.Err, "");
}

TEST(CliBadInput, MalformedConfiguration) {
  Project P;
  P.file("a.py", Finding).file("pyproject.toml", "[tool.torchlint\nselect = [\n");
  auto R = P.run({"check", "a.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("pyproject.toml"));
  EXPECT_THAT(R.Err, HasSubstr("invalid TOML"));
  EXPECT_EQ(std::count(R.Err.begin(), R.Err.end(), '\n'), 1) << R.Err;

  P.file("pyproject.toml", "[tool.torchlint]\nselekt = [\"TL1\"]\n");
  R = P.run({"check", "a.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("unknown key `tool.torchlint.selekt`"));

  P.file("pyproject.toml", "[tool.torchlint]\nselect = \"TL1\"\n");
  R = P.run({"check", "a.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("`tool.torchlint.select` must be a list of strings"));

  P.file("pyproject.toml", "[tool.torchlint]\nignore = [\"TL99\"]\n");
  R = P.run({"check", "a.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("unknown rule code or prefix `TL99`"));

  P.file("pyproject.toml", "[tool.torchlint]\ntarget-torch-version = \"two\"\n");
  R = P.run({"check", "a.py"});
  EXPECT_EQ(R.Exit, 2);
  EXPECT_THAT(R.Err, HasSubstr("target-torch-version"));
}

} // namespace
} // namespace torchlint::test
