// Guards read from the tree: the sense of conditions, test markers, and the flags the walk
// gives the code they guard.
#include "semantic/Guards.h"
#include "semantic/Walker.h"

#include <gtest/gtest.h>

namespace torchlint {
namespace {

constexpr std::string_view Imports = "import os\nimport torch\nimport torch as T\nfrom torch import cuda\n"
                                     "from torch.cuda import device_count, is_available\nfrom torch.backends import mps\n";

/// The walk of \p Source (for its imports) and its tree.
struct Walked {
  std::string Source;
  TreePtr Tree;
  SemanticModel Model;
  WalkResult Walk;
  explicit Walked(std::string S) : Source(std::move(S)), Tree(parsePython(Source)), Model(Source) {
    KindSet K;
    K.add("call");
    Walk = walkFile(ts_tree_root_node(Tree.get()), Model, K);
  }
  /// The last top-level statement.
  TSNode last() const {
    TSNode Root = ts_tree_root_node(Tree.get());
    return ts_node_named_child(Root, ts_node_named_child_count(Root) - 1);
  }
};

GuardSense sense(std::string_view Condition) {
  Walked W(std::string(Imports) + "if " + std::string(Condition) + ":\n    pass\n");
  return conditionSense(field(W.last(), "condition"), W.Model);
}

bool marker(std::string_view Decorator) {
  Walked W(std::string(Imports) + "@" + std::string(Decorator) + "\ndef test_x():\n    pass\n");
  TSNode Decorator0 = ts_node_named_child(W.last(), 0);
  return acceleratorMarker(ts_node_named_child(Decorator0, 0), W.Model);
}

// conditionSense skips the tree of a condition whose text holds no accelerator word, unless an
// import hides one behind another name.
TEST(Guards, ATextWithoutAcceleratorWordsSaysNothingUnlessAnImportHidesOne) {
  for (std::string_view T : {"x.is_cuda", "USE_GPU", "device.type == 'cpu'", "backend == \"nccl\"",
                             "hasMPS", "on_tpu", "use_xla", "torch.backends.cudnn.enabled", "len(device_ids) > 1",
                             "accelerator"})
    EXPECT_TRUE(mayMentionAccelerator(T)) << T;
  for (std::string_view T : {"x is None", "i % 10 == 0", "args.verbose and step > 0"})
    EXPECT_FALSE(mayMentionAccelerator(T)) << T;
  Walked Hidden("import torch.cuda as tc\nfrom torch.cuda import is_available as avail\nif avail():\n    pass\n");
  EXPECT_TRUE(Hidden.Model.importHidesAccelerator());
  EXPECT_EQ(conditionSense(field(Hidden.last(), "condition"), Hidden.Model), GuardSense::Present);
  Walked Alias("import torch.cuda as tc\nif tc.is_available():\n    pass\n");
  EXPECT_EQ(conditionSense(field(Alias.last(), "condition"), Alias.Model), GuardSense::Present);
  // The module's name hides the word (`is_available` is CUDA's); a name that says it itself, or
  // `import torch.cuda` (which binds `torch`), hides nothing.
  Walked FromModule("from torch.cuda import is_available\n");
  EXPECT_TRUE(FromModule.Model.importHidesAccelerator());
  Walked Spoken("from torch.backends import cudnn\nimport torch.cuda\nfrom torch import cuda as cuda_mod\n");
  EXPECT_FALSE(Spoken.Model.importHidesAccelerator());
  Walked Plain("import torch\nimport numpy as np\nif np.isnan(x):\n    pass\n");
  EXPECT_FALSE(Plain.Model.importHidesAccelerator());
  EXPECT_EQ(conditionSense(field(Plain.last(), "condition"), Plain.Model), GuardSense::None);
}

TEST(Guards, ConditionsAboutTheAccelerator) {
  for (std::string_view C :
       {"torch.cuda.is_available()", "T.cuda.is_available()", "cuda.is_available()", "is_available()",
        "torch.cuda.device_count() > 1", "device_count()", "torch.backends.mps.is_available()", "mps.is_available()",
        "torch.cuda.is_initialized()", "x.is_cuda", "x.device.type == \"cuda\"", "device.type != \"cpu\"",
        "device != 'cpu'", "str(device) == 'cuda:0'", "'cuda' in str(device)", "backend == \"nccl\"", "use_cuda",
        "args.cuda", "self.on_gpu", "has_gpu", "args.gpu is not None", "num_gpus > 0", "len(device_ids) > 1",
        "x.device == torch.device('cuda')", "device.type in ('cuda', 'mps')", "torch.version.cuda is not None",
        "getattr(args, 'use_cuda', False)", "'CUDA_VISIBLE_DEVICES' in os.environ", "any(t.is_cuda for t in ts)",
        "torch.cuda.is_available() and not args.cpu", "T.cuda.is_available() == True", "(x.is_mps)",
        "TEST_MULTIGPU", "args.accelerator == 'gpu'", "0 < torch.cuda.device_count()",
        "x.type() == 'torch.cuda.HalfTensor'"})
    EXPECT_EQ(sense(C), GuardSense::Present) << C;
  for (std::string_view C :
       {"not torch.cuda.is_available()", "not T.cuda.is_available()", "not is_available()", "device.type == 'cpu'",
        "x.device.type != 'cuda'", "args.no_cuda", "not x.is_cuda", "args.gpu is None", "num_gpus == 0",
        "torch.cuda.device_count() < 2", "2 > device_count()", "device == 'cpu'",
        "not torch.cuda.is_available() or args.cpu", "torch.cuda.is_available() == False",
        "x.device.type not in ['cuda']", "not (use_gpu and cuda.is_available())", "args.mode == 'no_gpu'",
        "str(device).startswith('cpu')"})
    EXPECT_EQ(sense(C), GuardSense::Absent) << C;
  for (std::string_view C : {"torch.cuda.current_device() == rank", "rank in device_ids",
                             "not torch.cuda.is_available() and x.is_cuda"})
    EXPECT_EQ(sense(C), GuardSense::Either) << C;
}

TEST(Guards, ConditionsThatOnlyMentionADevice) {
  for (std::string_view C :
       {"map_location not in ['cpu', 'cuda']", "map_location in ('cpu', 'cuda:0')", "device is None",
        "device is not None", "x.device == y.device", "self.grid is None or self.grid.device != x.device",
        "isinstance(x, torch.Tensor)", "message == 'use cuda please'", "timestamps > 0", "args.dumps",
        "map_location == 'cpu'", "mode == 'train'", "args.device is None", "not device",
        "isinstance(scaler, torch.cuda.amp.GradScaler) and x", "timer.report('cpu')", "timings['cpu'] > 0"})
    EXPECT_EQ(sense(C), GuardSense::None) << C;
}

TEST(Guards, NamesSayWhatTheyHold) {
  for (std::string_view N : {"use_cuda", "TEST_CUDA", "TEST_MULTIGPU", "is_mps", "hasMPS", "MPS_AVAILABLE",
                             "device_ids", "gpu_no", "ngpu", "nccl_backend", "cudnn"})
    EXPECT_EQ(nameSense(N), GuardSense::Present) << N;
  for (std::string_view N : {"no_cuda", "NO_CUDA", "disableGpu", "skipIfNoCuda", "nocuda", "without_gpu"})
    EXPECT_EQ(nameSense(N), GuardSense::Absent) << N;
  for (std::string_view N : {"device", "timestamps", "dumps", "normal", "x", "develop", "devices"})
    EXPECT_EQ(nameSense(N), GuardSense::None) << N;
}

TEST(Guards, TestMarkers) {
  for (std::string_view D :
       {"RunIf(min_cuda_gpus=1)", "RunIf(mps=True)", "pytest.mark.skipif(not torch.cuda.is_available(), reason='x')",
        "pytest.mark.skipif(not T.cuda.is_available(), reason='no GPU here')", "unittest.skipUnless(TEST_CUDA, 'no')",
        "unittest.skipIf(not TEST_CUDA, 'CUDA unavailable')", "requires_cuda", "pytest.mark.gpu",
        "pytest.mark.skipif(torch.cuda.device_count() < 2, reason='two')", "largeTensorTest('10GB', 'cuda')",
        "skip_if_lt_x_gpu(2)", "pytest.mark.skipif(**_SKIP_IF_NO_GPU)",
        "pytest.mark.skipif(condition=not cuda.is_available(), reason='')"})
    EXPECT_TRUE(marker(D)) << D;
  for (std::string_view D :
       {"RunIf(mps=False)", "pytest.mark.skipif(torch.cuda.is_available(), reason='CPU only')",
        "pytest.mark.parametrize('device', ['cpu', 'cuda'])", "torch.autocast(device_type='cuda')",
        "torch.cuda.amp.custom_fwd", "T.cuda.amp.custom_fwd(cast_inputs=T.float32)",
        "pytest.mark.xfail(not torch.cuda.is_available(), reason='flaky')", "pytest.mark.slow",
        "pytest.mark.parametrize('t', [torch.ones(1).cuda()])", "unittest.skipIf(IS_WINDOWS, 'no device here')"})
    EXPECT_FALSE(marker(D)) << D;
}

TEST(Guards, EarlyExits) {
  Walked W("import sys, torch, pytest\nfrom torch import cuda\n"
           "def a():\n    if not torch.cuda.is_available():\n        return\n    a1.cuda()\n"
           "def b():\n    if torch.cuda.is_available():\n        return\n    b1.cuda()\n"
           "def c():\n    if not cuda.is_available():\n        pytest.skip('no CUDA')\n    c1.cuda()\n"
           "def d():\n    if torch.cuda.is_available():\n        pass\n    else:\n        sys.exit(1)\n    d1.cuda()\n"
           "def e(map_location):\n    if map_location not in ['cpu', 'cuda']:\n        raise ValueError()\n"
           "    torch.load(p)\n"
           "def f(a, b):\n    assert a.shape == b.shape, 'same device'\n    f1.cuda()\n"
           "def g(x):\n    assert x.is_cuda\n    g1.cuda()\n"
           "def h(device=None):\n    if device is None:\n        device = 'cpu'\n    h1.cuda()\n"
           "def k(x):\n    assert not x.is_cuda, 'on the CPU'\n    k1.cuda()\n"
           "def m():\n    if torch.cuda.is_available():\n        pass\n    elif y:\n        pass\n"
           "    else:\n        return\n    m1.cuda()\n"
           "def n():\n    if not torch.cuda.is_available():\n        raise RuntimeError()  # why\n    n1.cuda()\n");
  auto Guarded = [&](std::string_view Call) {
    for (const NodeRef &N : W.Walk.Nodes)
      if (W.Model.text()(N.Node) == Call)
        return (N.Flags & FlagCudaGuarded) != 0;
    ADD_FAILURE() << "no node " << Call;
    return false;
  };
  EXPECT_TRUE(Guarded("a1.cuda()")) << "a negated test with an early exit";
  EXPECT_FALSE(Guarded("b1.cuda()")) << "a positive test with an early exit";
  EXPECT_TRUE(Guarded("c1.cuda()")) << "pytest.skip, through an alias";
  EXPECT_TRUE(Guarded("d1.cuda()")) << "a positive test whose else leaves";
  EXPECT_FALSE(Guarded("torch.load(p)")) << "a check of the value's spelling";
  EXPECT_FALSE(Guarded("f1.cuda()")) << "the assert's message is no condition";
  EXPECT_TRUE(Guarded("g1.cuda()"));
  EXPECT_FALSE(Guarded("h1.cuda()")) << "a None check on a device parameter";
  EXPECT_FALSE(Guarded("k1.cuda()")) << "an assert that the tensor is on the CPU";
  EXPECT_FALSE(Guarded("m1.cuda()")) << "an elif decides as well";
  EXPECT_TRUE(Guarded("n1.cuda()")) << "a comment after the exit";
}

TEST(Guards, DeepConditionsDoNotExhaustTheStack) {
  std::string Deep = "if ";
  for (int I = 0; I < 3000; ++I)
    Deep += "not ";
  Deep += "torch.cuda.is_available():\n    pass\n";
  Walked W("import torch\n" + Deep);
  EXPECT_EQ(conditionSense(field(W.last(), "condition"), W.Model), GuardSense::None);
}

} // namespace
} // namespace torchlint
