// Unit tests of the device-flow lattice (joins, which devices certainly differ) and of its
// transfer functions, asked about nodes of small sources.
#include "flow/DeviceFlow.h"
#include "source/Strings.h"
#include "semantic/Walker.h"
#include "torch/Api.h"

#include <gtest/gtest.h>

#include <functional>

namespace torchlint::flow {
namespace {

TEST(DeviceLattice, CertainlyDifferentOnlyWhenKnown) {
  Device Cpu = Device::cpu(), Cuda{DeviceKind::Cuda, -1, {}}, Cuda0{DeviceKind::Cuda, 0, {}},
         Cuda1{DeviceKind::Cuda, 1, {}}, Mps{DeviceKind::Mps, -1, {}}, D = Device::configured("device"),
         E = Device::configured("other"), Unknown;
  EXPECT_TRUE(certainlyDifferent(Cpu, Cuda));
  EXPECT_TRUE(certainlyDifferent(Cpu, D)); // a configured device is meant to be the accelerator
  EXPECT_TRUE(certainlyDifferent(D, Cpu));
  EXPECT_TRUE(certainlyDifferent(Cuda0, Cuda1));
  EXPECT_TRUE(certainlyDifferent(Cuda, Mps));
  EXPECT_FALSE(certainlyDifferent(Cuda, Cuda0)); // "cuda" may be cuda:0
  EXPECT_FALSE(certainlyDifferent(D, E));        // two configured devices may be the same
  EXPECT_FALSE(certainlyDifferent(D, Cuda));
  EXPECT_FALSE(certainlyDifferent(Cpu, Unknown));
  EXPECT_FALSE(certainlyDifferent(Cpu, Cpu));
  EXPECT_FALSE(certainlyDifferent(D, D));
}

TEST(DeviceLattice, JoinKeepsOnlyAgreedFacts) {
  Value A, B;
  A.Kind = B.Kind = ValueKind::Tensor;
  A.Dev = B.Dev = Device::cpu();
  A.Type = DType::Float64;
  B.Type = DType::Float32;
  A.R = B.R = Rank::NonZero;
  A.Flags = FlagInput | FlagPinned;
  B.Flags = FlagPinned;
  Value J = join(A, B);
  EXPECT_EQ(J.Kind, ValueKind::Tensor);
  EXPECT_EQ(J.Dev.Kind, DeviceKind::Cpu);
  EXPECT_EQ(J.Type, DType::Unknown);
  EXPECT_EQ(J.R, Rank::NonZero);
  EXPECT_EQ(J.Flags, FlagPinned);
  B.Kind = ValueKind::Module;
  EXPECT_EQ(join(A, B).Kind, ValueKind::Unknown);
  EXPECT_EQ(join(A, A), A);
}

TEST(DeviceLattice, ParsesDeviceStrings) {
  EXPECT_EQ(parseDevice("cpu").Kind, DeviceKind::Cpu);
  EXPECT_EQ(parseDevice("cuda:3").Index, 3);
  EXPECT_EQ(parseDevice("mps").Kind, DeviceKind::Mps);
  EXPECT_FALSE(parseDevice("cuda:x").known());
  EXPECT_FALSE(parseDevice("gpu").known());
  EXPECT_EQ(deviceName(Device::configured("args.device")), "`args.device`");
  EXPECT_EQ(deviceName(Device{DeviceKind::Cuda, 1, {}}), "cuda:1");
}

/// A parsed source with its flow; `at(Text)` finds the last evaluated expression with that
/// text (assignment targets are not evaluated: ask about a later use).
struct Analysed {
  std::string Source;
  TreePtr Tree;
  SemanticModel Model;
  std::unique_ptr<DeviceFlow> Flow;
  explicit Analysed(std::string S) : Source(std::move(S)), Tree(parsePython(Source)), Model(Source) {
    KindSet None;
    walkFile(ts_tree_root_node(Tree.get()), Model, None);
    Flow = std::make_unique<DeviceFlow>(ts_tree_root_node(Tree.get()), Model);
  }
  Value at(std::string_view Text) const {
    TSNode Found{};
    // Pre-order, iteratively: the deep-nesting test would overflow a recursive walk under ASan.
    TSTreeCursor C = ts_tree_cursor_new(ts_tree_root_node(Tree.get()));
    for (bool More = true; More;) {
      TSNode N = ts_tree_cursor_current_node(&C);
      if (ts_node_is_named(N) && Model.text()(N) == Text && Flow->valueOf(N))
        Found = N;
      if (ts_tree_cursor_goto_first_child(&C))
        continue;
      while (!ts_tree_cursor_goto_next_sibling(&C))
        if (!ts_tree_cursor_goto_parent(&C)) {
          More = false;
          break;
        }
    }
    ts_tree_cursor_delete(&C);
    const Value *V = ts_node_is_null(Found) ? nullptr : Flow->valueOf(Found);
    return V ? *V : Value();
  }
};

TEST(DeviceFlowTransfer, FactoriesLoadersAndMoves) {
  Analysed A("import torch\nimport numpy as np\nfrom torch.utils.data import DataLoader\n"
             "def f(ds, device):\n"
             "    a = torch.zeros(3, 4)\n"
             "    b = torch.zeros(3, device=device)\n"
             "    c = a.to(device)\n"
             "    d = torch.zeros_like(c)\n"
             "    e = torch.from_numpy(np.random.rand(3))\n"
             "    g = a.to(torch.float16)\n"
             "    s = torch.tensor(1.0)\n"
             "    for x, y in DataLoader(ds, pin_memory=True):\n"
             "        x\n"
             "    return a, b, c, d, e, g, s\n");
  EXPECT_EQ(A.at("a").Dev.Kind, DeviceKind::Cpu);
  EXPECT_TRUE(A.at("a").has(FlagDefaultFactory));
  EXPECT_EQ(A.at("a").R, Rank::NonZero);
  EXPECT_EQ(A.at("b").Dev, Device::configured("device"));
  EXPECT_EQ(A.at("c").Dev, Device::configured("device"));
  EXPECT_EQ(A.at("c").DevHow, Origin::Moved);
  EXPECT_EQ(A.at("d").Dev, Device::configured("device"));
  EXPECT_EQ(A.at("e").Type, DType::Float64);
  EXPECT_EQ(A.at("g").Dev.Kind, DeviceKind::Cpu); // .to(dtype) does not move
  EXPECT_EQ(A.at("g").Type, DType::Half);
  EXPECT_EQ(A.at("s").R, Rank::Zero);
  EXPECT_EQ(A.at("x").Dev.Kind, DeviceKind::Cpu);
  EXPECT_EQ(A.at("x").DevHow, Origin::DataLoader);
  EXPECT_TRUE(A.at("x").has(FlagPinned));
}

TEST(DeviceFlowTransfer, PythonScalarsAndLambdas) {
  Analysed A("import math\nimport torch\nimport torch.nn as nn\n"
             "class Net(nn.Module):\n"
             "    def forward(self, x, n: int, scale=1.0, d=None, m=None, w=None):\n"
             "        a = x.shape[-1]\n"
             "        b = x.size()\n"
             "        c = x.size(1)\n"
             "        e = math.sqrt(c)\n"
             "        if isinstance(d, (int, float)):\n"
             "            d\n"
             "        t = torch.tensor(x.shape)\n"
             "        for _ in range(w):\n"
             "            pass\n"
             "        return x, n, scale, a, b, c, e, t, m, w\n"
             "def g(device):\n"
             "    bias = torch.zeros(4)\n"
             "    f = lambda out: out + bias\n"
             "    y = f(torch.zeros(4, device=device))\n"
             "    return f, y\n");
  EXPECT_TRUE(A.at("x").has(FlagInput));
  for (std::string_view Number : {"n", "scale", "a", "c", "e", "d", "w"}) {
    EXPECT_EQ(A.at(Number).Kind, ValueKind::Scalar) << Number;
    EXPECT_FALSE(A.at(Number).has(FlagInput)) << Number;
  }
  EXPECT_EQ(A.at("b").Kind, ValueKind::Scalar); // torch.Size: a sequence of numbers
  EXPECT_EQ(A.at("b").R, Rank::NonZero);
  EXPECT_NE(A.at("t").R, Rank::Zero); // `torch.tensor(x.shape)` is no 0-dim tensor
  EXPECT_TRUE(A.at("m").has(FlagInput)); // `m=None`: a tensor or nothing
  EXPECT_EQ(A.at("f").Kind, ValueKind::Callable);
  EXPECT_EQ(A.at("out").Dev, Device::configured("device")); // the lambda's body, at its call
  EXPECT_EQ(A.at("bias").Dev.Kind, DeviceKind::Cpu);
}

TEST(DeviceFlowTransfer, ModulesMoveInPlaceAndBranchesJoin) {
  Analysed A("import torch\nfrom torch import nn\n"
             "def f(device, cond):\n"
             "    m = nn.Linear(2, 2)\n"
             "    m\n"
             "    m.to(device)\n"
             "    moved = m\n"
             "    n = nn.Linear(2, 2)\n"
             "    if cond:\n"
             "        n.cuda()\n"
             "    joined = n\n"
             "    out = m(torch.ones(1, 2))\n"
             "    t = torch.ones(2)\n"
             "    t.to(device)\n"
             "    same = t\n"
             "    return moved, joined, out, same\n");
  EXPECT_EQ(A.at("moved").Dev, Device::configured("device"));
  EXPECT_EQ(A.at("moved").Kind, ValueKind::Module);
  EXPECT_FALSE(A.at("joined").Dev.known()); // moved in one branch only
  EXPECT_EQ(A.at("out").Dev, Device::configured("device"));
  EXPECT_EQ(A.at("out").DevHow, Origin::ModuleOutput);
  EXPECT_EQ(A.at("same").Dev.Kind, DeviceKind::Cpu); // tensors do not move in place
}

TEST(DeviceFlowTransfer, ContainersKeepTheirElementsWhereThePathsAgree) {
  Analysed A("import torch\n"
             "def f(device, cond, n, more):\n"
             "    chunks = []\n"
             "    for _ in range(n):\n"
             "        chunks.append(torch.zeros(3))\n"
             "    appended = chunks\n"
             "    moved = [t.to(device) for t in chunks]\n"
             "    mixed = [torch.zeros(3)]\n"
             "    if cond:\n"
             "        mixed.append(torch.zeros(3).to(device))\n"
             "    extended = [torch.zeros(3)]\n"
             "    if cond:\n"
             "        extended.extend(more)\n"
             "    d = {'x': torch.zeros(3), 'y': torch.zeros(3).to(device)}\n"
             "    for i, (a, b) in enumerate(zip(chunks, moved)):\n"
             "        a, b, i\n"
             "    return torch.cat(appended), moved[0], torch.stack(mixed), torch.stack(extended), d['x'], d['y'], d[n]\n");
  EXPECT_EQ(A.at("appended").Kind, ValueKind::List);
  EXPECT_EQ(A.at("torch.cat(appended)").Dev.Kind, DeviceKind::Cpu); // every round appends a CPU tensor
  EXPECT_EQ(A.at("moved[0]").Dev, Device::configured("device"));
  EXPECT_FALSE(A.at("torch.stack(mixed)").Dev.known()); // the paths disagree on the element
  EXPECT_FALSE(A.at("torch.stack(extended)").Dev.known()); // unknown items on one path
  EXPECT_EQ(A.at("d['x']").Dev.Kind, DeviceKind::Cpu);
  EXPECT_EQ(A.at("d['y']").Dev, Device::configured("device"));
  EXPECT_FALSE(A.at("d[n]").Dev.known()); // some key: the values disagree
  EXPECT_EQ(A.at("a").Dev.Kind, DeviceKind::Cpu);
  EXPECT_EQ(A.at("b").Dev, Device::configured("device"));
  EXPECT_EQ(A.at("i").Kind, ValueKind::Scalar);
}

TEST(DeviceFlowTransfer, ConfiguredDevicesAndHelpers) {
  Analysed A("import torch\n"
             "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
             "def make():\n"
             "    return torch.randn(4, 4)\n"
             "def f():\n"
             "    b = make()\n"
             "    c = b.to(device)\n"
             "    for i in range(3):\n"
             "        c = c + 1\n"
             "    after = c\n"
             "    return after\n");
  EXPECT_EQ(A.at("device").Kind, ValueKind::Device);
  EXPECT_EQ(A.at("b").Dev.Kind, DeviceKind::Cpu);
  EXPECT_EQ(A.at("after").Dev, Device::configured("device")); // the loop keeps the device
}

TEST(DeviceFlowTransfer, ModuleAttributesFromInit) {
  Analysed A("import torch\nfrom torch import nn\n"
             "class M(nn.Module):\n"
             "    def __init__(self):\n"
             "        super().__init__()\n"
             "        self.fc = nn.Linear(2, 2)\n"
             "        self.w = nn.Parameter(torch.ones(2))\n"
             "        self.register_buffer(\"pe\", torch.zeros(2))\n"
             "        self.plain = torch.ones(2)\n"
             "    def forward(self, x):\n"
             "        return self.fc(x) + self.w + self.pe + self.plain\n");
  EXPECT_EQ(A.at("self.w").Dev, Device::configured("self"));
  EXPECT_EQ(A.at("self.pe").Dev, Device::configured("self"));
  EXPECT_EQ(A.at("self.fc(x)").Dev, Device::configured("self"));
  EXPECT_EQ(A.at("self.plain").Dev.Kind, DeviceKind::Cpu);
  EXPECT_TRUE(A.at("self.plain").has(FlagPlainAttribute));
  EXPECT_TRUE(A.at("x").has(FlagInput));
}

// Generated code: a 20,000-term expression and loops nested 30 deep are analysed without
// exhausting the stack or multiplying the work, and nothing is claimed about what they hide.
TEST(DeviceFlowTransfer, DeepNestingStaysBounded) {
  std::string Sum = "import torch\ndef f(device):\n    x = torch.zeros(3)\n    y = x";
  for (int I = 0; I < 20000; ++I)
    Sum += " + x";
  Sum += "\n    return y\n";
  Analysed A(Sum);
  EXPECT_EQ(A.at("x").Dev.Kind, DeviceKind::Cpu);
  // Past the depth limit the terms are not evaluated; the sum still adds a CPU tensor last,
  // so it is on the CPU or raises, whatever the rest is.
  EXPECT_EQ(A.at("y").Dev.Kind, DeviceKind::Cpu);

  std::string Loops = "import torch\nfrom torch.utils.data import DataLoader\ndef f(device, ds):\n"
                      "    m = torch.nn.Linear(2, 2).to(device)\n";
  std::string Indent = "    ";
  for (int I = 0; I < 30; ++I) {
    Loops += Indent + "for i" + std::to_string(I) + " in DataLoader(ds):\n";
    Indent += "    ";
  }
  Loops += Indent + "out = m\n" + Indent + "z = out\n";
  Analysed B(Loops);
  EXPECT_FALSE(B.at("out").Dev.known()); // deep loops start from a state that knows nothing
}

TEST(DeviceFlowScope, OnlyCodeWordsMakeAFunctionWorthAnalysing) {
  // Words in a docstring or a comment move nothing: the function is left alone. The same
  // word in code gets it analysed.
  Analysed Prose("import torch\n"
                 "def f():\n"
                 "    \"\"\"Builds x; callers move it with x.to(device).\"\"\"\n"
                 "    x = torch.zeros(3)  # x.cuda() here would be wrong\n"
                 "    return x\n");
  EXPECT_EQ(Prose.at("x").Kind, ValueKind::Unknown);
  Analysed Code("import torch\n"
                "def f(device):\n"
                "    \"\"\"Builds x.\"\"\"\n"
                "    x = torch.zeros(3)\n"
                "    return x\n");
  EXPECT_EQ(Code.at("x").Dev.Kind, DeviceKind::Cpu);
}

TEST(DeviceFlowScope, KnowsWithinNeverHidesAValueBelow) {
  // A function with no trigger word is not analysed: nothing below its nodes has a value, and
  // rules may stop there. Wherever an expression below has one, the answer is yes, whatever
  // order the questions come in.
  Analysed A("import torch\n"
             "def quiet(a, b):\n"
             "    return helper(a, b) + [a, b]\n"
             "def loud(device):\n"
             "    x = torch.zeros(3)\n"
             "    y = x.to(device)\n"
             "    return x + y, helper(x)\n");
  std::vector<TSNode> Nodes;
  forEachNode(ts_tree_root_node(A.Tree.get()), [&](TSNode N) { Nodes.push_back(N); });
  auto ValueBelow = [&](TSNode N) {
    bool Any = false;
    forEachNode(N, [&](TSNode D) { Any |= A.Flow->valueOf(D) != nullptr; });
    return Any;
  };
  size_t Known = 0, Quiet = 0;
  for (bool Reverse : {false, true}) {
    for (size_t K = 0; K < Nodes.size(); ++K) {
      TSNode N = Nodes[Reverse ? Nodes.size() - 1 - K : K];
      bool Answer = A.Flow->knowsWithin(N);
      if (ValueBelow(N)) {
        EXPECT_TRUE(Answer) << A.Model.text()(N);
        Known += !Reverse;
      }
      if (ts_node_start_point(N).row == 2) { // inside quiet()
        EXPECT_FALSE(Answer) << A.Model.text()(N);
        Quiet += !Reverse;
      }
    }
  }
  EXPECT_GT(Known, 5u);
  EXPECT_GT(Quiet, 5u);
}

TEST(DeviceFlowScope, LeadingBlankLinesDoNotShiftTriggers) {
  // The only trigger is the parameter's name, a few bytes into the function: found at its
  // place in the file, not at its offset from the first token.
  Analysed A(std::string(60, '\n') + "import torch\ndef f(device):\n    x = torch.zeros(3)\n    return x\n");
  EXPECT_EQ(A.at("x").Dev.Kind, DeviceKind::Cpu);
}

TEST(DeviceFlowScope, TriggersAreFoundAtEveryOffset) {
  // The prefilter scans thirty-two (AVX2) or sixteen (SSE2) positions at a time, then byte by
  // byte: a trigger (`.to(`, `device`, `np.`) at any offset from those steps is found, and the
  // function read, with AVX2 and without.
  for (bool Avx2 : {true, false}) {
    useAvx2(Avx2);
    for (std::string_view Trigger : {"y.to(d)", "device", "np.e", "a.cpu()"})
      for (size_t Pad = 0; Pad < 70; ++Pad) {
        std::string Code = "import torch\nimport numpy as np\ndef f(d, y, a):\n    t = (" + std::string(Pad, ' ') +
                           std::string(Trigger) + ")\n    x = torch.zeros(3)\n    return x\n";
        Analysed A(Code + (Pad % 2 ? "z = 1\n" : std::string(Pad, '\n')));
        EXPECT_EQ(A.at("x").Dev.Kind, DeviceKind::Cpu) << Trigger << " after " << Pad << (Avx2 ? "" : " without AVX2");
      }
  }
  useAvx2(true);
  // Without one, the function is not read: x's device stays unknown.
  Analysed None("import torch\ndef f(d, y, a):\n    t = (y.too(d))\n    x = torch.zeros(3)\n    return x\n");
  EXPECT_EQ(None.at("x").Dev.Kind, DeviceKind::Unknown);
}

/// The `load_state_dict` call on line \p Line of \p A's source.
const OptimizerLoad *loadOn(const Analysed &A, uint32_t Line) {
  const OptimizerLoad *Found = nullptr;
  forEachNode(ts_tree_root_node(A.Tree.get()), [&](TSNode N) {
    if (is(N, "call") && ts_node_start_point(N).row + 1 == Line && !Found)
      Found = A.Flow->optimizerLoad(N);
  });
  return Found;
}

TEST(DeviceFlowOptimizers, StateStaysWhereTheParametersWereAtTheLoad) {
  Analysed A("import torch\n"
             "def f(state, device, resume):\n"
             "    model = torch.nn.Linear(2, 2)\n"
             "    opt = torch.optim.Adam([{'params': model.parameters()}])\n"
             "    if resume:\n"
             "        opt.load_state_dict(state)\n" // 6: loaded on one path
             "    model.to(device)\n"
             "    moved = torch.nn.Linear(2, 2).cuda()\n"
             "    sgd = torch.optim.SGD(moved.parameters())\n"
             "    sgd.load_state_dict(state)\n" // 10: loaded on cuda, never moved again
             "    other = torch.nn.Linear(2, 2)\n"
             "    adam = torch.optim.Adam(other.parameters())\n"
             "    adam.load_state_dict(state)\n" // 13: the model is rebuilt, then moved
             "    other = torch.nn.Linear(2, 2)\n"
             "    other.cuda()\n"
             "    last = torch.nn.Linear(2, 2)\n"
             "    lopt = torch.optim.Adam(last.parameters())\n"
             "    lopt.load_state_dict(state)\n" // 18: parameters replaced
             "    last.weight = torch.nn.Parameter(torch.zeros(2, 2))\n");
  const OptimizerLoad *L = loadOn(A, 6);
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->Optimizer, "opt");
  EXPECT_EQ(L->Model, "model");
  EXPECT_EQ(L->StateDevice.Kind, DeviceKind::Cpu);
  ASSERT_TRUE(L->Change);
  EXPECT_FALSE(L->Replaced);
  EXPECT_EQ(L->NewDevice, Device::configured("device"));
  EXPECT_EQ(ts_node_start_point(A.Flow->node(L->Change)).row + 1, 7u);
  EXPECT_EQ(ts_node_start_point(A.Flow->node(L->Created)).row + 1, 4u);
  L = loadOn(A, 10);
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->StateDevice.Kind, DeviceKind::Cuda);
  EXPECT_FALSE(L->Change);
  L = loadOn(A, 13);
  ASSERT_NE(L, nullptr);
  EXPECT_FALSE(L->Change); // `other` is another module by the time it moves
  L = loadOn(A, 18);
  ASSERT_NE(L, nullptr);
  EXPECT_TRUE(L->Replaced);
}

