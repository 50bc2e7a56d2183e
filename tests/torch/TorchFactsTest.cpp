// The table of PyTorch facts (torch/Api) and the readers of PyTorch's spellings in the tree
// (torch/Read): one answer per question, whichever layer asks.
#include "semantic/Walker.h"
#include "torch/Api.h"
#include "torch/Read.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace torchlint::torch {
namespace {

TEST(TorchApi, ClassifiesNamesByKind) {
  EXPECT_EQ(classify("torch.zeros").Kind, Api::Factory);
  EXPECT_TRUE(classify("torch.zeros").has(CpuDefault));
  EXPECT_TRUE(classify("torch.zeros").has(Float32Default));
  EXPECT_TRUE(classify("torch.tensor").has(DataDevice));
  EXPECT_FALSE(classify("torch.tensor").has(CpuDefault));
  EXPECT_EQ(classify("torch.hann_window").Kind, Api::Factory);
  EXPECT_EQ(classify("torch.distributed.all_reduce").Kind, Api::Collective);
  EXPECT_TRUE(classify("torch.distributed.all_reduce").has(TensorArg0));
  EXPECT_TRUE(classify("torch.distributed.all_gather").has(TensorArg1));
  EXPECT_FALSE(classify("torch.distributed.all_gather").has(TensorArg0)); // a list of outputs
  EXPECT_EQ(classify("torch.utils.model_zoo.load_url").Kind, Api::HubLoad);
  EXPECT_TRUE(failsWithoutCuda("torch.cuda.synchronize"));
  EXPECT_TRUE(failsWithoutCuda("torch.cuda.Event"));
  EXPECT_FALSE(failsWithoutCuda("torch.cuda.empty_cache")); // does nothing before CUDA starts
  EXPECT_FALSE(failsWithoutCuda("torch.cuda.max_memory_allocated"));
  EXPECT_EQ(classify("torch.zeros_like").Kind, Api::LikeFactory);
  EXPECT_EQ(classify("torch.polar_like").Kind, Api::NewTensor); // every other *_like
  EXPECT_EQ(classify("torch.cat").Kind, Api::Join);
  EXPECT_EQ(classify("torch.matmul").Kind, Api::Pairwise);
  EXPECT_EQ(classify("torch.nn.functional.cross_entropy").Kind, Api::Loss);
  EXPECT_EQ(classify("torch.nn.functional.nll_loss").Kind, Api::Loss);
  EXPECT_EQ(classify("torch.nn.functional.relu").Kind, Api::Functional);
  EXPECT_EQ(classify("torch.serialization.load").Kind, Api::Load);
  EXPECT_EQ(classify("torch.utils.data.DataLoader").Kind, Api::DataLoader);
  EXPECT_EQ(classify("torch.optim.AdamW").Kind, Api::Optimizer);
  EXPECT_EQ(classify("torch.optim.lr_scheduler.StepLR").Kind, Api::None); // a scheduler is no optimizer
  EXPECT_EQ(classify("torch.optim.Optimizer").Kind, Api::None);           // the base class builds none
  EXPECT_EQ(classify("torch.nn.Linear").Kind, Api::ModuleClass);
  EXPECT_TRUE(classify("torch.nn.ReLU").has(Paramless));
  EXPECT_TRUE(classify("torch.nn.CrossEntropyLoss").has(Paramless));
  EXPECT_TRUE(classify("torch.nn.ModuleList").has(Container));
  EXPECT_TRUE(classify("torch.nn.DataParallel").has(Wrapper));
  EXPECT_TRUE(classify("torch.nn.parallel.DistributedDataParallel").has(Wrapper));
  EXPECT_EQ(classify("torch.nn.Parameter").Kind, Api::Parameter);
  EXPECT_EQ(classify("torch.nn.Buffer").Kind, Api::None); // a tensor, not a module
  EXPECT_TRUE(classify("torchvision.models.resnet50").has(Builder));
  EXPECT_EQ(classify("torchvision.models.ResNet50_Weights").Kind, Api::None);
  EXPECT_EQ(classify("torch.cuda.amp.GradScaler").Kind, Api::DeprecatedAmp);
  EXPECT_EQ(classify("torch.amp.GradScaler").Kind, Api::None);
  EXPECT_TRUE(classify("numpy.zeros").has(FloatData));
  EXPECT_FALSE(classify("numpy.full").has(FloatData)); // its dtype is the fill value's
  EXPECT_EQ(classify("mylib.zeros").Kind, Api::None);
  EXPECT_EQ(classifyTorch("arange").Kind, Api::Factory);
  auto Amp = lastNamesOf(Api::DeprecatedAmp);
  EXPECT_EQ(Amp.size(), 4u);
  EXPECT_NE(std::find(Amp.begin(), Amp.end(), "custom_bwd"), Amp.end());
}

TEST(TorchApi, MethodsOfTensorsAndModules) {
  EXPECT_TRUE(methodIs("to", Move));
  EXPECT_TRUE(methodIs("cpu", HostRead));
  EXPECT_TRUE(methodIs("double", Cast));
  EXPECT_FALSE(methodIs("double", Move));
  EXPECT_TRUE(methodIs("eval", ModuleSelf));
  EXPECT_FALSE(methodIs("eval", ModuleMoves));
  EXPECT_TRUE(methodIs("apply", ModuleMoves));
  EXPECT_TRUE(methodIs("state_dict", ModuleQuery));
  EXPECT_TRUE(methodIs("new_zeros", NewOnDevice));
  EXPECT_TRUE(methodIs("sum", KeepsDevice));
  EXPECT_FALSE(methodIs("sum", KeepsShape));
  EXPECT_TRUE(methodIs("mul", PairwiseMethod));
  // In-place fills return the receiver: a chain keeps its device (kornia's scaling matrix,
  // `torch.zeros((2, 2)).fill_diagonal_(1)`).
  EXPECT_TRUE(methodIs("fill_diagonal_", KeepsShape));
  EXPECT_TRUE(methodIs("masked_fill_", KeepsShape));
  EXPECT_TRUE(methodIs("cumprod", KeepsDevice));
  EXPECT_FALSE(methodIs("cumprod", KeepsShape) && methodIs("cumprod", PairwiseMethod));
  EXPECT_EQ(methodBits("frobnicate"), MethodNone);
  auto Reads = methodsWith(HostRead);
  EXPECT_EQ(Reads.size(), 4u); // item, tolist, numpy, cpu
}

TEST(TorchApi, DtypesAndDeviceStrings) {
  EXPECT_EQ(dtypeNamed("torch.double"), ScalarType::Float64);
  EXPECT_EQ(dtypeNamed("torch.float"), ScalarType::Float32);
  EXPECT_EQ(dtypeNamed("numpy.float"), ScalarType::Unknown); // NumPy's own `float` is gone
  EXPECT_EQ(dtypeNamed("numpy.float32", /*TorchOnly=*/true), ScalarType::Unknown);
  EXPECT_EQ(dtypeNamed("torch.cfloat"), ScalarType::Complex64);
  EXPECT_EQ(scalarTypeName(castType("half")), "float16");
  EXPECT_EQ(legacyTensorType("torch.DoubleTensor"), ScalarType::Float64);
  EXPECT_EQ(legacyCudaTensorType("torch.cuda.LongTensor"), ScalarType::Int64);
  EXPECT_EQ(legacyCudaTensorType("torch.cuda.Tensor"), ScalarType::Unknown);
  EXPECT_EQ(legacyCudaTensorType("torch.LongTensor"), ScalarType::Unknown);
  DeviceString D = parseDeviceString("cuda:1");
  EXPECT_TRUE(D.Valid);
  EXPECT_EQ(D.Type, "cuda");
  EXPECT_EQ(D.Index, 1);
  EXPECT_EQ(parseDeviceString("CPU").Suggestion, "cpu");
  EXPECT_EQ(parseDeviceString("cuda0").Suggestion, "cuda:0");
  EXPECT_TRUE(parseDeviceString("gpu").LooksLikeDevice);
  EXPECT_TRUE(parseDeviceString("gpu").Suggestion.empty());
  EXPECT_FALSE(parseDeviceString("a sentence about the cuda device").LooksLikeDevice);
  EXPECT_TRUE(namesDevice("args.device"));
  EXPECT_FALSE(namesDevice("num_devices"));
  EXPECT_FALSE(namesDevice("device_ids"));
  EXPECT_TRUE(mentionsDeviceWord("device_ids"));
  EXPECT_TRUE(combinesTensors("@"));
  EXPECT_FALSE(combinesTensors("=="));
}

/// A parsed source with its semantic model; `call(Text)` finds the call spelt so.
struct Source {
  std::string Text;
  TreePtr Tree;
  SemanticModel Model;
  explicit Source(std::string S) : Text(std::move(S)), Tree(parsePython(Text)), Model(Text) {
    KindSet None;
    walkFile(ts_tree_root_node(Tree.get()), Model, None);
  }
  TSNode node(std::string_view Spelt, std::string_view Kind) const {
    TSNode Found{};
    forEachNode(ts_tree_root_node(Tree.get()), [&](TSNode N) {
      if (ts_node_is_null(Found) && is(N, Kind) && Model.text()(N) == Spelt)
        Found = N;
    });
    EXPECT_FALSE(ts_node_is_null(Found)) << Spelt;
    return Found;
  }
  CallArgs args(std::string_view Call) const { return *callArgs(node(Call, "call"), Model.text()); }
};

TEST(TorchRead, DeviceExpressions) {
  Source S("import torch as T\n"
           "a = 'cuda:1'\nb = 0\nc = T.device('cuda', rank)\nd = T.device('cuda:0', 1)\ne = T.device(type='mps')\n"
           "f = 'gpu'\ng = T.device(x)\n");
  auto D = readDevice(S.node("'cuda:1'", "string"), S.Model);
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Index, 1);
  D = readDevice(S.node("0", "integer"), S.Model);
  ASSERT_TRUE(D);
  EXPECT_EQ(D->type(), "cuda"); // an integer is a CUDA ordinal
  D = readDevice(S.node("T.device('cuda', rank)", "call"), S.Model);
  ASSERT_TRUE(D);
  EXPECT_TRUE(D->VariableIndex);
  EXPECT_TRUE(D->torchDevice());
  D = readDevice(S.node("T.device('cuda:0', 1)", "call"), S.Model);
  ASSERT_TRUE(D);
  EXPECT_TRUE(D->Raises);
  EXPECT_FALSE(spelledDevice(S.node("T.device('cuda:0', 1)", "call"), S.Model));
  EXPECT_EQ(spelledDevice(S.node("T.device(type='mps')", "call"), S.Model)->type(), "mps");
  D = readDevice(S.node("'gpu'", "string"), S.Model);
  ASSERT_TRUE(D); // read, for the rule that reports it, but no device
  EXPECT_FALSE(D->valid());
  EXPECT_FALSE(readDevice(S.node("T.device(x)", "call"), S.Model));
}

