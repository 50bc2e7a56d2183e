// TL104 factory-without-device: inside `forward` (or a method it calls), a tensor factory
// with no `device=` whose result meets an input or a parameter of the module.
#include "diag/Edits.h"
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"
#include "source/Strings.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL104 factory-without-device

## What it does
Flags a tensor factory (`torch.zeros`, `ones`, `empty`, `full`, `rand*`, `arange`,
`linspace`, `eye`, `tensor`, `as_tensor`) called without `device=` inside the `forward` of
an `nn.Module` (or a method `forward` calls), when the device flow sees its result meet an
input of `forward` or a parameter, buffer or submodule output of the module: in arithmetic,
`torch.cat`/`stack`/`where`, a tensor method taking another tensor (`a.mul(b)`,
`x.index_select(dim, index)`), or as the input of a submodule.

Outside `forward`, the same in a library function (or a method of a plain class) whose result
meets one of its tensor arguments: an argument annotated `Tensor`, or one the function uses as
only a tensor is used (`x.device`, `x.size(...)`, `x.unsqueeze(...)`, `torch.cumsum(x, 0)`).
Its callers decide where that argument lives.

## Why is this bad?
A factory without `device=` allocates on the CPU (unless the default device was changed).
The module works while everything is on the CPU and fails as soon as it is moved to a GPU:
`RuntimeError: Expected all tensors to be on the same device, but found at least two
devices, cuda:0 and cpu!`. Tests on a CPU machine never see it.

## Example
```python
class PositionalEncoding(nn.Module):
    def forward(self, x):
        pos = torch.arange(x.size(1))
        return x + self.embed(pos)
```

## Use instead
```python
class PositionalEncoding(nn.Module):
    def forward(self, x):
        pos = torch.arange(x.size(1), device=x.device)
        return x + self.embed(pos)
```

## Fix safety
Safe where the function has exactly one input besides `self`: the fix adds
`device=<input>.device` to the factory. Elsewhere no fix is offered: which input's device is
meant is a choice.

## When it stays silent
- `torch.zeros(n, device=x.device)`, `torch.zeros_like(x)`, `x.new_zeros(n)`: they follow `x`.
- Factories used only on the host: `torch.arange(n).tolist()`, sizes, loop bounds.
- 0-dim results such as `torch.tensor(2.0)`: PyTorch combines 0-dim CPU tensors with CUDA
  tensors.
- Python numbers: `torch.arange(n) / n`, where `n` is annotated `int` (or `Optional[int]`,
  `float`), has a number as its default, is narrowed by `isinstance(n, int)`, or is passed as a
  size or a `range()` bound; and `x.shape[i]`, `x.size(i)`, `len(x)`, `.item()`, `math.sqrt(d)`.
- Files that change the default device (`torch.set_default_device`, `with torch.device(...)`).
- Outside `forward`: arguments nothing shows to be tensors (`v * torch.ones(n)`, where `v` may
  be a number), `torch.ones(n).type_as(x)` (it takes `x`'s device), tests (functions named
  `test*`, test modules and folders), `__init__`, and DataLoader workers (`__getitem__`,
  `collate_fn`), which run on the CPU.
- A helper method whose every caller passes a tensor it has just built on the host
  (`self.pad(torch.LongTensor(ids))`): only host tensors meet there.
- A module class defined inside a test function or pytest fixture that names no device: the
  test's toy runs on the CPU.
)md";

