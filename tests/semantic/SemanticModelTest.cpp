// Imports, qualified names, class kinds, function roles and context flags.
#include "semantic/FileContext.h"
#include "semantic/Walker.h"
#include "torch/Api.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace torchlint {
namespace {

struct Analyzed {
  std::string Source;
  TreePtr Tree;
  SemanticModel Model;
  WalkResult Walk;
  explicit Analyzed(std::string S, std::vector<std::string_view> Kinds = {"call"})
      : Source(std::move(S)), Tree(parsePython(Source)), Model(Source) {
    KindSet K;
    for (auto Kd : Kinds)
      K.add(Kd);
    Walk = walkFile(ts_tree_root_node(Tree.get()), Model, K);
  }
  /// The collected node whose text is \p Text.
  const NodeRef &node(std::string_view Text) const {
    for (auto &N : Walk.Nodes)
      if (Model.text()(N.Node) == Text)
        return N;
    static NodeRef None{};
    ADD_FAILURE() << "no node " << Text;
    return None;
  }
  std::string qualified(std::string_view CallText) const {
    return Model.qualifiedName(field(node(CallText).Node, "function"));
  }
};

TEST(Semantic, ImportsResolveToQualifiedNames) {
  Analyzed A("import torch as T\nfrom torch import nn as N\nimport torch.nn.functional as F\n"
             "from torch.cuda.amp import autocast\nimport torch.nn\nfrom . import local\nfrom .utils import helper\n"
             "T.load(p)\nN.Linear(1)\nF.relu(x)\nautocast()\ntorch.nn.Module()\nhelper()\nunknown.thing()\n");
  EXPECT_EQ(A.qualified("T.load(p)"), "torch.load");
  EXPECT_EQ(A.qualified("N.Linear(1)"), "torch.nn.Linear");
  EXPECT_EQ(A.qualified("F.relu(x)"), "torch.nn.functional.relu");
  EXPECT_EQ(A.qualified("autocast()"), "torch.cuda.amp.autocast");
  EXPECT_EQ(A.qualified("torch.nn.Module()"), "torch.nn.Module");
  EXPECT_EQ(A.qualified("helper()"), "") << "without a project, the file's own module is unknown";
  EXPECT_EQ(A.qualified("unknown.thing()"), "");
  EXPECT_TRUE(A.Model.refersTo(field(A.node("T.load(p)").Node, "function"), "torch.load"));
  EXPECT_FALSE(A.Model.refersTo(field(A.node("T.load(p)").Node, "function"), "torch.save"));
  EXPECT_EQ(A.Model.localNameFor("torch"), "T");
}

TEST(Semantic, ClassesDeriveThroughLocalClassesAndLightning) {
  Analyzed A("import torch\nfrom torch import nn\nimport lightning as L\nfrom torch.utils.data import Dataset as DS\n"
             "class Base(nn.Module): pass\nclass Child(Base): pass\nclass Lit(L.LightningModule): pass\n"
             "class Data(DS): pass\nclass MoreData(Data): pass\nclass Plain(object): pass\n"
             "class Lin(torch.nn.Linear): pass\nclass P(nn.Parameter): pass\n");
  auto Kind = [&](std::string_view Name) {
    for (auto &C : A.Model.classes())
      if (C.Name == Name)
        return std::string(C.IsModule ? "module" : "") + (C.IsDataset ? "dataset" : "");
    return std::string("missing");
  };
  EXPECT_EQ(Kind("Base"), "module");
  EXPECT_EQ(Kind("Child"), "module");
  EXPECT_EQ(Kind("Lit"), "module");
  EXPECT_EQ(Kind("Data"), "dataset");
  EXPECT_EQ(Kind("MoreData"), "dataset");
  EXPECT_EQ(Kind("Plain"), "");
  EXPECT_EQ(Kind("Lin"), "module");
  EXPECT_EQ(Kind("P"), "") << "a Parameter is a tensor";
}

TEST(Semantic, RolesForwardAndDataWorkers) {
  Analyzed A("import functools\nfrom torch import nn\nfrom torch.utils.data import Dataset, DataLoader\n"
             "class M(nn.Module):\n"
             "    def forward(self, x):\n        return self.helper(x)\n"
             "    def helper(self, x):\n        return f1(x)\n"
             "    def other(self, x):\n        return f2(x)\n"
             "class D(Dataset):\n"
             "    def __getitem__(self, i):\n        return self.load(i)\n"
             "    def load(self, i):\n        return f3(i)\n"
             "def collate(b):\n    return f4(b)\n"
             "def init(w):\n    return f5(w)\n"
             "def not_passed(b):\n    return f6(b)\n"
             "def part(b, k):\n    return f7(b)\n"
             "DataLoader(D(), collate_fn=collate, worker_init_fn=init)\n"
             "DataLoader(D(), collate_fn=functools.partial(part, k=1))\n"
             "DataLoader(D(), collate_fn=lambda b: f8(b))\n");
  auto Roles = [&](std::string_view Call) { return A.Model.scope(A.node(Call).Scope).Roles; };
  EXPECT_EQ(Roles("f1(x)"), RoleForward) << "methods forward calls through self";
  EXPECT_EQ(Roles("self.helper(x)"), RoleForward);
  EXPECT_EQ(Roles("f2(x)"), RoleNone);
  EXPECT_EQ(Roles("f3(i)"), RoleDataWorker);
  EXPECT_EQ(Roles("f4(b)"), RoleDataWorker);
  EXPECT_EQ(Roles("f5(w)"), RoleDataWorker);
  EXPECT_EQ(Roles("f6(b)"), RoleNone);
  EXPECT_EQ(Roles("f7(b)"), RoleDataWorker);
  EXPECT_EQ(Roles("f8(b)"), RoleDataWorker);
}

TEST(Semantic, GuardAndDeviceChoiceFlags) {
  Analyzed A("import torch, pytest\n"
             "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
             "if torch.cuda.is_available():\n    a.cuda()\nelse:\n    b.cpu()\n"
             "c.cuda()\n"
             "x = d.cuda() if use_gpu else d\n"
             "def f(dev=torch.device('cuda')):\n    pass\n"
             "def g():\n    if not torch.cuda.is_available():\n        return\n    e.cuda()\n"
             "def test_on_cuda():\n    h.cuda()\n"
             "@pytest.mark.skipif(not torch.cuda.is_available(), reason='gpu')\ndef test_x():\n    k.cuda()\n"
             "def get_device():\n    return torch.device('cuda')\n"
             "if x.device.type == 'cuda':\n    pass\nelif y:\n    m.cuda()\n");
  auto Flags = [&](std::string_view Call) { return A.node(Call).Flags; };
  EXPECT_EQ(Flags("torch.device('cuda' if torch.cuda.is_available() else 'cpu')"), FlagDeviceChoice);
  EXPECT_EQ(Flags("a.cuda()"), FlagCudaGuarded);
  EXPECT_EQ(Flags("b.cpu()"), FlagCudaGuarded);
  EXPECT_EQ(Flags("c.cuda()"), 0);
  EXPECT_EQ(Flags("d.cuda()"), FlagCudaGuarded);
  EXPECT_EQ(Flags("torch.device('cuda')"), FlagDeviceChoice);
  EXPECT_EQ(Flags("e.cuda()"), FlagCudaGuarded) << "after an early exit on CUDA";
  EXPECT_EQ(Flags("h.cuda()"), FlagCudaGuarded) << "a function about CUDA";
  EXPECT_EQ(Flags("k.cuda()"), FlagCudaGuarded) << "skipped without CUDA";
  EXPECT_EQ(Flags("m.cuda()"), FlagCudaGuarded) << "elif under a CUDA condition";
  EXPECT_EQ(Flags("torch.cuda.is_available()") & FlagCudaGuarded, 0) << "the condition itself is not guarded";
}

TEST(Semantic, TargetsAndDefinitionNamesHoweverSpelt) {
  // The walk reads a plainly spelt assignment target and definition name off the text, and
  // asks the tree otherwise: both readings give the same marks.
  Analyzed A("import torch\n"
             "device = torch.device('cuda:0')\n"
             "cfg.dev: torch.device = torch.device('cuda:1')\n"
             "a . device = torch.device('cuda:2')\n"
             "x, device = 1, torch.device('cuda:3')\n"
             "device[0] = torch.device('cuda:4')\n"
             "f(x).device = torch.device('cuda:5')\n"
             "async def to_gpu(x):\n    return x.cuda(0)\n"
             "def  classify_cuda (x):\n    return x.cuda(1)\n"
             "def classify(x):\n    return x.cuda(2)\n"
             "class CudaThing:\n    y = z.cuda(3)\n"
             "def \\\n  gpu_step(x):\n    return x.cuda(4)\n");
  auto Flags = [&](std::string_view Call) { return A.node(Call).Flags; };
  EXPECT_EQ(Flags("torch.device('cuda:0')"), FlagDeviceChoice);
  EXPECT_EQ(Flags("torch.device('cuda:1')"), FlagDeviceChoice) << "annotated";
  EXPECT_EQ(Flags("torch.device('cuda:2')"), FlagDeviceChoice) << "spaces around the dot";
  EXPECT_EQ(Flags("torch.device('cuda:3')"), 0) << "a tuple of targets";
  EXPECT_EQ(Flags("torch.device('cuda:4')"), 0) << "a subscript";
  EXPECT_EQ(Flags("torch.device('cuda:5')"), FlagDeviceChoice) << "an attribute of a call";
  EXPECT_EQ(Flags("x.cuda(0)"), FlagCudaGuarded) << "async def";
  EXPECT_EQ(Flags("x.cuda(1)"), FlagCudaGuarded) << "spaces around the name";
  EXPECT_EQ(Flags("x.cuda(2)"), 0) << "`classify` is no class";
  EXPECT_EQ(Flags("z.cuda(3)"), FlagCudaGuarded) << "a class about CUDA";
  EXPECT_EQ(Flags("x.cuda(4)"), FlagCudaGuarded) << "a line continuation";
}

TEST(Semantic, ParameterListsThatNameADeviceChooseIt) {
  // The walk skips a parameter list of names and literals, but not one that names a device:
  // its default is where the file chooses the device, call or no call.
  for (std::string Params : {"x, device='cuda:0'", "x, *, dev=None", "x, gpu: int = 0", "x, DEVICE=DEFAULT"}) {
    Analyzed A("def f(" + Params + "):\n    pass\n");
    EXPECT_TRUE(A.Model.choosesDevice()) << Params;
  }
  Analyzed Lambda("g = lambda x, dev='cuda': x\n");
  EXPECT_TRUE(Lambda.Model.choosesDevice());
  for (std::string Params : {"x, y=1, *args, **kwargs", "self, size: int = 3, mode='nearest'", "x={'a': [1, 2]}"}) {
    Analyzed A("def f(" + Params + "):\n    pass\n");
    EXPECT_FALSE(A.Model.choosesDevice()) << Params;
  }
}

TEST(Semantic, CallsInsideDictionariesAndFStringsAreCollected) {
  // The walk skips a dictionary or f-string of names and strings; one that calls is entered.
  Analyzed A("cfg = {'a': {'b': [x, y]}, 'c': f'{name}'}\n"
             "state = {'w': torch.zeros(3), 'k': {'v': w.cuda()}}\n"
             "msg = f'{t.to(dev)} on {d}'\n");
  size_t Calls = 0;
  for (const NodeRef &N : A.Walk.Nodes)
    Calls += is(N.Node, "call");
  EXPECT_EQ(Calls, 3u);
  A.node("torch.zeros(3)");
  A.node("w.cuda()");
  A.node("t.to(dev)");
}

TEST(Semantic, WalkPartsAgreeWithTheTreeInAnyOrder) {
  // Calls that share a start (`a.b(c)(d)`, `f(g(h(x)))`), inert ones the walk does not enter, a
  // generator argument, a call with a comment between its parts, and one in an ERROR subtree.
  Analyzed A("import torch\n"
             "y = a.b(c)(d) + f(g(h(x)))\n"
             "z = foo(x, key=val) + sum(t for t in ts)\n"
             "w = (torch.zeros  # the callee\n"
             "     (3))\n"
             "def k(m):\n"
             "    return m.to(dev).cuda(0)\n"
             "bad = q(1, ,)\n"
             "v = done(1)\n");
  SourceFile File("t.py", A.Source);
  FileContext Ctx(File, A.Model, ts_tree_root_node(A.Tree.get()), A.Walk.Nodes, A.Walk.Calls);
  std::vector<TSNode> Calls;
  forEachNode(ts_tree_root_node(A.Tree.get()), [&](TSNode N) {
    if (is(N, "call"))
      Calls.push_back(N);
  });
  ASSERT_GE(Calls.size(), 12u);
  std::mt19937 Rng(3);
  for (int Order = 0; Order < 4; ++Order) {
    if (Order == 1)
      std::reverse(Calls.begin(), Calls.end());
    if (Order >= 2)
      std::shuffle(Calls.begin(), Calls.end(), Rng);
    size_t Answered = 0;
    for (TSNode C : Calls) {
      const CallParts *P = Ctx.partsOf(C);
      if (!P)
        continue;
      ++Answered;
      auto Tree = callParts(C);
      EXPECT_EQ(P->Arguments, Tree.has_value()) << A.Model.text()(C);
      EXPECT_TRUE(ts_node_eq(P->Callee, field(C, "function"))) << A.Model.text()(C);
      EXPECT_TRUE(ts_node_eq(P->ArgList, field(C, "arguments"))) << A.Model.text()(C);
    }
    // Every call the walk noted with its two parts is answered, whatever the order.
    size_t Noted = 0;
    for (const NodeRef &N : A.Walk.Nodes)
      Noted += N.Parts != 0;
    EXPECT_EQ(Answered, Noted) << "order " << Order;
    EXPECT_GE(Noted, 10u);
  }
}

// The named children the walk noted of argument lists and blocks are the tree's, asked in any
// order; a block it met is always answered.
void expectWalkChildrenAgree(const std::string &Source, bool AllBlocks) {
  Analyzed A(Source);
  SourceFile File("t.py", A.Source);
  FileContext Ctx(File, A.Model, ts_tree_root_node(A.Tree.get()), A.Walk.Nodes, A.Walk.Calls, A.Walk.Children,
                  A.Walk.Kept);
  auto Same = [](std::span<const TSNode> Got, TSNode Parent) {
    NodeList Want = namedChildren(Parent);
    if (Got.size() != Want.size())
      return false;
    for (size_t I = 0; I < Want.size(); ++I)
      if (!ts_node_eq(Got[I], Want[I]))
        return false;
    return true;
  };
  std::vector<TSNode> Blocks{ts_tree_root_node(A.Tree.get())}, Calls, Others;
  forEachNode(ts_tree_root_node(A.Tree.get()), [&](TSNode N) {
    (is(N, "block") ? Blocks : is(N, "call") ? Calls : Others).push_back(N);
  });
  // Other kinds the walk keeps (expression statements, collections, boolean operators), and
  // every kind it does not: answered only with the tree's children.
  size_t Kept = 0;
  for (TSNode N : Others)
    if (auto Got = Ctx.childrenOf(N)) {
      ++Kept;
      EXPECT_TRUE(Same(*Got, N)) << A.Model.text()(N);
    }
  EXPECT_GE(Kept, AllBlocks ? 8u : 1u);
  std::mt19937 Rng(5);
  for (int Order = 0; Order < 3; ++Order) {
    if (Order == 1)
      std::reverse(Blocks.begin(), Blocks.end());
    if (Order == 2)
      std::shuffle(Blocks.begin(), Blocks.end(), Rng);
    for (TSNode B : Blocks) {
      auto Got = Ctx.childrenOf(B);
      EXPECT_TRUE(Got.has_value() || !AllBlocks) << A.Model.text()(B);
      EXPECT_TRUE(!Got || Same(*Got, B)) << A.Model.text()(B);
    }
  }
  size_t Answered = 0;
  for (TSNode C : Calls) {
    const CallParts *P = Ctx.partsOf(C);
    if (auto Got = P ? Ctx.argumentsOf(*P) : std::nullopt) {
      ++Answered;
      EXPECT_TRUE(Same(*Got, P->ArgList)) << A.Model.text()(C);
    }
  }
  EXPECT_GE(Answered, AllBlocks ? 5u : 1u); // (calls with inert arguments are not entered)
}

TEST(Semantic, WalkChildrenAgreeWithTheTree) {
  // Nested calls in arguments, comments among arguments and statements, keywords, splats, a
  // generator argument, one-line bodies, nested blocks, a class, collections.
  expectWalkChildrenAgree("import torch\n"
                          "# a comment\n"
                          "a, b = [f(1), (g(2), 3)], {k(1): v(2), **d}\n"
                          "c = p(1) and not q(2) or r(3) < s(4)\n"
                          "x = f(g(1, h(2), k=m(3)), *a, **kw)\n"
                          "y = torch.zeros(3,  # rows\n"
                          "                device=dev(0))\n"
                          "s = sum(t for t in ts)\n"
                          "def fn(a, b=q(1)):\n"
                          "    if a: return g(a)\n"
                          "    for i in r(3):\n"
                          "        # inside\n"
                          "        while c(i):\n"
                          "            pass\n"
                          "    else:\n"
                          "        b.to(x.cuda())\n"
                          "    return b\n"
                          "class M(nn.Module):\n"
                          "    def forward(self, x):\n"
                          "        with torch.no_grad():\n"
                          "            return self.l(x, y=z(1))\n",
                          /*AllBlocks=*/true);
  // With syntax errors the walk visits everything; what it answers is still the tree's.
  expectWalkChildrenAgree("x = f(g(1), )\n"
                          "def k(:\n"
                          "    y = h(2, k=m(3))\n"
                          "z = q(1, ,)\n",
                          /*AllBlocks=*/false);
}

TEST(Semantic, DeviceNames) {
  for (auto N : {"device", "self.device", "args.dev", "dev", "gpu_id", "cuda_device", "torch_dev", "DEVICE"})
    EXPECT_TRUE(torch::mentionsDeviceWord(N)) << N;
  for (auto N : {"develop", "model", "devious", "x"})
    EXPECT_FALSE(torch::mentionsDeviceWord(N)) << N;
}

TEST(Semantic, ErrorsAreFoundAndTheirInsidesSkipped) {
  Analyzed A("x = torch.load(p)\ndef f(:\n  pass\n");
  EXPECT_TRUE(A.Walk.HasError);
  EXPECT_EQ(ts_node_start_byte(A.Walk.FirstError) > 0, true);
  Analyzed B("x = 1\n");
  EXPECT_FALSE(B.Walk.HasError);
}

} // namespace
} // namespace torchlint
