// TL102 device-mismatch: an operation, module call or loss whose operands the device flow
// places on different devices (a moved model fed a batch that never moved, a target left on
// the CPU, a tensor attribute that did not follow `model.to()`).
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL102 device-mismatch

## What it does
Flags an arithmetic operation, `torch.cat`/`stack`/`matmul`/`where`, a loss function or loss
module, or a module call whose tensor operands are, as far as the device flow can tell, on
different devices: a model moved to `device` fed a batch straight from the DataLoader, a
target left on the CPU while the output is on the GPU, a plain tensor attribute (which
`model.to()` does not move) combined with a parameter. Notes point to where each operand got
its device.

## Why is this bad?
PyTorch does not move operands for you. Mixing devices raises `RuntimeError: Expected all
tensors to be on the same device, but found at least two devices, cuda:0 and cpu!` (or
`Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same`
for a module call), on the first step of the first GPU run.

## Example
```python
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for images, labels in loader:
    images = images.to(device)
    loss = F.cross_entropy(model(images), labels)
```

## Use instead
```python
for images, labels in loader:
    images, labels = images.to(device), labels.to(device)
    loss = F.cross_entropy(model(images), labels)
```

## When it stays silent
- Python scalars and 0-dim CPU tensors with CUDA tensors (`cuda_tensor * 2`,
  `cuda_tensor + torch.tensor(1.0)`): PyTorch allows them in elementwise operations (not in
  `torch.cat`/`torch.stack`, which need every tensor on one device). Indexing
  (`cuda_tensor[cpu_index]`).
- Two devices the flow cannot tell apart: two different configured devices, `cuda` and a
  configured device, anything whose device is unknown (an argument, a value from a module
  outside the project, or from one whose summary does not say where it is).
- Modules moved in place in one branch only, and code guarded by `torch.cuda.is_available()`.
- A tensor factory without `device=` inside `forward`: TL104 speaks there.
- A module wrapped in `DataParallel`, which scatters CPU inputs itself, and modules of this
  file whose code moves tensors itself (`x = x.to(self.device)` in `forward`).
)md";

