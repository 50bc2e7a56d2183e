// Fixes of the checkpoint, parameter and API rules (TL301, TL304, TL601, TL701): each fix is
// applied to a small source, which must still parse, must read as expected, must not be
// flagged again by its rule, and must leave nothing to fix on a second pass.
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace torchlint::test {
namespace {

struct FixCase {
  const char *Code;
  const char *Source;
  const char *Expected;
  std::optional<TorchVersion> Target = std::nullopt;
};

class FixCaseTest : public ::testing::TestWithParam<FixCase> {};

TEST_P(FixCaseTest, AppliesParsesAndSettles) {
  const FixCase &C = GetParam();
  ASSERT_TRUE(parsesCleanly(C.Source)) << C.Source;
  size_t Fixes = 0;
  std::string Fixed = fixOnce(C.Source, C.Code, C.Target, &Fixes);
  EXPECT_GT(Fixes, 0u) << C.Code << " offered no fix for:\n" << C.Source;
  EXPECT_EQ(Fixed, C.Expected);
  EXPECT_TRUE(parsesCleanly(Fixed)) << "the fix broke the syntax:\n" << Fixed;
  for (const Diagnostic &D : lintString(Fixed, {C.Code}, C.Target))
    ADD_FAILURE() << C.Code << " still reported after its fix: " << D.Message << "\n" << Fixed;
  size_t Again = 0;
  EXPECT_EQ(fixOnce(Fixed, C.Code, C.Target, &Again), Fixed) << "the fix is not idempotent";
  EXPECT_EQ(Again, 0u);
}

const FixCase Cases[] = {
    // TL301: map_location="cpu" as the last argument.
    // (Each program shows that its device varies: the load is moved on, or a function receives it.)
    {"TL301", "import torch\nstate = torch.load(path).to(dev)\n",
     "import torch\nstate = torch.load(path, map_location=\"cpu\").to(dev)\n"},
    {"TL301", "import torch as T\nstate = T.load(path, weights_only=True).to(dev)\n",
     "import torch as T\nstate = T.load(path, weights_only=True, map_location=\"cpu\").to(dev)\n"},
    {"TL301", "from torch import load\ndef f(device):\n    return load(\n        path,\n        weights_only=True,\n    )\n",
     "from torch import load\ndef f(device):\n    return load(\n        path,\n        weights_only=True, map_location=\"cpu\",\n    )\n"},
    // TL304: weights_only=True.
    // (A target before 2.6: from 2.6 an absent weights_only means True.)
    {"TL304", "import torch\nstate = torch.load(p, map_location=\"cpu\")\n",
     "import torch\nstate = torch.load(p, map_location=\"cpu\", weights_only=True)\n", TorchVersion{2, 4}},
    {"TL304", "import torch\nstate = torch.load(p, \"cpu\")  # positional map_location\n",
     "import torch\nstate = torch.load(p, \"cpu\", weights_only=True)  # positional map_location\n", TorchVersion{1, 13}},
    {"TL304", "import torch\nstate = torch.load(p)\n", "import torch\nstate = torch.load(p, weights_only=True)\n",
     TorchVersion{2, 5}},
    // TL601: the move goes inside the factory.
    {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.randn(n)).cuda()\n",
     "import torch\nfrom torch import nn\nw = nn.Parameter(torch.randn(n, device=\"cuda\"))\n"},
    {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.zeros(n, 2)).to(device)\n",
     "import torch\nfrom torch import nn\nw = nn.Parameter(torch.zeros(n, 2, device=device))\n"},
    {"TL601", "import torch as T\nfrom torch import nn as N\nw = N.Parameter(T.ones(n)).double()\n",
     "import torch as T\nfrom torch import nn as N\nw = N.Parameter(T.ones(n, dtype=T.float64))\n"},
    {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.rand(n)).cuda(1)\n",
     "import torch\nfrom torch import nn\nw = nn.Parameter(torch.rand(n, device=\"cuda:1\"))\n"},
    {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.zeros(n)).to(device, torch.float64)\n",
     "import torch\nfrom torch import nn\nw = nn.Parameter(torch.zeros(n, device=device, dtype=torch.float64))\n"},
    {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.ones(n)).to(device=dev, non_blocking=True)\n",
     "import torch\nfrom torch import nn\nw = nn.Parameter(torch.ones(n, device=dev))\n"},
    {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.empty(\n    n,\n)).half()\n",
     "import torch\nfrom torch import nn\nw = nn.Parameter(torch.empty(\n    n, dtype=torch.float16,\n))\n"},
    {"TL601", "import torch\nfrom torch import nn\na, b = nn.Parameter(torch.ones(1)).cuda(), nn.Parameter(torch.zeros(1)).cuda()\n",
     "import torch\nfrom torch import nn\na, b = nn.Parameter(torch.ones(1, device=\"cuda\")), nn.Parameter(torch.zeros(1, "
     "device=\"cuda\"))\n"},
    // TL701: torch.amp with the device type, keeping the alias.
    {"TL701", "import torch\nscaler = torch.cuda.amp.GradScaler()\n",
     "import torch\nscaler = torch.amp.GradScaler(\"cuda\")\n"},
    {"TL701", "import torch as T\nscaler = T.cuda.amp.GradScaler(2.0**16, enabled=amp)\n",
     "import torch as T\nscaler = T.amp.GradScaler(\"cuda\", 2.0**16, enabled=amp)\n"},
    {"TL701", "import torch\nwith torch.cuda.amp.autocast(dtype=torch.bfloat16):\n    pass\n",
     "import torch\nwith torch.amp.autocast(\"cuda\", dtype=torch.bfloat16):\n    pass\n"},
    {"TL701", "import torch\nwith torch.cuda.amp.autocast(use_amp, torch.bfloat16):\n    pass\n",
     "import torch\nwith torch.amp.autocast(\"cuda\", enabled=use_amp, dtype=torch.bfloat16):\n    pass\n"},
    {"TL701", "import torch\nwith torch.cuda.amp.autocast(\n    enabled=True,\n):\n    pass\n",
     "import torch\nwith torch.amp.autocast(\n    \"cuda\", enabled=True,\n):\n    pass\n"},
    {"TL701", "import torch\nclass F:\n    @torch.cuda.amp.custom_fwd\n    def forward(ctx, x):\n        return x\n",
     "import torch\nclass F:\n    @torch.amp.custom_fwd(device_type=\"cuda\")\n    def forward(ctx, x):\n        return x\n"},
    {"TL701",
     "import torch\nclass F:\n    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)\n    def forward(ctx, x):\n"
     "        return x\n",
     "import torch\nclass F:\n    @torch.amp.custom_fwd(device_type=\"cuda\", cast_inputs=torch.float32)\n"
     "    def forward(ctx, x):\n        return x\n"},
    {"TL701", "import torch\ng = torch.cuda.amp.custom_bwd(f)\n",
     "import torch\ng = torch.amp.custom_bwd(f, device_type=\"cuda\")\n"},
    // Names imported from torch.cuda.amp: the import and every use change together.
    {"TL701", "from torch.cuda.amp import autocast\nwith autocast():\n    pass\n",
     "from torch.amp import autocast\nwith autocast(\"cuda\"):\n    pass\n"},
    {"TL701",
     "from torch.cuda.amp import GradScaler as GS, autocast\nfrom torch.cuda.amp import custom_bwd\ns = GS()\n"
     "with autocast(False, torch.float16):\n    pass\nclass F:\n    @custom_bwd\n    def backward(ctx, g):\n"
     "        return g\n",
     "from torch.amp import GradScaler as GS, autocast\nfrom torch.amp import custom_bwd\ns = GS(\"cuda\")\n"
     "with autocast(\"cuda\", enabled=False, dtype=torch.float16):\n    pass\nclass F:\n"
     "    @custom_bwd(device_type=\"cuda\")\n    def backward(ctx, g):\n        return g\n"},
};

