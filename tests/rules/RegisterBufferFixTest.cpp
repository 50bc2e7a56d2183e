// TL103's fix: `self.x = <tensor>` in `__init__` becomes
// `self.register_buffer("x", <tensor>, persistent=False)`. Each case applies the fix (unsafe
// fixes included), re-parses, re-lints (TL103 must not fire again) and applies it a second
// time (nothing left to do).
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace torchlint::test {
namespace {

struct Case {
  const char *Source;
  const char *Expected;
};

class RegisterBufferFix : public ::testing::TestWithParam<Case> {};

TEST_P(RegisterBufferFix, AppliesParsesAndSettles) {
  const Case &C = GetParam();
  ASSERT_TRUE(parsesCleanly(C.Source)) << C.Source;
  size_t Fixes = 0;
  std::vector<Applicability> Applic;
  std::string Fixed = fixOnce(C.Source, "TL103", std::nullopt, &Fixes, &Applic);
  EXPECT_GT(Fixes, 0u) << "no fix offered for:\n" << C.Source;
  for (Applicability A : Applic)
    EXPECT_EQ(A, Applicability::Unsafe);
  EXPECT_EQ(Fixed, C.Expected);
  EXPECT_TRUE(parsesCleanly(Fixed)) << "the fix broke the syntax:\n" << Fixed;
  for (const Diagnostic &D : lintString(Fixed, {"TL103"}))
    ADD_FAILURE() << "TL103 still reported after its fix: " << D.Message << "\n" << Fixed;
  size_t Again = 0;
  EXPECT_EQ(fixOnce(Fixed, "TL103", std::nullopt, &Again), Fixed) << "the fix is not idempotent";
  EXPECT_EQ(Again, 0u);
}

const Case Cases[] = {
    {"import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
     "        self.pe = torch.zeros(n)\n    def forward(self, x):\n        return x + self.pe\n",
     "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
     "        self.register_buffer(\"pe\", torch.zeros(n), persistent=False)\n    def forward(self, x):\n"
     "        return x + self.pe\n"},
    // Another name for `self`, an alias for torch, a multi-line value and a trailing comment.
    {"import torch as T\nimport torch.nn as nn\nclass M(nn.Module):\n    def __init__(me, n):\n"
     "        super().__init__()\n        me.mask = T.ones(\n            n, n,\n        ).triu(1)  # causal\n"
     "    def forward(me, x):\n        return x.masked_fill(me.mask.bool(), 0)\n",
     "import torch as T\nimport torch.nn as nn\nclass M(nn.Module):\n    def __init__(me, n):\n"
     "        super().__init__()\n        me.register_buffer(\"mask\", T.ones(\n            n, n,\n        ).triu(1), "
     "persistent=False)  # causal\n    def forward(me, x):\n        return x.masked_fill(me.mask.bool(), 0)\n"},
    // A local name bound to a tensor; two fixes in one class.
    {"import math, torch\nfrom torch import nn\nclass P(nn.Module):\n    def __init__(self, d):\n"
     "        super().__init__()\n        pe = torch.zeros(10, d)\n        pe[:, 0::2] = torch.sin(pe[:, 0::2])\n"
     "        self.pe = pe.unsqueeze(0)\n        self.scale = torch.tensor([math.sqrt(d)])\n"
     "    def forward(self, x):\n        return x * self.scale + self.pe[:, : x.size(1)]\n",
     "import math, torch\nfrom torch import nn\nclass P(nn.Module):\n    def __init__(self, d):\n"
     "        super().__init__()\n        pe = torch.zeros(10, d)\n        pe[:, 0::2] = torch.sin(pe[:, 0::2])\n"
     "        self.register_buffer(\"pe\", pe.unsqueeze(0), persistent=False)\n"
     "        self.register_buffer(\"scale\", torch.tensor([math.sqrt(d)]), persistent=False)\n"
     "    def forward(self, x):\n        return x * self.scale + self.pe[:, : x.size(1)]\n"},
};

INSTANTIATE_TEST_SUITE_P(TL103, RegisterBufferFix, ::testing::ValuesIn(Cases));

// Where the assignment is more than a plain statement, the finding stays without a fix.
TEST(RegisterBufferFixNone, NoFixWhereTheStatementIsNotPlain) {
  const char *Cases[] = {
      // chained assignment
      "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
      "        self.a = b = torch.zeros(3)\n    def forward(self, x):\n        return x + self.a\n",
      // annotated assignment
      "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
      "        self.a: torch.Tensor = torch.zeros(3)\n    def forward(self, x):\n        return x + self.a\n",
      // before `super().__init__()`: register_buffer would raise there
      "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self):\n        self.a = torch.zeros(3)\n"
      "        super().__init__()\n    def forward(self, x):\n        return x + self.a\n",
  };
  for (const char *Src : Cases) {
    auto Diags = lintString(Src, {"TL103"});
    ASSERT_EQ(Diags.size(), 1u) << Src;
    EXPECT_FALSE(Diags[0].Fix.has_value()) << "a fix was offered for:\n" << Src;
  }
}

} // namespace
} // namespace torchlint::test