class FactoryWithoutDevice final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"binary_operator", "call"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    bool Forward = M.inRole(N.Scope, RoleForward);
    if (Forward && M.testToyClass(N.Scope))
      return;
    // Outside forward, only code in a function (decided last: most nodes meet no factory).
    if (!Forward && M.enclosingFunction(N.Scope) < 0)
      return;
    const flow::DeviceFlow *F = &Ctx.analysis<flow::DeviceFlow>();
    if (!F->knowsWithin(N))
      return; // no operand below has a value
    const NodeText &Text = Ctx.text();
    NodeList Operands;
    // A join needs every input on one device, whatever their ranks: no 0-dim exemption there.
    bool Joined = false;
    if (is(N, "binary_operator")) {
      if (!torch::combinesTensors(Text(field(N.Node, "operator"))))
        return;
      Operands = {field(N.Node, "left"), field(N.Node, "right")};
    } else {
      const CallFacts *Facts = Ctx.call(N.Node);
      if (!Facts)
        return;
      // Decided before the arguments are read, which costs more: a join, a pairwise op, a
      // tensor method that meets another tensor, or (in forward) a submodule.
      torch::Api Kind = Facts->api().Kind;
      Joined = Kind == torch::Api::Join;
      if (Kind != torch::Api::Join && Kind != torch::Api::Pairwise && Kind != torch::Api::Where) {
        if (!Facts->Qualified.empty())
          return;
        const auto &P = Ctx.calleeAttribute(N.Node);
        bool Meets = P && (torch::methodIs(P->Name, torch::PairwiseMethod) || P->Name == "index_select");
        if (!Meets && !Forward)
          return;
      }
      if (Facts->args().HasSplat)
        return;
      const CallArgs &A = Facts->args();
      if (Kind == torch::Api::Join && !A.Positional.empty() &&
          (is(A.Positional[0], "list") || is(A.Positional[0], "tuple")))
        Operands = namedChildren(A.Positional[0]);
      else if (Kind == torch::Api::Pairwise)
        Operands.assign(A.Positional.begin(), A.Positional.end());
      else if (Kind == torch::Api::Where && A.Positional.size() == 3)
        Operands = {A.Positional[1], A.Positional[2]};
      else if (auto Method = Facts->Qualified.empty() ? pairwiseMethod(Facts->Callee, A, Text) : std::nullopt)
        Operands = std::move(*Method);
      else if (Facts->Qualified.empty() && Forward) {
        // A submodule fed the factory's result: `self.embed(torch.arange(n))`.
        const flow::Value *Mod = F->valueOf(A.Callee);
        if (!Mod || Mod->Kind != flow::ValueKind::Module || Mod->has(flow::FlagParamless) ||
            Mod->Dev.Kind != flow::DeviceKind::Configured || Mod->Dev.Name != "self")
          return;
        for (TSNode Arg : A.Positional)
          if (const flow::Value *V = F->valueOf(Arg); V && fromFactory(*V))
            report(*F, *V, Ctx);
        return;
      } else
        return;
    }
    const flow::Value *Factory = nullptr;
    TSNode Met{};
    for (TSNode O : Operands) {
      const flow::Value *V = F->valueOf(O);
      if (!V)
        continue;
      if (fromFactory(*V, Joined))
        Factory = Factory ? Factory : V;
      else if (V->has(flow::FlagInput) && V->Kind != flow::ValueKind::Scalar && V->Dev.Kind != flow::DeviceKind::Cpu &&
               ts_node_is_null(Met)) // never a Python number: it combines with a tensor anywhere
        Met = O;
    }
    if (Factory && !ts_node_is_null(Met) && (Forward || libraryCode(N, Ctx)))
      report(*F, *Factory, Ctx, Forward ? TSNode{} : Met);
  }

