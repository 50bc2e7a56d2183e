// Configuration parsing, validation, selection and glob matching.
#include "config/Config.h"

#include "TestUtil.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torchlint {
namespace {

using ::testing::HasSubstr;

std::string errorOf(std::string_view Text, const std::string &Path = "/p/pyproject.toml") {
  auto C = parseConfig(Text, Path, rules::registry());
  if (C)
    return "";
  return llvm::toString(C.takeError());
}

TEST(Config, PyprojectWithoutTableIsNoConfig) {
  auto C = parseConfig("[project]\nname = 'x'\n", "/p/pyproject.toml", rules::registry());
  ASSERT_TRUE(bool(C));
  EXPECT_FALSE(C->has_value());
}

TEST(Config, ReadsEveryKey) {
  auto C = parseConfig("[tool.torchlint]\nselect = [\"TL1\"]\nignore = [\"TL105\"]\nextend-select = [\"TL306\"]\n"
                       "per-file-ignores = { \"tests/*\" = [\"TL106\"] }\nexclude = [\"a\"]\nextend-exclude = [\"b\"]\n"
                       "target-torch-version = \"2.1\"\n",
                       "/p/pyproject.toml", rules::registry());
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  ASSERT_TRUE(C->has_value());
  const Config &K = **C;
  EXPECT_EQ(K.Root, "/p");
  EXPECT_EQ(*K.Select, std::vector<std::string>{"TL1"});
  EXPECT_EQ(K.Ignore, std::vector<std::string>{"TL105"});
  EXPECT_EQ(K.ExtendSelect, std::vector<std::string>{"TL306"});
  ASSERT_EQ(K.PerFileIgnores.size(), 1u);
  EXPECT_EQ(K.PerFileIgnores[0].first, "tests/*");
  EXPECT_EQ(*K.Exclude, std::vector<std::string>{"a"});
  EXPECT_EQ(K.ExtendExclude, std::vector<std::string>{"b"});
  EXPECT_EQ(K.TargetTorch, (TorchVersion{2, 1}));
}

TEST(Config, TorchlintTomlIsTopLevel) {
  auto C = parseConfig("select = [\"TL3\"]\n", "/p/torchlint.toml", rules::registry());
  ASSERT_TRUE(bool(C));
  ASSERT_TRUE(C->has_value());
  EXPECT_EQ(*(*C)->Select, std::vector<std::string>{"TL3"});
}

TEST(Config, ErrorsNameFileKeyAndWhy) {
  EXPECT_THAT(errorOf("[tool.torchlint]\nbogus = 1\n"), HasSubstr("/p/pyproject.toml: 2:9: unknown key `tool.torchlint.bogus`"));
  EXPECT_THAT(errorOf("[tool.torchlint]\nselect = [1]\n"), HasSubstr("must be a list of strings"));
  EXPECT_THAT(errorOf("[tool.torchlint]\nselect = [\"XY1\"]\n"), HasSubstr("unknown rule code or prefix `XY1`"));
  EXPECT_THAT(errorOf("[tool.torchlint]\nper-file-ignores = 3\n"), HasSubstr("must be a table"));
  EXPECT_THAT(errorOf("[tool.torchlint]\ntarget-torch-version = 2.1\n"), HasSubstr("must be a string"));
  EXPECT_THAT(errorOf("[tool.torchlint]\ntarget-torch-version = \"latest\"\n"), HasSubstr("not a version"));
  EXPECT_THAT(errorOf("[tool.torchlint\n"), HasSubstr("invalid TOML"));
  EXPECT_THAT(errorOf("[tool]\ntorchlint = 3\n"), HasSubstr("must be a table"));
}

TEST(Config, EmptyCodesAndInvalidGlobsAreRejected) {
  // `""` is a prefix of every code: `ignore = [""]` silenced every rule.
  for (const char *Key : {"select", "ignore", "extend-select", "fixable", "unfixable"})
    EXPECT_THAT(errorOf(std::string("[tool.torchlint]\n") + Key + " = [\"\"]\n"),
                HasSubstr("unknown rule code or prefix ``"))
        << Key;
  EXPECT_THAT(errorOf("[tool.torchlint]\nper-file-ignores = { \"a.py\" = [\"\"] }\n"),
              HasSubstr("unknown rule code or prefix ``"));
  EXPECT_TRUE(rules::registry().matching("").empty());
  for (const char *Glob : {"[z-a]", "[", "\\\\", "a\\\\"}) {
    EXPECT_THAT(errorOf(std::string("[tool.torchlint]\nexclude = [\"") + Glob + "\"]\n"),
                HasSubstr("`tool.torchlint.exclude`: invalid glob"))
        << Glob;
    EXPECT_THAT(errorOf(std::string("[tool.torchlint]\nextend-exclude = [\"") + Glob + "\"]\n"),
                HasSubstr("invalid glob"))
        << Glob;
    EXPECT_THAT(errorOf(std::string("[tool.torchlint.per-file-ignores]\n\"") + Glob + "\" = [\"TL1\"]\n"),
                HasSubstr("`tool.torchlint.per-file-ignores`: invalid glob"))
        << Glob;
  }
  EXPECT_EQ(errorOf("[tool.torchlint]\nexclude = [\"tests/[a-z]*\", \"a\\\\\\\\b\"]\n"), "");
}

TEST(Config, ConfigFilesThatAreNoFilesAreErrors) {
  std::string Dir = test::tempDir();
  auto errorOfFile = [&](const std::string &Path) {
    auto C = loadConfig(Path, rules::registry());
    return C ? std::string() : llvm::toString(C.takeError());
  };
  ASSERT_EQ(::mkdir((Dir + "/dir.toml").c_str(), 0700), 0);
  EXPECT_THAT(errorOfFile(Dir + "/dir.toml"), HasSubstr("dir.toml: cannot read the configuration file: it is a directory"));
  ASSERT_EQ(::symlink("missing.toml", (Dir + "/dangling.toml").c_str()), 0);
  EXPECT_THAT(errorOfFile(Dir + "/dangling.toml"), HasSubstr("a symbolic link to a missing file"));
  ASSERT_EQ(::mkfifo((Dir + "/fifo.toml").c_str(), 0600), 0);
  EXPECT_THAT(errorOfFile(Dir + "/fifo.toml"), HasSubstr("not a regular file")); // and does not block
  EXPECT_THAT(errorOfFile(Dir + "/absent.toml"), HasSubstr("cannot read the configuration file"));

  // Found by walking up, the same: a folder named torchlint.toml is an error, not "no config".
  ASSERT_EQ(::mkdir((Dir + "/p").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((Dir + "/p/torchlint.toml").c_str(), 0700), 0);
  ConfigResolver R(rules::registry(), CliOptions{});
  auto C = R.forPath(Dir + "/p/a.py");
  ASSERT_FALSE(bool(C));
  EXPECT_THAT(llvm::toString(C.takeError()), HasSubstr("torchlint.toml: cannot read the configuration file: it is a directory"));
}

TEST(Config, TorchVersions) {
  auto V = parseTorchVersion("2.6");
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V, (TorchVersion{2, 6}));
  V = parseTorchVersion("1.13.1");
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V, (TorchVersion{1, 13}));
  V = parseTorchVersion("2");
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(*V, (TorchVersion{2, 0}));
  for (const char *Bad : {"", "2.", ".1", "2.x", "v2", "2.1.3.4", "99999.1"}) {
    auto B = parseTorchVersion(Bad);
    EXPECT_FALSE(bool(B)) << Bad;
    if (!B)
      llvm::consumeError(B.takeError());
  }
  EXPECT_LT((TorchVersion{2, 4}), (TorchVersion{2, 6}));
  EXPECT_LT((TorchVersion{1, 13}), (TorchVersion{2, 0}));
}

