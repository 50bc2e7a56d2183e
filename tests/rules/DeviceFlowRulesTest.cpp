// Unit tests of TL103, TL303 and TL402 beyond the fixtures: the per-file memos of TL303 and
// TL402 must keep files apart (same text twice, same length but different text), and the
// look-ups must stay silent on shapes they cannot follow.
#include "TestUtil.h"

#include <gtest/gtest.h>

namespace torchlint::test {
namespace {

using Lines = std::vector<std::string>;

TEST(DdpDeviceRule, FileFactsFollowTheText) {
  std::string A = "import torch\nimport torch.distributed as dist\ndist.init_process_group('nccl')\nm = M().cuda()\n";
  // Same length: the process group call is misspelt, so this file starts none.
  std::string B = "import torch\nimport torch.distributed as dist\ndist.init_process_grouq('nccl')\nm = M().cuda()\n";
  ASSERT_EQ(A.size(), B.size());
  EXPECT_EQ(lineCodes(A, lintString(A, {"TL402"})), Lines{"4:TL402"});
  EXPECT_EQ(lineCodes(B, lintString(B, {"TL402"})), Lines{});
  EXPECT_EQ(lineCodes(A, lintString(A, {"TL402"})), Lines{"4:TL402"});
  EXPECT_EQ(lineCodes(A, lintString(A, {"TL402"})), Lines{"4:TL402"});
  // TL110 (this program chooses no device) speaks where TL402 does not, and not where it does.
  EXPECT_EQ(lineCodes(A, lintString(A, {"TL110", "TL402"})), Lines{"4:TL402"});
  EXPECT_EQ(lineCodes(B, lintString(B, {"TL110", "TL402"})), Lines{"4:TL110"});
  EXPECT_EQ(lineCodes(A, lintString(A, {"TL110"})), Lines{}); // TL402's place even when it is off
}

TEST(DdpDeviceRule, OrderWithinAFunction) {
  std::string Src = "import torch\nfrom torch.distributed import init_process_group\n"
                    "def worker(rank):\n"
                    "    init_process_group('nccl')\n"
                    "    a = torch.zeros(1, device='cuda')\n"
                    "    torch.cuda.set_device(rank)\n"
                    "    b = torch.zeros(1, device='cuda')\n"
                    "    c = torch.zeros(1, device='cuda:0')\n"
                    "def helper():\n"
                    "    return torch.ones(1).cuda()\n";
  // `cuda:0` after set_device is still GPU 0: TL106 speaks about the literal index. The
  // helper may run after `set_device`, so TL402 leaves it alone; an NCCL program (with an unguarded
  // set_device) is CUDA-only by construction, so TL105 does too.
  EXPECT_EQ(lineCodes(Src, lintString(Src, {"TL402", "TL106", "TL105", "TL110"})), (Lines{"5:TL402", "8:TL106"}));
  std::string Guarded = Src;
  Guarded.replace(Guarded.find("'nccl'"), 6, "'gloo'");
  Guarded.replace(Guarded.find("    torch.cuda.set_device(rank)"), 31, "    if torch.cuda.is_available(): torch.cuda.set_device(rank)");
  EXPECT_EQ(lineCodes(Guarded, lintString(Guarded, {"TL110"})), (Lines{"7:TL110"}))
      << "gloo, set_device guarded: portable, and one finding for the file (which chooses no device)";
  EXPECT_EQ(lineCodes(Guarded, lintString(Guarded, {"TL105"})), Lines{}) << "nothing shows its device varies";
}

TEST(OptimizerStateDeviceRule, MemoKeepsFunctionsApart) {
  std::string A = "import torch\ndef f(s):\n    m = Net()\n    o = torch.optim.SGD(m.parameters(), 0.1)\n"
                  "    o.load_state_dict(s)\n    m.cuda()\nclass Net(torch.nn.Module):\n    pass\n";
  std::string B = "import torch\ndef f(s):\n    m = Net()\n    o = torch.optim.SGD(m.parameters(), 0.1)\n"
                  "    o.load_state_dict(s)\n    m.cpu()\nclass Net(torch.nn.Module):\n    pass\n";
  EXPECT_EQ(lineCodes(A, lintString(A, {"TL303"})), Lines{"5:TL303"});
  EXPECT_EQ(lineCodes(B, lintString(B, {"TL303"})), Lines{}); // already on the CPU
  EXPECT_EQ(lineCodes(A, lintString(A, {"TL303"})), Lines{"5:TL303"});
}

TEST(OptimizerStateDeviceRule, NotesPointToTheMoveAndTheOptimizer) {
  std::string Src = "import torch\nm = torch.nn.Linear(2, 2)\nopt = torch.optim.Adam(m.parameters())\n"
                    "opt.load_state_dict(sd)\nm.to(dev)\n";
  auto D = lintString(Src, {"TL303"});
  ASSERT_EQ(D.size(), 1u);
  ASSERT_EQ(D[0].Notes.size(), 2u);
  EXPECT_EQ(Src.substr(D[0].Notes[0].Range.Begin, D[0].Notes[0].Range.End - D[0].Notes[0].Range.Begin), "m.to(dev)");
  EXPECT_EQ(Src.substr(D[0].Notes[1].Range.Begin, 3), "opt");
}

TEST(TensorAttributeRule, SilentOnShapesItCannotFollow) {
  const char *Silent[] = {
      // Broken code must not crash the look-ups.
      "import torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        self.x = torch.zeros(\n",
      "import torch\nclass M(torch.nn.Module):\n    def __init__():\n        self.x = torch.zeros(3)\n"
      "    def forward(self):\n        return self.x\n",
      // A staticmethod-like __init__ with `*args` first.
      "import torch\nclass M(torch.nn.Module):\n    def __init__(*a):\n        a.x = torch.zeros(3)\n"
      "    def forward(self):\n        return self.x\n",
  };
  for (const char *Src : Silent)
    for (const Diagnostic &D : lintString(Src, {"TL103"}))
      ADD_FAILURE() << "unexpected: " << D.Message << "\n" << Src;
}

} // namespace
} // namespace torchlint::test