std::string caseName(const ::testing::TestParamInfo<FixCase> &I) {
  return std::string(I.param.Code) + "_" + std::to_string(I.index);
}

INSTANTIATE_TEST_SUITE_P(CheckpointFix, FixCaseTest, ::testing::ValuesIn(Cases), caseName);

// Where a fix would be wrong or impossible, the finding stays and no fix is offered.
TEST(CheckpointFix, NoFixWhereItWouldBeWrong) {
  struct NoFix {
    const char *Code;
    const char *Source;
    std::optional<TorchVersion> Target = std::nullopt;
  };
  const NoFix Cases[] = {
      {"TL304", "import torch, pickle\nstate = torch.load(p, map_location=\"cpu\", pickle_module=pickle)\n"},
      {"TL304", "import torch\nstate = torch.load(p, map_location=\"cpu\", weights_only=False)\n"},
      {"TL304", "import torch\nstate = torch.load(p, map_location=\"cpu\")\n", TorchVersion{1, 12}},
      {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(weight).cuda()\n"},
      {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.randn(n, **kw)).cuda()\n"},
      {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.ones(n, dtype=torch.float64)).float()\n"},
      {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.ones(n)).cuda(memory_format=m)\n"},
      {"TL601", "import torch\nfrom torch import nn\nw = nn.Parameter(torch.ones(n))  # c\nv = (nn.Parameter(torch.ones(n))  # c\n"
                "     .cuda())\n"},
      // Imported names: a use the fix cannot rewrite, another name from the module, an import
      // inside a function, a call unpacking **kwargs.
      {"TL701", "from torch.cuda.amp import autocast\nctx = autocast\nwith autocast():\n    pass\n"},
      {"TL701", "from torch.cuda.amp import autocast, common\nwith autocast():\n    pass\n"},
      {"TL701", "def f():\n    from torch.cuda.amp import autocast\n    with autocast():\n        pass\n"},
      {"TL701", "from torch.cuda.amp import GradScaler\ns = GradScaler(**kw)\n"},
      {"TL701", "from torch.cuda import amp\nscaler = amp.GradScaler()\n"},
      {"TL701", "import torch\nwith torch.cuda.amp.autocast(**kw):\n    pass\n"},
  };
  for (const NoFix &C : Cases) {
    auto Diags = lintString(C.Source, {C.Code}, C.Target);
    ASSERT_EQ(Diags.size(), 1u) << C.Source;
    EXPECT_FALSE(Diags[0].Fix.has_value()) << C.Code << " offered a fix for:\n" << C.Source;
  }
}

// The look-ups of what a name holds remember each scope's bindings per file text: a scope
// that starts where the module does, the same text linted twice, and two files that differ
// must each get their own answers.
TEST(CheckpointFix, LookupsKeepScopesAndFilesApart) {
  // `f` starts at byte 0, like the module; its parameter `m` is no module, the module's is.
  std::string Src = "def f(m):\n    torch.save(m, p)\n\n\nimport torch\nfrom torch import nn\nm = nn.Linear(1, 1)\n"
                    "torch.save(m, p)\n";
  EXPECT_EQ(lineCodes(Src, lintString(Src, {"TL306"})), std::vector<std::string>{"8:TL306"});
  EXPECT_EQ(lineCodes(Src, lintString(Src, {"TL306"})), std::vector<std::string>{"8:TL306"});
  // Same length, one binding changed: the second text must not reuse the first's answer.
  std::string A = "import torch\nfrom torch import nn\nm = nn.Linear(1, 1)\ntorch.save(m, p)\n";
  std::string B = "import torch\nfrom torch import nn\nm = nn.linear(1, 1)\ntorch.save(m, p)\n";
  ASSERT_EQ(A.size(), B.size());
  EXPECT_EQ(lintString(A, {"TL306"}).size(), 1u);
  EXPECT_EQ(lintString(B, {"TL306"}).size(), 0u);
  EXPECT_EQ(lintString(A, {"TL306"}).size(), 1u);
  // Round trips through an in-memory buffer, in a function and at module level.
  std::string R = "import io, torch\nbuf = io.BytesIO()\ntorch.save(x, buf)\ny = torch.load(buf)\n"
                  "def g(device):\n    buf = open(p, 'rb')\n    return torch.load(buf)\n";
  EXPECT_EQ(lineCodes(R, lintString(R, {"TL301"})), std::vector<std::string>{"7:TL301"});
}

} // namespace
} // namespace torchlint::test