class DeviceMismatch final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"binary_operator", "call"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (N.Flags & FlagCudaGuarded)
      return;
    const flow::DeviceFlow *F = &Ctx.analysis<flow::DeviceFlow>();
    if (!F->knowsWithin(N))
      return; // every operand below is unknown
    const NodeText &Text = Ctx.text();
    bool InForward = Ctx.model().inRole(N.Scope, RoleForward);
    if (is(N, "binary_operator")) {
      if (!torch::combinesTensors(Text(field(N.Node, "operator"))))
        return;
      pair(N.Node, field(N.Node, "left"), field(N.Node, "right"), *F, Ctx, InForward);
      return;
    }
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    torch::Api Kind = Facts->api().Kind;
    bool Joins = Kind == torch::Api::Join;
    bool Pairs = Kind == torch::Api::Pairwise || Kind == torch::Api::Loss;
    // Otherwise only a module call: the callee is a module the flow knows. (All decided
    // before the arguments are read, which costs more.)
    const flow::Value *Mod = Facts->Qualified.empty() ? F->valueOf(Facts->Callee) : nullptr;
    // A tensor method taking another tensor (`a.add_(b)`, `a.mul(b)`, `a.lerp_(b, w)`): checked
    // like the function (`torch.add(a, b)`).
    if (Facts->Qualified.empty() && is(Facts->Callee, "attribute")) {
      auto P = attributeParts(Facts->Callee, Text);
      if (P && torch::methodIs(P->Name, torch::PairwiseMethod)) {
        const CallArgs &A = Facts->args();
        if (!A.HasSplat && !A.Positional.empty())
          pair(N.Node, P->Object, A.Positional[0], *F, Ctx, InForward);
        return;
      }
    }
    if (!Joins && !Pairs && Kind != torch::Api::Where && (!Mod || Mod->Kind != flow::ValueKind::Module))
      return;
    const CallArgs &A = Facts->args();
    if (A.HasSplat)
      return;
    if (Joins) {
      if (A.Positional.empty() || !(is(A.Positional[0], "list") || is(A.Positional[0], "tuple")))
        return;
      NodeList Els = namedChildren(A.Positional[0]);
      for (size_t I = 1; I < Els.size(); ++I)
        if (pair(N.Node, Els[0], Els[I], *F, Ctx, InForward, /*Elementwise=*/false))
          return;
      return;
    }
    if (Pairs) {
      if (A.Positional.size() >= 2)
        pair(N.Node, A.Positional[0], A.Positional[1], *F, Ctx, InForward);
      return;
    }
    if (Kind == torch::Api::Where) {
      if (A.Positional.size() == 3)
        pair(N.Node, A.Positional[1], A.Positional[2], *F, Ctx, InForward);
      return;
    }
    if (Mod->has(flow::FlagParamless)) { // a loss module: its operands must agree
      if (A.Positional.size() >= 2)
        pair(N.Node, A.Positional[0], A.Positional[1], *F, Ctx, InForward);
      return;
    }
    if (Mod->has(flow::FlagMovesInputs))
      return; // its forward moves what it is given
    for (TSNode Arg : A.Positional) {
      const flow::Value *V = F->valueOf(Arg);
      if (!V || !V->isTensor() || !flow::certainlyDifferent(Mod->Dev, V->Dev))
        continue;
      if (V->Dev.Kind == flow::DeviceKind::Cpu && V->R != flow::Rank::NonZero)
        continue;
      if (InForward && V->has(flow::FlagDefaultFactory))
        continue; // TL104
      std::string M = shortText(A.Callee, Text), X = shortText(Arg, Text);
      Diagnostic &D = Ctx.report(N.Node, "`" + M + "` is on " + flow::deviceName(Mod->Dev) + " but its input `" + X +
                                             "` is on " + flow::deviceName(V->Dev));
      D.Notes.push_back(F->deviceNote(A.Callee, *Mod, Text));
      D.Notes.push_back(F->deviceNote(Arg, *V, Text));
      return;
    }
  }

private:
  /// Reports \p At when \p L and \p R are tensors certainly on different devices.
  /// \p Elementwise: an op whose 0-dim CPU operands combine with tensors anywhere (not so
  /// `torch.cat`/`torch.stack`, which need every tensor on one device whatever its rank).
  static bool pair(TSNode At, TSNode L, TSNode R, const flow::DeviceFlow &F, RuleContext &Ctx, bool InForward,
                   bool Elementwise = true) {
    const flow::Value *A = F.valueOf(L), *B = F.valueOf(R);
    if (!A || !B || !A->isTensor() || !B->isTensor() || !flow::certainlyDifferent(A->Dev, B->Dev))
      return false;
    // A 0-dim CPU tensor combines with anything elementwise; the CPU side must have dimensions.
    for (const flow::Value *V : {A, B}) {
      if (V->Dev.Kind != flow::DeviceKind::Cpu)
        continue;
      if ((Elementwise && V->R != flow::Rank::NonZero) || (InForward && V->has(flow::FlagDefaultFactory)))
        return false;
    }
    const NodeText &Text = Ctx.text();
    std::string X = shortText(L, Text), Y = shortText(R, Text);
    Diagnostic &D = Ctx.report(At, "`" + X + "` is on " + flow::deviceName(A->Dev) + " but `" + Y + "` is on " +
                                       flow::deviceName(B->Dev));
    D.Notes.push_back(F.deviceNote(L, *A, Text));
    D.Notes.push_back(F.deviceNote(R, *B, Text));
    return true;
  }
};
} // namespace

std::unique_ptr<Rule> createDeviceMismatch(const RuleInfo &I) { return std::make_unique<DeviceMismatch>(I); }

} // namespace torchlint::rules
