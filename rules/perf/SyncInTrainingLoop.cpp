// TL203 sync-in-training-loop: `.item()`, `.cpu()`, `.numpy()`, `.tolist()` or `float(t)` on
// a device tensor in every step of a loop that trains (calls `backward()` or `step()`).
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL203 sync-in-training-loop

## What it does
Flags `t.item()`, `t.cpu()`, `t.numpy()`, `t.tolist()` and `float(t)` where the device flow
knows `t` is on an accelerator (moved there, or computed by a model moved there), run on every
iteration of a loop whose body calls `backward()` or `step()`.

## Why is this bad?
Reading a GPU value on the host waits for every kernel queued before it: the CPU cannot run
ahead and queue the next step, and the GPU idles while Python catches up. Once per step in a
training loop this can cost a large share of throughput. Accumulate on the device
(`total += loss.detach()`) and read once per epoch or every N steps.

## Example
```python
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
    running += loss.item()
```

## Use instead
```python
running = torch.zeros((), device=device)
for x, y in loader:
    loss = criterion(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
    running += loss.detach()
print(running.item())
```

## When it stays silent
- Reads under an `if` inside the loop (`if step % 100 == 0: print(loss.item())`): not every
  step.
- Tensors on the CPU or on a device the flow does not know, and loops that do not train.
- This rule is opt-in: logging every step is sometimes what you want.
)md";

class SyncInTrainingLoop final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }
  // `float(t)` and the methods that read a tensor on the host.
  std::vector<std::string_view> calleeNames() const override {
    std::vector<std::string_view> Names = torch::methodsWith(torch::HostRead);
    Names.push_back("float");
    return Names;
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    const NodeText &Text = Ctx.text();
    TSNode Tensor{};
    std::string What;
    if (is(Facts->Callee, "identifier") && Text(Facts->Callee) == "float" &&
        Facts->args().Positional.size() == 1 && Facts->args().Keywords.empty()) {
      Tensor = Facts->args().Positional[0];
      What = "float(...)";
    } else if (Facts->Qualified.empty() && Facts->args().Positional.empty()) {
      for (std::string_view M : torch::methodsWith(torch::HostRead)) {
        TSNode R = Facts->receiver(M);
        if (!ts_node_is_null(R)) {
          Tensor = R;
          What = "." + std::string(M) + "()";
        }
      }
    }
    if (ts_node_is_null(Tensor))
      return;
    const flow::DeviceFlow *F = &Ctx.analysis<flow::DeviceFlow>();
    if (!F->inTrainingLoop(N.Node))
      return;
    const flow::Value *V = F->valueOf(Tensor);
    if (!V || !V->isTensor() || !V->Dev.known() || V->Dev.Kind == flow::DeviceKind::Cpu ||
        V->Dev.Kind == flow::DeviceKind::Meta)
      return;
    Diagnostic &D = Ctx.report(N.Node, "`" + What + "` on `" + shortText(Tensor, Text) +
                                           "` waits for the device on every training step; accumulate on the "
                                           "device and read it less often");
    D.Notes.push_back(F->deviceNote(Tensor, *V, Text));
  }
};
} // namespace

std::unique_ptr<Rule> createSyncInTrainingLoop(const RuleInfo &I) { return std::make_unique<SyncInTrainingLoop>(I); }

} // namespace torchlint::rules