TEST(DeviceFlowOptimizers, AHandlerRunsWithoutTheBodysLoad) {
  Analysed A("import torch\n"
             "def f(state, device):\n"
             "    model = torch.nn.Linear(2, 2)\n"
             "    opt = torch.optim.Adam(model.parameters())\n"
             "    try:\n"
             "        opt.load_state_dict(state)\n"
             "    except KeyError:\n"
             "        model.to(device)\n");
  const OptimizerLoad *L = loadOn(A, 6);
  ASSERT_NE(L, nullptr);
  EXPECT_FALSE(L->Change);
}

TEST(DeviceFlowScope, EveryMoveAndCastOfTheTableIsATrigger) {
  // The prefilter searches the text for the table's moves and casts by hand (it is the
  // fastest code of the flow): a method added to the table must be added there too.
  for (std::string_view Method : torch::methodsWith(torch::Move | torch::Cast)) {
    Analysed A("import torch\ndef f():\n    y = torch.zeros(3)\n    return y." + std::string(Method) + "()\n");
    EXPECT_EQ(A.at("torch.zeros(3)").Kind, ValueKind::Tensor) << Method << " does not make f worth interpreting";
  }
  Analysed None("import torch\ndef f():\n    y = torch.zeros(3)\n    return y.sum()\n");
  EXPECT_EQ(None.at("torch.zeros(3)").Kind, ValueKind::Unknown);
}

} // namespace
} // namespace torchlint::flow