TEST(Config, SelectionOrder) {
  ConfigResolver R(rules::registry(), {});
  Config C;
  C.Root = "/p";
  auto On = [&](const Config &K, const std::string &File = "/p/a.py") { return R.settingsFor(K, File); };
  EXPECT_TRUE(On(C).enabled("TL402"));
  EXPECT_FALSE(On(C).enabled("TL306")) << "opt-in rules are off by default";
  EXPECT_FALSE(On(C).enabled("TL305")) << "nearly always deliberate on real code: opt-in";
  EXPECT_FALSE(On(C).enabled("TL401")) << "a design advice, not a bug: opt-in";
  C.ExtendSelect = {"TL306"};
  EXPECT_TRUE(On(C).enabled("TL306"));
  C.Ignore = {"TL4"};
  EXPECT_FALSE(On(C).enabled("TL402"));
  C.Select = std::vector<std::string>{"TL3"};
  EXPECT_FALSE(On(C).enabled("TL105"));
  EXPECT_TRUE(On(C).enabled("TL301"));
  C.PerFileIgnores = {{"tests/*.py", {"TL301"}}};
  EXPECT_FALSE(On(C, "/p/tests/test_x.py").enabled("TL301"));
  EXPECT_TRUE(On(C, "/p/src/x.py").enabled("TL301"));

  CliOptions Cli;
  Cli.Select = std::vector<std::string>{"TL401"};
  ConfigResolver WithCli(rules::registry(), Cli);
  EXPECT_TRUE(WithCli.settingsFor(C, "/p/a.py").enabled("TL401")) << "--select replaces the file's selection";
}

TEST(Config, Globs) {
  EXPECT_TRUE(matchesGlob("build", "build/x.py"));
  EXPECT_TRUE(matchesGlob("build", "a/build/x.py"));
  EXPECT_FALSE(matchesGlob("build", "builder/x.py"));
  EXPECT_TRUE(matchesGlob("tests/*.py", "tests/test_a.py"));
  EXPECT_FALSE(matchesGlob("tests/*.py", "src/tests/test_a.py"));
  EXPECT_TRUE(matchesGlob("*.pyi", "pkg/a.pyi"));
  EXPECT_TRUE(matchesGlob("./vendored/", "vendored/x/y.py"));
  EXPECT_TRUE(matchesGlob("__init__.py", "pkg/__init__.py"));
  EXPECT_FALSE(matchesGlob("", "a.py"));
  EXPECT_FALSE(matchesGlob("build", "/abs/builder"));
}

} // namespace
} // namespace torchlint
