// The torch requirement a project declares, and the target PyTorch a file gets from it.
#include "config/Config.h"
#include "config/Requirements.h"

#include "Rules.h"
#include "TestUtil.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

namespace torchlint {
namespace {

using test::runTorchlint;
using test::tempDir;
using test::writeFile;

std::optional<TorchVersion> bound(std::string_view R, bool Poetry = false) { return torchLowerBound(R, Poetry); }

TEST(Requirements, LowerBoundOfPep508) {
  EXPECT_EQ(bound("torch>=2.1"), (TorchVersion{2, 1}));
  EXPECT_EQ(bound("torch >= 1.13.1, <3"), (TorchVersion{1, 13}));
  EXPECT_EQ(bound("torch~=2.2.0"), (TorchVersion{2, 2}));
  EXPECT_EQ(bound("torch==2.0.1+cu118"), (TorchVersion{2, 0}));
  EXPECT_EQ(bound("torch[opt-einsum]>=2.3; python_version > '3.8'"), (TorchVersion{2, 3}));
  EXPECT_EQ(bound("Torch (>=1.9)"), (TorchVersion{1, 9}));
  EXPECT_EQ(bound("torch>1.8,>=1.10"), (TorchVersion{1, 10})); // the tighter of two bounds
}

TEST(Requirements, NoLowerBound) {
  EXPECT_EQ(bound("torch"), std::nullopt);
  EXPECT_EQ(bound("torch<2"), std::nullopt);
  EXPECT_EQ(bound("torch!=2.0.0"), std::nullopt);
  EXPECT_EQ(bound("torch @ https://example.org/torch.whl"), std::nullopt);
  EXPECT_EQ(bound("torchvision>=0.15"), std::nullopt);
  EXPECT_EQ(bound("torch-geometric>=2.0"), std::nullopt);
  EXPECT_EQ(bound("pytorch-lightning>=2.0"), std::nullopt);
}

TEST(Requirements, Poetry) {
  EXPECT_EQ(bound("torch ^2.1", true), (TorchVersion{2, 1}));
  EXPECT_EQ(bound("torch ~1.13", true), (TorchVersion{1, 13}));
  EXPECT_EQ(bound("torch 2.2", true), (TorchVersion{2, 2}));
  EXPECT_EQ(bound("torch *", true), std::nullopt);
}

std::string project(const std::vector<std::pair<std::string, std::string>> &Files) {
  std::string Root = tempDir();
  for (auto &[Name, Text] : Files) {
    llvm::sys::fs::create_directories(Root + "/" + Name.substr(0, Name.rfind('/') == std::string::npos ? 0 : Name.rfind('/')));
    writeFile(Root + "/" + Name, Text);
  }
  return Root;
}

TEST(Requirements, EachKindOfFile) {
  auto Declared = [](const std::vector<std::pair<std::string, std::string>> &Files) {
    return declaredTorch(project(Files));
  };
  auto D = Declared({{"pyproject.toml", "[project]\nname = 'x'\ndependencies = [\"numpy\", \"torch>=2.1\"]\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{2, 1}));
  EXPECT_EQ(D->Source, "torch>=2.1 in pyproject.toml");
  D = Declared({{"pyproject.toml", "[tool.poetry.dependencies]\ntorch = { version = \"^1.13\", source = \"pt\" }\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{1, 13}));
  D = Declared({{"setup.cfg", "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n    torch>=1.12\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{1, 12}));
  D = Declared({{"setup.py", "setup(name='x', install_requires=['numpy', 'torch>=1.10', 'tqdm'])\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{1, 10}));
  EXPECT_EQ(D->Source, "torch>=1.10 in setup.py");
  D = Declared({{"requirements.txt", "# deps\n-r base.txt\nnumpy\ntorch>=2.0  # CUDA 11.8\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{2, 0}));
  EXPECT_FALSE(Declared({{"requirements.txt", "torch\n"}, {"setup.py", "import torch\n"}}));
  // Includes are followed as pip follows them, relative to the including file, cycles stopped.
  D = Declared({{"requirements.txt", "-r ./requirements/fabric/base.txt\n--requirement=requirements/pytorch/base.txt\n"},
                {"requirements/fabric/base.txt", "numpy\n"},
                {"requirements/pytorch/base.txt", "-c ../constraints.txt\ntorch >=2.1.0, <2.10.0\n"},
                {"requirements/constraints.txt", "-r pytorch/base.txt\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{2, 1}));
  EXPECT_EQ(D->Source, "torch >=2.1.0, <2.10.0 in requirements/pytorch/base.txt");
  EXPECT_FALSE(Declared({{"requirements.txt", "-r requirements.txt\n-r other.txt\n"}, {"other.txt", "-r requirements.txt\n"}}));
  // A malformed pyproject.toml declares nothing; the next file still counts.
  D = Declared({{"pyproject.toml", "[project\n"}, {"requirements.txt", "torch>=1.9\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{1, 9}));
}

TEST(Requirements, ReadmePinWhereTheMetadataDeclaresNone) {
  auto Declared = [](const std::vector<std::pair<std::string, std::string>> &Files) {
    return declaredTorch(project(Files));
  };
  auto D = Declared({{"README.md", "# Net\n\nTested with PyTorch 1.7.1 and torchvision 0.8.2.\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{1, 7}));
  EXPECT_EQ(D->Source, "PyTorch 1.7.1 in README.md");
  D = Declared({{"README.rst", "Install::\n\n    pip install torchvision==0.9 torch==1.8.0\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{1, 8}));
  EXPECT_EQ(D->Source, "torch==1.8.0 in README.rst");
  // Prose without a version, and other packages' versions, pin nothing.
  EXPECT_FALSE(Declared({{"README.md", "Requires PyTorch. torchvision 0.8 and torch.cuda 11 are optional.\n"}}));
  // The metadata comes first.
  D = Declared({{"README.md", "PyTorch 1.7\n"}, {"requirements.txt", "torch>=2.2\n"}});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{2, 2}));
}

TEST(Requirements, SettingsTakeConfigThenDeclaredThenCurrent) {
  std::string Root = project({{".git/HEAD", ""},
                              {"requirements.txt", "torch>=1.12\n"},
                              {"pkg/pyproject.toml", "[project]\nname = 'pkg'\n"},
                              {"pkg/m.py", "import torch\n"},
                              {"pkg/sub/deep/m.py", "import torch\n"},
                              {"src/a/b/m.py", "import torch\n"},
                              {"pinned/torchlint.toml", "target-torch-version = \"2.6\"\n"},
                              {"pinned/m.py", "import torch\n"}});
  ConfigResolver Res(rules::registry(), {});
  auto Settings = [&](const std::string &File) {
    auto C = Res.forPath(File);
    EXPECT_TRUE(bool(C));
    return Res.settingsFor(**C, File);
  };
  // pkg/ has its own pyproject.toml without torch: the repository's requirements apply.
  LintSettings S = Settings(Root + "/pkg/m.py");
  EXPECT_EQ(S.target(), (TorchVersion{1, 12}));
  EXPECT_EQ(S.describeTarget(), "PyTorch 1.12 (torch>=1.12 in requirements.txt)");
  // Folders without a marker declare what the folders above them do, whichever is asked first.
  for (const char *File : {"/src/a/b/m.py", "/pkg/sub/deep/m.py"})
    EXPECT_EQ(Settings(Root + File).describeTarget(), "PyTorch 1.12 (torch>=1.12 in requirements.txt)") << File;
  S = Settings(Root + "/pinned/m.py");
  EXPECT_EQ(S.target(), (TorchVersion{2, 6}));
  EXPECT_EQ(S.TargetSource, "target-torch-version in torchlint.toml");
  std::string Bare = project({{".git/HEAD", ""}, {"m.py", "import torch\n"}});
  S = Settings(Bare + "/m.py");
  EXPECT_EQ(S.target(), CurrentStableTorch);
  EXPECT_FALSE(S.TargetTorch);
}

TEST(Requirements, ShowSettingsNamesTheTarget) {
  std::string Root = project({{"setup.py", "install_requires=['torch>=2.0']\n"}, {"train.py", "import torch\n"}});
  auto R = runTorchlint({"check", "--show-settings", "train.py"}, Root);
  EXPECT_EQ(R.Exit, 0) << R.Err;
  EXPECT_NE(R.Out.find("Target: PyTorch 2.0 (torch>=2.0 in setup.py)"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("Rules: "), std::string::npos) << R.Out;
}

TEST(Requirements, PyTorchsOwnPackageRunsWithItsOwnVersion) {
  std::string Root = project({{"site/torch/version.py", "__version__ = '1.13.1'\ndebug = False\n"},
                              {"site/torch/cuda/amp/autocast_mode.py", "import torch\n"},
                              {"site/vision/torch_utils.py", "import torch\n"}});
  auto D = enclosingTorchPackage(Root + "/site/torch/cuda/amp");
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Lower, (TorchVersion{1, 13}));
  EXPECT_FALSE(enclosingTorchPackage(Root + "/site/vision")) << "a folder that only depends on torch";
  EXPECT_FALSE(enclosingTorchPackage(Root + "/site")) << "above the package";
  // The same through the resolver, which asks each folder once: below the package's folder,
  // in it, and beside it.
  ConfigResolver Res(rules::registry(), {});
  for (auto [File, Want] : {std::pair{"/site/torch/cuda/amp/autocast_mode.py", true},
                            std::pair{"/site/torch/version.py", true}, std::pair{"/site/vision/torch_utils.py", false}}) {
    auto C = Res.forPath(Root + File);
    ASSERT_TRUE(bool(C));
    LintSettings S = Res.settingsFor(**C, Root + File);
    EXPECT_EQ(S.TargetTorch == std::optional<TorchVersion>(TorchVersion{1, 13}), Want) << File;
  }
}

} // namespace
} // namespace torchlint
