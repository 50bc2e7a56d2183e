// TL202 non-blocking-without-pin-memory: `.to(device, non_blocking=True)` on a batch from a
// DataLoader built without `pin_memory=True`.
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL202 non-blocking-without-pin-memory

## What it does
Flags `.to(device, non_blocking=True)` and `.cuda(non_blocking=True)` on a tensor that the
device flow traces to a DataLoader of this file built without `pin_memory=True` (and not
pinned since with `.pin_memory()`).

## Why is this bad?
A host-to-device copy can only overlap with compute when the source is in pinned (page-
locked) memory. From pageable memory CUDA first copies into a pinned staging buffer, so
`non_blocking=True` buys nothing and the step waits for the copy anyway; the flag promises a
speed-up the code does not get.

## Example
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4)
for x, y in loader:
    x = x.to(device, non_blocking=True)
```

## Use instead
```python
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
for x, y in loader:
    x = x.to(device, non_blocking=True)
```

## When it stays silent
- Loaders with `pin_memory=True`, or whose `pin_memory` is a variable, or with a custom
  `collate_fn` (which may pin), and tensors pinned with `.pin_memory()`.
- Loaders the flow does not see built (an argument, another file).
)md";

class NonBlockingWithoutPinMemory final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }
  std::vector<std::string_view> calleeNames() const override { return {"to", "cuda"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts || !Facts->Qualified.empty())
      return;
    TSNode NB = Facts->keyword("non_blocking");
    if (!is(NB, "true"))
      return;
    TSNode Recv = Facts->placement().Receiver; // `.to(...)`, `.cuda(...)`
    if (ts_node_is_null(Recv))
      return;
    const flow::DeviceFlow *F = &Ctx.analysis<flow::DeviceFlow>();
    const flow::Value *V = F->valueOf(Recv);
    if (!V || (!V->isTensor() && V->Kind != flow::ValueKind::Batch) || !V->Loader ||
        V->has(flow::FlagPinned) || V->Dev.Kind != flow::DeviceKind::Cpu || V->DevHow != flow::Origin::DataLoader)
      return;
    Diagnostic &D = Ctx.report(NB, "`non_blocking=True` has no effect: `" + shortText(Recv, Ctx.text()) +
                                       "` comes from a DataLoader without `pin_memory=True`, so the copy "
                                       "cannot overlap with compute");
    D.Notes.push_back(
        {RuleContext::range(F->node(V->Loader)), "the DataLoader is built here without `pin_memory=True`"});
  }
};
} // namespace

std::unique_ptr<Rule> createNonBlockingWithoutPinMemory(const RuleInfo &I) {
  return std::make_unique<NonBlockingWithoutPinMemory>(I);
}

} // namespace torchlint::rules