private:
  /// Code outside `forward` whose tensors come from callers on any device: a function or
  /// method, not a test, not a DataLoader worker.
  static bool libraryCode(const NodeRef &N, RuleContext &Ctx) {
    const SemanticModel &M = Ctx.model();
    int32_t Fn = M.enclosingFunction(N.Scope);
    if (Fn < 0 || M.inRole(N.Scope, RoleDataWorker) || Ctx.source().testModule())
      return false;
    for (int32_t S = Fn; S >= 0; S = M.scope(S).Parent)
      if (startsWith(M.scope(S).Name, "test") || (M.scope(S).Kind == ScopeKind::Class && M.testToyClass(Fn)))
        return false;
    return true;
  }

  /// `a.mul(b)`, `a.index_select(dim, index)`: the receiver and the tensor it meets.
  static std::optional<NodeList> pairwiseMethod(TSNode Callee, const CallArgs &A, const NodeText &Text) {
    auto P = attributeParts(Callee, Text);
    if (!P)
      return std::nullopt;
    if (torch::methodIs(P->Name, torch::PairwiseMethod) && !A.Positional.empty())
      return NodeList{P->Object, A.Positional[0]};
    if (P->Name == "index_select") {
      TSNode Index = A.arg("index", 1);
      if (!ts_node_is_null(Index))
        return NodeList{P->Object, Index};
    }
    return std::nullopt;
  }

  /// A tensor a factory built on the CPU: of more than one element (a 0-dim CPU tensor
  /// combines with a CUDA one elementwise), or in a join (\p Joined) of any rank but 0.
  static bool fromFactory(const flow::Value &V, bool Joined = false) {
    return V.isTensor() && V.has(flow::FlagDefaultFactory) && !V.has(flow::FlagInput) &&
           V.Dev.Kind == flow::DeviceKind::Cpu &&
           (V.R == flow::Rank::NonZero || (Joined && V.R == flow::Rank::Unknown)) && V.Factory;
  }

  /// \p Met: outside `forward`, the caller's tensor the factory's result meets.
  static void report(const flow::DeviceFlow &F, const flow::Value &V, RuleContext &Ctx, TSNode Met = {}) {
    const NodeText &Text = Ctx.text();
    TSNode Call = F.node(V.Factory);
    std::string Name(lastComponent(Ctx.model().qualifiedName(field(Call, "function"))));
    if (Name.empty())
      return;
    Diagnostic &D = Ctx.report(Call, ts_node_is_null(Met)
                                         ? "`torch." + Name +
                                               "(...)` without `device=` inside `forward` is created on the CPU, "
                                               "but meets tensors on the module's device; pass `device=`"
                                         : "`torch." + Name + "(...)` without `device=` is created on the CPU, but "
                                               "meets `" + shortText(Met, Text) +
                                               "`, which comes from the caller and may be on a GPU; pass `device=`");
    if (!ts_node_is_null(Met))
      if (const flow::Value *MV = F.valueOf(Met))
        D.Notes.push_back(F.deviceNote(Met, *MV, Text));
    // The fix names the one input of the enclosing function.
    const SemanticModel &M = Ctx.model();
    int32_t Fn = M.scopeAt(Call);
    while (Fn >= 0 && M.scope(Fn).Kind != ScopeKind::Function)
      Fn = M.scope(Fn).Parent; // the innermost function: not a lambda or a class
    if (Fn < 0)
      return;
    std::vector<std::string_view> Inputs;
    bool Plain = true;
    for (const Parameter &P : M.parameters(M.scope(Fn).Node)) {
      if (P.How == Parameter::Form::Plain && !ts_node_is_null(P.Name))
        Inputs.push_back(Text(P.Name));
      else
        Plain = false; // defaults, *args, **kwargs: more than one thing could be meant
    }
    if (!Inputs.empty() && (Inputs[0] == "self" || Inputs[0] == "cls"))
      Inputs.erase(Inputs.begin());
    if (!Plain || Inputs.size() != 1)
      return;
    // Outside forward, only where the factory meets that very argument.
    if (!ts_node_is_null(Met)) {
      TSNode Root = Ctx.model().rootName(Met);
      if (ts_node_is_null(Root) || Text(Root) != Inputs[0])
        return;
    }
    auto A = callArgs(Call, Text);
    if (!A || A->HasSplat || !ts_node_is_null(A->keyword("device")))
      return;
    std::string Arg = "device=" + std::string(Inputs[0]) + ".device";
    D.Fix = torchlint::Fix{"Pass `" + Arg + "`", Applicability::Safe, {appendArgument(*A, Text, Arg)}};
  }
};
} // namespace

std::unique_ptr<Rule> createFactoryWithoutDevice(const RuleInfo &I) {
  return std::make_unique<FactoryWithoutDevice>(I);
}

} // namespace torchlint::rules
