// Fixes of the device-flow rules (TL101, TL104, TL501): each fix is applied to a small source,
// which must still parse, must read as expected, must not be flagged again by its rule, and
// must leave nothing to fix on a second pass.
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace torchlint::test {
namespace {

struct FixCase {
  const char *Code;
  const char *Source;
  const char *Expected;
};

class FlowFixTest : public ::testing::TestWithParam<FixCase> {};

TEST_P(FlowFixTest, AppliesParsesAndSettles) {
  const FixCase &C = GetParam();
  ASSERT_TRUE(parsesCleanly(C.Source)) << C.Source;
  size_t Fixes = 0;
  std::string Fixed = fixOnce(C.Source, C.Code, std::nullopt, &Fixes);
  EXPECT_GT(Fixes, 0u) << C.Code << " offered no fix for:\n" << C.Source;
  EXPECT_EQ(Fixed, C.Expected);
  EXPECT_TRUE(parsesCleanly(Fixed)) << "the fix broke the syntax:\n" << Fixed;
  for (const Diagnostic &D : lintString(Fixed, {C.Code}))
    ADD_FAILURE() << C.Code << " still reported after its fix: " << D.Message << "\n" << Fixed;
  size_t Again = 0;
  EXPECT_EQ(fixOnce(Fixed, C.Code, std::nullopt, &Again), Fixed) << "the fix is not idempotent";
  EXPECT_EQ(Again, 0u);
}

const FixCase Cases[] = {
    // TL101: assign the result back.
    {"TL101",
     "import torch\nfrom torch.utils.data import DataLoader\ndef f(ds, device):\n    for x, y in DataLoader(ds):\n"
     "        x.to(device)\n",
     "import torch\nfrom torch.utils.data import DataLoader\ndef f(ds, device):\n    for x, y in DataLoader(ds):\n"
     "        x = x.to(device)\n"},
    {"TL101",
     "import torch\nfrom torch.utils.data import DataLoader\ndef f(ds, device):\n    for x, y in DataLoader(ds):\n"
     "        x.to(device), y.to(device)\n",
     "import torch\nfrom torch.utils.data import DataLoader\ndef f(ds, device):\n    for x, y in DataLoader(ds):\n"
     "        x, y = x.to(device), y.to(device)\n"},
    {"TL101",
     "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.w = nn.Parameter(torch.ones(2))\n    def move(self):\n        self.w.cuda()\n",
     "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.w = nn.Parameter(torch.ones(2))\n    def move(self):\n        self.w = self.w.cuda()\n"},
    // TL104: device= of the one input.
    {"TL104",
     "import torch\nfrom torch import nn\nclass P(nn.Module):\n    def forward(self, x):\n"
     "        return x + torch.arange(x.size(1))\n",
     "import torch\nfrom torch import nn\nclass P(nn.Module):\n    def forward(self, x):\n"
     "        return x + torch.arange(x.size(1), device=x.device)\n"},
    // TL501: .float() on the argument, parenthesised where needed.
    {"TL501",
     "import numpy as np\nimport torch\nfrom torch import nn\nm = nn.Linear(3, 1)\n"
     "y = m(torch.from_numpy(np.zeros((4, 3))))\n",
     "import numpy as np\nimport torch\nfrom torch import nn\nm = nn.Linear(3, 1)\n"
     "y = m(torch.from_numpy(np.zeros((4, 3))).float())\n"},
    {"TL501",
     "import torch\nfrom torch import nn\nm = nn.Linear(3, 1)\na = torch.ones(4, 3).double()\ny = m(a * 2)\n",
     "import torch\nfrom torch import nn\nm = nn.Linear(3, 1)\na = torch.ones(4, 3).double()\ny = m((a * 2).float())\n"},
};

std::string caseName(const ::testing::TestParamInfo<FixCase> &I) {
  return std::string(I.param.Code) + "_" + std::to_string(I.index);
}

INSTANTIATE_TEST_SUITE_P(FlowFix, FlowFixTest, ::testing::ValuesIn(Cases), caseName);

// Where the fix would have to guess, the finding stays and no fix is offered.
TEST(FlowFix, NoFixWhereItWouldGuess) {
  const std::pair<const char *, const char *> Cases[] = {
      // Two inputs: which device is meant is a choice.
      {"TL104", "import torch\nfrom torch import nn\nclass P(nn.Module):\n    def forward(self, x, y):\n"
                "        return x + torch.arange(4)\n"},
      // A subscript may be a tuple element, which cannot be assigned.
      {"TL101", "import torch\nfrom torch.utils.data import DataLoader\ndef f(ds, d):\n    for b in DataLoader(ds):\n"
                "        b[0].to(d)\n"},
  };
  for (auto &[Code, Source] : Cases) {
    auto Diags = lintString(Source, {Code});
    ASSERT_EQ(Diags.size(), 1u) << Source;
    EXPECT_FALSE(Diags[0].Fix.has_value()) << Code << " offered a fix for:\n" << Source;
  }
}

} // namespace
} // namespace torchlint::test
