// TL201 to-in-forward: a device move (`.to(device)`, `.to(x.device)`, `.cuda()`) inside an
// nn.Module's forward, which runs on every step.
#include "diag/Edits.h"
#include "lint/Rule.h"
#include "flow/DeviceFlow.h"
#include "torch/Read.h"

#include <algorithm>

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL201 to-in-forward

## What it does
Flags a device move inside the `forward` of an `nn.Module` subclass (or a method it calls
through `self`, or a function nested in them) of a value that could have lived on the device
once:
- a tensor built there from constants (a shape factory without `device=` such as
  `torch.arange(n)`, or `torch.tensor([...])` of data spelled out as numbers) and then moved
  with `.to(device)` or `.cuda()`;
- a plain tensor attribute (`self.table = torch.zeros(4)` in `__init__`, neither a parameter
  nor a buffer) moved on every call.

The message says which, with a note at where the value was built.

## Why is this bad?
`forward` runs on every step, so the move runs on every step too. A constant built on the CPU
and moved (`torch.arange(n).to(x.device)`) is allocated and copied host-to-device on every
call, synchronously; a plain tensor attribute does not follow `model.to(device)`, so it is
copied again each time. Constants belong in registered buffers, which `model.to(device)`
moves once, or are created on the right device (`torch.arange(n, device=x.device)`).

## Example
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.tensor([0.5, 2.0])

    def forward(self, x):
        pos = torch.arange(x.shape[1]).to(x.device)
        return self.body(x + pos) * self.scale.to(x.device)