TEST(TorchRead, ToAndLoadArguments) {
  Source S("import torch\n"
           "x.to(device, torch.float16, non_blocking=True)\n"
           "x.to(torch.half, True)\n"
           "x.to(other)\n"
           "x.to('cuda', device='cpu')\n"
           "x.to(*args)\n"
           "torch.load(f, 'cpu', weights_only=True)\n"
           "torch.optim.Adam([{'params': net.parameters()}, {'params': net.parameters(), 'lr': 1}])\n"
           "torch.optim.Adam(list(a.parameters()) + list(b.parameters()))\n");
  ToArgs T = readTo(S.args("x.to(device, torch.float16, non_blocking=True)"), S.Model);
  EXPECT_EQ(S.Model.text()(T.Device), "device");
  EXPECT_EQ(S.Model.text()(T.Dtype), "torch.float16");
  EXPECT_EQ(T.Positional, 2u);
  T = readTo(S.args("x.to(torch.half, True)"), S.Model);
  EXPECT_TRUE(ts_node_is_null(T.Device));
  EXPECT_EQ(S.Model.text()(T.Dtype), "torch.half");
  T = readTo(S.args("x.to(other)"), S.Model);
  EXPECT_TRUE(T.DeviceMayBeTensor);
  EXPECT_TRUE(readTo(S.args("x.to('cuda', device='cpu')"), S.Model).Conflict);
  T = readTo(S.args("x.to(*args)"), S.Model);
  EXPECT_TRUE(ts_node_is_null(T.Device) && ts_node_is_null(T.Dtype));
  LoadArgs L = readLoad(S.args("torch.load(f, 'cpu', weights_only=True)"));
  EXPECT_EQ(S.Model.text()(L.MapLocation), "'cpu'");
  EXPECT_EQ(S.Model.text()(L.WeightsOnly), "True");
  TSNode Owner = parametersOwner(
      S.args("torch.optim.Adam([{'params': net.parameters()}, {'params': net.parameters(), 'lr': 1}])").Positional[0],
      S.Model.text());
  EXPECT_EQ(S.Model.text()(Owner), "net");
  EXPECT_TRUE(ts_node_is_null(
      parametersOwner(S.args("torch.optim.Adam(list(a.parameters()) + list(b.parameters()))").Positional[0],
                      S.Model.text())));
}

