// TL401 data-parallel: `nn.DataParallel(...)` where DistributedDataParallel is the answer.
#include "lint/Rule.h"
#include "source/Strings.h"
#include "torch/Api.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL401 data-parallel

## What it does
Flags construction of `torch.nn.DataParallel` (also reached as
`torch.nn.parallel.DataParallel` or through an import alias).

## Why is this bad?
`DataParallel` is single-process and multi-threaded: on every step it scatters the batch,
replicates the module to every GPU and gathers the outputs on `cuda:0`, so GPU 0 holds more
memory than the others and the Python GIL serialises the work. PyTorch's documentation
recommends `DistributedDataParallel` even on a single machine; it is faster and its memory
is balanced.

## Example
```python
model = nn.DataParallel(model).cuda()
```

## Use instead
```python
# one process per GPU, started with torchrun
torch.distributed.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
model = DistributedDataParallel(model.to(local_rank), device_ids=[local_rank])
```

## When it stays silent
The rule is opt-in (`extend-select = ["TL401"]`): it is design advice, not a bug, and on
maintained code `DataParallel` is nearly always a deliberate choice (tests that wrap a model to
check unwrapping, scripts that also offer DDP). When selected, it stays silent on
`isinstance(model, nn.DataParallel)` and other uses that do not construct one (code that
unwraps a model someone else wrapped), and names that do not resolve to PyTorch's class.
)md";

class DataParallel final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> calleeNames() const override { return {"DataParallel"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts || !Facts->api().has(torch::Wrapper) || lastComponent(Facts->Qualified) != "DataParallel")
      return;
    TSNode Callee = Facts->Callee;
    Ctx.report(Callee, "`nn.DataParallel` replicates the model on every step and piles memory on GPU 0; use "
                       "`DistributedDataParallel`");
  }
};
} // namespace

std::unique_ptr<Rule> createDataParallel(const RuleInfo &I) { return std::make_unique<DataParallel>(I); }

} // namespace torchlint::rules