```

## Use instead
```python
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor([0.5, 2.0]))

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        return self.body(x + pos) * self.scale
```

## When it stays silent
- Moves of `forward`'s inputs and of values computed from them (`x.to(self.device)`,
  `mask.to(x.device)`): moving inputs is the module's contract, and the copy happens once per
  step wherever it is written. Values the analysis cannot trace stay silent too.
- Moves whose result is cached: stored back on the module (`self.anchors = [a.to(device) for
  a in self.anchors]`), inside an `lru_cache`d or `cache`d function, or under a check of the
  device (`if self.grid.device != x.device:`, `if self.cache is None:` on a device), or
  returned by a method whose every call stores its result on the module
  (`self.rel_indices = self.get_rel_indices(n)` when the size changes).
- Data computed on each call (a NumPy mask, indices read from the input): it must cross to
  the device anyway.
- Dtype-only conversions: `.to(torch.float16)`, `.to(x.dtype)`, `.to(dtype=...)`, `.half()`,
  `.float()`.
- Moves to the CPU: `.cpu()` and `.to("cpu")` (`pack_padded_sequence` needs its lengths
  on the CPU).
- `.to(x)` where the argument is not known to be a device (another tensor, an unknown
  name), and `.to(device=None)`.
- Module moves: `self.to(...)`, and a move whose result is discarded
  (`self.encoder.to(device)`): modules move in place and only the first call copies.
- Code outside `forward` and the methods it calls: `__init__`, training loops, helpers of
  classes that are not modules.
)md";

/// Whether the argument of `.to(...)` names a device other than the CPU.
bool movesToDevice(TSNode Dev, const SemanticModel &M) {
  if (ts_node_is_null(Dev) || is(Dev, "none"))
    return false;
  if (auto D = torch::spelledDevice(Dev, M))
    return D->type() != "cpu";
  if (is(Dev, "identifier") || is(Dev, "attribute"))
    return torch::namesDevice(M.text()(Dev)); // `device`, `dev`, `x.device`
  // torch.device(some_variable)
  return is(Dev, "call") && M.refersTo(field(Dev, "function"), "torch.device");
}

/// Whether the moved value is stored on the module (`self.anchors = [a.to(device) for a in
/// self.anchors]`): the next call finds it on the device, so only the first call copies. So is
/// what a method returns when every call of it stores its result on the module (timm's ConViT:
/// `self.rel_indices = self.get_rel_indices(N)` when the size changes).
bool cachedOnModule(TSNode Call, int32_t Scope, const SemanticModel &M, int Depth = 0) {
  const NodeText &Text = M.text();
  TSNode Cur = Call;
  for (int Hops = 0; Hops < 6; ++Hops) {
    TSNode P = ts_node_parent(Cur);
    if (ts_node_is_null(P))
      return false;
    std::string_view K = kind(P);
    if (K == "assignment") {
      if (!ts_node_eq(field(P, "right"), Cur))
        return false;
      auto L = attributeParts(field(P, "left"), Text);
      return L && is(L->Object, "identifier") && Text(L->Object) == "self";
    }
    if (K == "return_statement") {
      int32_t Fn = M.enclosingFunction(Scope);
      if (Depth > 0 || Fn < 0 || M.scope(Fn).Name == "forward")
        return false;
      std::vector<TSNode> Calls = M.selfCallsTo(Fn);
      return !Calls.empty() && std::all_of(Calls.begin(), Calls.end(), [&](TSNode C) {
        return cachedOnModule(C, M.scopeAt(C), M, Depth + 1);
      });
    }
    // A branch of a conditional stores it too (`self.m = self.m.to(d) if self.m is not None else
    // None`, CLIP's attention mask); the condition does not.
    if (K == "conditional_expression" && ts_node_eq(ts_node_named_child(P, 1), Cur))
      return false;
    if (K != "parenthesized_expression" && K != "list_comprehension" && K != "list" && K != "tuple" &&
        K != "generator_expression" && K != "conditional_expression")
      return false;
    Cur = P;
  }
  return false;
}

/// Whether the factory call \p Made builds the same tensor on every call: a shape factory
/// (`torch.arange(n)`, `torch.ones(2)`), or a data factory (`torch.tensor`, `from_numpy`) of
/// data spelled out as constants. Data computed on each call (a NumPy mask, indices read
/// from the input) must cross to the device anyway.
bool builtFromConstants(TSNode Made, const SemanticModel &M) {
  if (!is(Made, "call"))
    return false;
  torch::ApiFacts Api = torch::classify(M.qualifiedName(field(Made, "function")));
  if (Api.Kind == torch::Api::Factory && !Api.has(torch::DataDevice))
    return true;
  TSNode Args = field(Made, "arguments");
  return (Api.Kind == torch::Api::Factory || Api.Kind == torch::Api::FromNumpy) &&
         ts_node_named_child_count(Args) > 0 && torch::constantData(ts_node_named_child(Args, 0));
}

class ToInForward final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> calleeNames() const override { return {"to", "cuda"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    // Under a check of the device (`if self.w.device != x.device:`) the move is cached.
    if (!M.inRole(N.Scope, RoleForward) || (N.Flags & FlagCudaGuarded))
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    const Placement &P = Facts->placement();
    bool Cuda = P.How == Placement::Form::Cuda;
    TSNode Receiver = P.Receiver;
    if (ts_node_is_null(Receiver))
      return;
    // Modules move in place: `self.to(...)`, or a move whose result nobody uses.
    if ((is(Receiver, "identifier") && M.text()(Receiver) == "self") ||
        is(ts_node_parent(N.Node), "expression_statement"))
      return;
    if (cachedOnModule(N.Node, N.Scope, M) || (!Cuda && !movesToDevice(P.Device, M)))
      return;
    // Only a value that could have lived on the device once: `forward`'s inputs (and what is
    // computed from them) must be moved somewhere, and the copy happens once per step
    // wherever it is written.
    const flow::DeviceFlow &F = Ctx.analysis<flow::DeviceFlow>();
    const flow::Value *V = F.valueOf(Receiver);
    if (!V || !V->isTensor() || V->has(flow::FlagInput))
      return;
    if (const flow::Value *To = ts_node_is_null(P.Device) ? nullptr : F.valueOf(P.Device);
        To && To->Dev.Kind == flow::DeviceKind::Cpu)
      return; // a device-named variable that the flow knows is the CPU
    // A function that caches its result computes the move once per device. (Asked last: the
    // decorators are found through a parent look-up, which walks down from the root.)
    if (M.decoratedWith(N.Scope, "lru_cache") || M.decoratedWith(N.Scope, "cache"))
      return;
    std::string What = shortText(Receiver, M.text());
    std::string Move = Cuda ? "`.cuda()`" : "`.to(...)`";
    if (V->has(flow::FlagPlainAttribute)) {
      Diagnostic &D = Ctx.report(methodCallRange(N.Node),
                                 "`" + What + "` is a plain tensor attribute, so " + Move +
                                     " copies it on every call of `forward`; register it with "
                                     "`self.register_buffer(..., persistent=False)` so that `model.to(device)` moves it "
                                     "once (and checkpoints keep their keys)");
      D.Notes.push_back(F.deviceNote(Receiver, *V, M.text()));
      return;
    }
    if (V->Dev.Kind != flow::DeviceKind::Cpu ||
        (V->DevHow != flow::Origin::Factory && V->DevHow != flow::Origin::Numpy) || !builtFromConstants(F.node(V->DevAt), M))
      return;
    Diagnostic &D = Ctx.report(methodCallRange(N.Node),
                               "`" + What + "` is built on the CPU and then copied by " + Move +
                                   " on every call of `forward`; build it on the device (`device=`), or once in "
                                   "`__init__` as a registered buffer");
    D.Notes.push_back(F.deviceNote(Receiver, *V, M.text()));
  }
};
} // namespace

std::unique_ptr<Rule> createToInForward(const RuleInfo &I) { return std::make_unique<ToInForward>(I); }

} // namespace torchlint::rules