TEST(TorchRead, KeywordNamesHoweverSpelt) {
  // Plain ASCII names are read off the text; the rest from the tree: the same names.
  Source S("f(a=1, b = 2, na\xc3\xafve=3, c\t=4, d=\\\n  5, _e9=g(h=6), *r, **k)\n");
  CallArgs A = S.args("f(a=1, b = 2, na\xc3\xafve=3, c\t=4, d=\\\n  5, _e9=g(h=6), *r, **k)");
  std::vector<std::string> Names;
  for (auto &[Name, Value] : A.Keywords)
    Names.push_back(std::string(Name) + "=" + std::string(S.Model.text()(Value)));
  EXPECT_EQ(Names, (std::vector<std::string>{"a=1", "b=2", "na\xc3\xafve=3", "c=4", "d=5", "_e9=g(h=6)"}));
  EXPECT_TRUE(A.HasSplat);
  EXPECT_EQ(A.KeywordNodes.size(), 6u);
}

TEST(TorchRead, KeywordsPassedAreSeenInTheText) {
  for (std::string_view T : {"(device=x)", "(a, device = x)", "(device\n  =x)", "(f(device), device=x)",
                             "(device  # c\n = x)", "(device\\\n=x)", "(g(device=1))"})
    EXPECT_TRUE(mayPassKeyword(T, "device")) << T;
  for (std::string_view T : {"(device)", "(x.device)", "(my_device=1)", "(device_ids=[0])", "(device == x)",
                             "(f(device), d)", "(devices=1)", "(a, device", "()"})
    EXPECT_FALSE(mayPassKeyword(T, "device")) << T;
  // Every keyword the tree reads, however written, is one the text may pass.
  std::string Code = "f(a=1, b = 2, na\xc3\xafve=3, c\t=4, d=\\\n  5, _e9=g(h=6), *r, **k)\n"
                     "torch.zeros(3, device  # where\n  = dev, dtype=t)\n"
                     "m(x.device, y == z, w=(v == 1))\n";
  Source S(Code);
  size_t Keywords = 0;
  forEachNode(ts_tree_root_node(S.Tree.get()), [&](TSNode N) {
    auto A = is(N, "call") ? callArgs(N, S.Model.text()) : std::nullopt;
    if (!A)
      return;
    std::string_view ArgText = S.Model.text()(A->ArgList);
    for (auto &[Name, Value] : A->Keywords) {
      ++Keywords;
      EXPECT_TRUE(mayPassKeyword(ArgText, Name)) << Name;
    }
    for (std::string_view Absent : {"device", "x", "y", "z"})
      EXPECT_EQ(mayPassKeyword(ArgText, Absent), !ts_node_is_null(A->keyword(Absent))) << Absent << " in " << ArgText;
  });
  EXPECT_EQ(Keywords, 10u);
}

TEST(TorchRead, ModuleConstructorsAndMapLocations) {
  Source S("import torch\nfrom torchvision import models\n"
           "class Net(torch.nn.Module):\n    pass\n"
           "a = Net()\nb = torch.nn.Linear(1, 2)\nc = models.resnet18()\nd = torch.nn.Parameter(w)\n"
           "e = torch.load(p, map_location={'cuda:1': 'cuda:0'})\n"
           "f = torch.device('cuda') == x.device\n");
  EXPECT_TRUE(constructsModule(S.node("Net()", "call"), S.Model));
  EXPECT_TRUE(constructsModule(S.node("torch.nn.Linear(1, 2)", "call"), S.Model));
  EXPECT_TRUE(constructsModule(S.node("models.resnet18()", "call"), S.Model));
  EXPECT_FALSE(constructsModule(S.node("torch.nn.Parameter(w)", "call"), S.Model));
  EXPECT_TRUE(inMapLocation(S.node("'cuda:0'", "string"), S.Model));
  EXPECT_TRUE(deviceOnlyInspected(S.node("torch.device('cuda')", "call"), S.Model));
}

} // namespace
} // namespace torchlint::torch
