// TL109 float64-on-mps: a float64 tensor or module moved to (or created on) Apple's MPS
// device, which has no float64.
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL109 float64-on-mps

## What it does
Flags `.to("mps")` (or `.to(torch.device("mps"))`, or a device variable the flow knows is
`"mps"`) of a tensor or module the device flow knows is float64, and tensor factories with
both `dtype=torch.float64` and an MPS device.

## Why is this bad?
The MPS backend has no float64. Moving a float64 tensor there raises `TypeError: Cannot
convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please
use float32 instead.` Data from NumPy is float64 by default, so this is the first thing that
fails when a script meets an Apple GPU.

## Example
```python
x = torch.from_numpy(np.random.rand(8, 3)).to("mps")
```

## Use instead
```python
x = torch.from_numpy(np.random.rand(8, 3)).to("mps", dtype=torch.float32)
```

## When it stays silent
- Moves that also convert the dtype: `.to("mps", dtype=torch.float32)`, `.float().to("mps")`.
- Devices the flow does not know are MPS (a configured `device`), and values whose dtype it
  does not know.
)md";

class Float64OnMps final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const flow::DeviceFlow *F = &Ctx.analysis<flow::DeviceFlow>();
    const flow::Value *V = F->valueOf(N.Node);
    if (!V || V->Dev.Kind != flow::DeviceKind::Mps || V->Type != flow::DType::Float64 ||
        (!V->isTensor() && V->Kind != flow::ValueKind::Module))
      return;
    // Report where the value got there: this call moved it, or this factory made it.
    if (F->node(V->DevAt).id != N.Node.id)
      return;
    const NodeText &Text = Ctx.text();
    TSNode Callee = field(N.Node, "function");
    bool Module = V->Kind == flow::ValueKind::Module;
    Diagnostic &D = Ctx.report(N.Node, std::string(Module ? "a float64 module" : "a float64 tensor") +
                                           " on `mps`, which has no float64: convert it to float32 first");
    if (is(Callee, "attribute"))
      D.Notes.push_back(F->dtypeNote(field(Callee, "object"), *V, Text));
  }
};
} // namespace

std::unique_ptr<Rule> createFloat64OnMps(const RuleInfo &I) { return std::make_unique<Float64OnMps>(I); }

} // namespace torchlint::rules
