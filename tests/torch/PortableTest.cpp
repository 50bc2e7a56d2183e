// The portable-device rewrite (torch/Portable.cpp) on the cases its goldens do not show: what
// it leaves alone and says so, what it never touches, and programs that are CUDA-only by design.
#include "TestUtil.h"

#include <gtest/gtest.h>

namespace torchlint::test {
namespace {

const Diagnostic *withFix(const std::vector<Diagnostic> &D) {
  for (const auto &X : D)
    if (X.Fix)
      return &X;
  return nullptr;
}

TEST(PortableRewrite, LeavesWhatItCannotMakePortableAndSaysWhy) {
  const std::string Src = "import torch\n"
                          "x = torch.randn(4).cuda()\n"
                          "name = torch.cuda.get_device_name(0)\n"
                          "y = torch.cuda.FloatTensor(n)\n"
                          "z = torch.randn(4).cuda(rank)\n";
  auto D = lintString(Src, {"TL110"});
  const Diagnostic *F = withFix(D);
  ASSERT_NE(F, nullptr);
  EXPECT_EQ(F->Fix->Applic, Applicability::Unsafe);
  std::string Notes;
  for (const auto &N : F->Notes)
    Notes += N.Message + "\n";
  EXPECT_NE(Notes.find("`torch.cuda.get_device_name(...)`, which fails without CUDA: its result is used"),
            std::string::npos) << Notes;
  EXPECT_NE(Notes.find("cannot tell whether `n` is data or a size"), std::string::npos) << Notes;
  EXPECT_NE(Notes.find("leaves `.cuda(rank)`"), std::string::npos) << Notes;
  std::string Fixed = fixOnce(Src, "TL110");
  EXPECT_NE(Fixed.find("x = torch.randn(4).to(device)\n"), std::string::npos) << Fixed;
  EXPECT_NE(Fixed.find("name = torch.cuda.get_device_name(0)\n"), std::string::npos) << Fixed;
  EXPECT_NE(Fixed.find("y = torch.cuda.FloatTensor(n)\n"), std::string::npos) << Fixed;
}

TEST(PortableRewrite, NeverTouchesStringsCommentsOrGuardedCode) {
  const std::string Src = "import torch\n"
                          "model = torch.nn.Linear(2, 2).cuda()  # was .cuda() on \"cuda:0\"\n"
                          "doc = \"call .cuda() or .to('cuda') first\"\n"
                          "if torch.cuda.is_available():\n"
                          "    torch.cuda.synchronize()\n"
                          "    w = torch.zeros(2).cuda()\n";
  std::string Fixed = fixOnce(Src, "TL110");
  EXPECT_EQ(Fixed, "import torch\n\n"
                   "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
                   "model = torch.nn.Linear(2, 2).to(device)  # was .cuda() on \"cuda:0\"\n"
                   "doc = \"call .cuda() or .to('cuda') first\"\n"
                   "if torch.cuda.is_available():\n"
                   "    torch.cuda.synchronize()\n"
                   "    w = torch.zeros(2).cuda()\n");
  EXPECT_TRUE(parsesCleanly(Fixed));
}

TEST(PortableRewrite, MpsBranchWhereTheFileMentionsMps) {
  std::string Fixed = fixOnce("import torch\n"
                              "# also tried on mps\n"
                              "x = torch.ones(3, device=\"cuda\")\n"
                              "y = x.to(\"cuda:0\")\n",
                              "TL110");
  EXPECT_NE(Fixed.find("device = torch.device(\"cuda\" if torch.cuda.is_available() else \"mps\" if "
                       "torch.backends.mps.is_available() else \"cpu\")\n"),
            std::string::npos)
      << Fixed;
  EXPECT_NE(Fixed.find("x = torch.ones(3, device=device)\ny = x.to(device)\n"), std::string::npos) << Fixed;
}

TEST(PortableRewrite, ReusesTheFilesDeviceAndALocalOne) {
  std::string Fixed = fixOnce("import torch\n"
                              "DEVICE = \"cuda:0\"\n"
                              "def train(model, device):\n"
                              "    return model.to(\"cuda:1\")\n"
                              "x = torch.ones(3).to(\"cuda:1\")\n",
                              "TL106");
  EXPECT_EQ(Fixed, "import torch\n"
                   "DEVICE = \"cuda:0\" if torch.cuda.is_available() else \"cpu\"\n"
                   "def train(model, device):\n"
                   "    return model.to(device)\n"
                   "x = torch.ones(3).to(DEVICE)\n");
}

TEST(PortableRewrite, NoRewriteOfAProgramThatIsCudaOnlyByDesign) {
  // apex runs only on CUDA: the program is CUDA-only by design.
  auto D = lintString("import apex\n"
                      "import torch\n"
                      "x = torch.ones(3).to(\"cuda:1\")\n",
                      {"TL106"});
  ASSERT_EQ(D.size(), 1u);
  EXPECT_FALSE(D[0].Fix.has_value());
}

TEST(PortableRewrite, NoRewriteOfATestModule) {
  // Tests hardcode CUDA on purpose (GPU-gated, or against a mocked `torch.cuda`).
  const std::string Src = "import torch\nx = torch.ones(3).to(\"cuda:1\")\n";
  for (std::string Path : {"tests/test_devices.py", "pkg/devices_test.py", "conftest.py"}) {
    SourceFile F(Path, Src);
    LintSettings S;
    S.Enabled = {"TL106"};
    auto D = Linter(rules::registry()).lint(F, S);
    ASSERT_EQ(D.size(), 1u) << Path;
    EXPECT_FALSE(D[0].Fix.has_value()) << Path;
  }
  auto Script = lintString(Src, {"TL106"});
  ASSERT_EQ(Script.size(), 1u);
  EXPECT_TRUE(Script[0].Fix.has_value());
}

} // namespace
} // namespace torchlint::test
