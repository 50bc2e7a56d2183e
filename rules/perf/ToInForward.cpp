// TL201 to-in-forward: a device move (`.to(device)`, `.to(x.device)`, `.cuda()`) inside an
// nn.Module's forward, which runs on every step.
#include "diag/Edits.h"
#include "lint/Rule.h"
#include "torch/Read.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL201 to-in-forward

## What it does
Flags a device move inside the `forward` of an `nn.Module` subclass (or a method it calls
through `self`, or a function nested in them): `.to(device)` where the device is a
device-named variable or attribute (`device`, `self.device`, `x.device`), a device string, a
`torch.device(...)` or an index; `.to(device=...)`; and `.cuda()`.

## Why is this bad?
`forward` runs on every step, so the move runs on every step too. A tensor that arrives on
the CPU is copied to the GPU each time, synchronously unless it is pinned, and the GPU waits
for it; a constant built on the CPU and moved (`torch.arange(n).to(x.device)`) is allocated
and copied on every call. Moving the batch before calling the model lets the copy overlap
with compute (`pin_memory=True`, `non_blocking=True`), and constants belong in registered
buffers, which `model.to(device)` moves once, or are created on the right device
(`torch.arange(n, device=x.device)`).

## Example
```python
class Net(nn.Module):
    def forward(self, x):
        x = x.to(self.device)
        pos = torch.arange(x.shape[1]).to(x.device)
        return self.body(x + pos)
```

## Use instead
```python
class Net(nn.Module):
    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        return self.body(x + pos)

for x, y in loader:
    x = x.to(device, non_blocking=True)
    out = model(x)
```

## When it stays silent
- Dtype-only conversions: `.to(torch.float16)`, `.to(x.dtype)`, `.to(dtype=...)`, `.half()`,
  `.float()`.
- Moves to the CPU: `.cpu()` and `.to("cpu")` (`pack_padded_sequence` needs its lengths
  on the CPU).
- `.to(x)` where the argument is not known to be a device (another tensor, an unknown
  name), and `.to(device=None)`.
- Module moves: `self.to(...)`, and a move whose result is discarded
  (`self.encoder.to(device)`): modules move in place and only the first call copies.
- A move whose result is stored back on the module (`self.anchors = [a.to(device) for a in
  self.anchors]`): it is cached, so only the first call copies.
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
/// self.anchors]`): the next call finds it on the device, so only the first call copies.
bool cachedOnModule(TSNode Call, const NodeText &Text) {
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
    if (K != "parenthesized_expression" && K != "list_comprehension" && K != "list" && K != "tuple" &&
        K != "generator_expression")
      return false;
    Cur = P;
  }
  return false;
}

class ToInForward final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> calleeNames() const override { return {"to", "cuda"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    if (!M.inRole(N.Scope, RoleForward))
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    Placement P = Facts->placement();
    bool Cuda = P.How == Placement::Form::Cuda;
    TSNode Receiver = P.Receiver;
    if (ts_node_is_null(Receiver))
      return;
    // Modules move in place: `self.to(...)`, or a move whose result nobody uses.
    if ((is(Receiver, "identifier") && M.text()(Receiver) == "self") ||
        is(ts_node_parent(N.Node), "expression_statement"))
      return;
    if (cachedOnModule(N.Node, M.text()))
      return;
    if (!Cuda && !movesToDevice(P.Device, M))
      return;
    Ctx.report(methodCallRange(N.Node),
               std::string(Cuda ? "`.cuda()`" : "`.to(...)` with a device") +
                   " inside `forward` copies on every step; move inputs before calling the model, and keep "
                   "constants in registered buffers or create them on the right device");
  }
};
} // namespace

std::unique_ptr<Rule> createToInForward(const RuleInfo &I) { return std::make_unique<ToInForward>(I); }

} // namespace torchlint::rules
