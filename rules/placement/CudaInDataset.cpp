// TL108 cuda-in-dataset: CUDA work in code that DataLoader workers run (`__getitem__`,
// `__iter__`, `collate_fn`, `worker_init_fn` and the helpers they call).
#include "diag/Edits.h"
#include "lint/Rule.h"
#include "torch/Api.h"
#include "source/Strings.h"
#include "torch/Read.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL108 cuda-in-dataset

## What it does
Flags CUDA work inside code that `DataLoader` worker processes run: a `Dataset`'s
`__getitem__`/`__getitems__`, an `IterableDataset`'s `__iter__`/`__next__`, a function passed
as `collate_fn` or `worker_init_fn`, the methods these call through `self`, and functions
nested in them. The CUDA work flagged: `.cuda(...)`, `.to(...)` with a literal CUDA device
(`"cuda"`, `"cuda:0"`, `torch.device("cuda")`, an integer index),
`torch.cuda.set_device(...)`, and PyTorch calls with a literal CUDA `device=`
(`torch.tensor(x, device="cuda")`), and `torch.load` with a literal CUDA `map_location`.

## Why is this bad?
With `num_workers > 0` these functions run in worker processes, which Linux forks from the
main process. CUDA cannot be re-initialised in a forked process: once the main process has
touched CUDA, the first CUDA call in a worker fails with
`RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with
multiprocessing, you must use the 'spawn' start method`. Even with `spawn`, every worker
creates its own CUDA context (hundreds of MB of GPU memory each) and the copies cannot
overlap with compute. Workers should return CPU tensors; the training loop moves the batch
(with `pin_memory=True` and `non_blocking=True` the copy is asynchronous).

## Example
```python
class Images(Dataset):
    def __getitem__(self, i):
        return self.images[i].cuda(), self.labels[i]
```

## Use instead
```python
class Images(Dataset):
    def __getitem__(self, i):
        return self.images[i], self.labels[i]

loader = DataLoader(Images(), batch_size=64, num_workers=4, pin_memory=True)
for images, labels in loader:
    images = images.to(device, non_blocking=True)
```

## When it stays silent
- Outside worker code: `Dataset.__init__`, the training loop, any class that does not derive
  from a PyTorch `Dataset`.
- Moves to a device the code does not spell out (`.to(self.device)`, `.to(device)`) and moves
  to the CPU (`.to("cpu")`): the device may well be the CPU.
- CUDA calls that do not touch the device: creating a `torch.device("cuda")`, and seeding
  (`torch.cuda.manual_seed(seed)` in a `worker_init_fn` is lazy and safe).
- A file whose DataLoaders all load in the main process: each leaves `num_workers` at its
  default (0) or passes 0, so nothing runs in a worker. A file without a DataLoader, or with a
  `num_workers` the code computes (`args.workers`), may start workers: it is reported.
- The rule does not follow the start method: a program that sets `multiprocessing_context="spawn"`
  on purpose still hears about it.
)md";

class CudaInDataset final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override {
    // Whether any DataLoader of the file may start workers.
    static constexpr std::string_view Words[] = {"DataLoader"};
    return {FileWide{Words, {}}};
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    if (!M.inRole(N.Scope, RoleDataWorker))
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    const Placement &P = Facts->placement();
    if (P.How == Placement::Form::Cuda) {
      report(Ctx, methodCallRange(N.Node), "`.cuda()`");
      return;
    }
    torch::Api Kind = Facts->api().Kind;
    if (Kind == torch::Api::SetDevice) {
      report(Ctx, RuleContext::range(N.Node), "`torch.cuda.set_device`");
      return;
    }
    if (Kind == torch::Api::Load) {
      TSNode Where = Facts->args().argUnlessSplat("map_location", 1);
      if (ts_node_is_null(Where) || is(Where, "integer"))
        return;
      if (auto D = torch::spelledDevice(Where, M); D && D->type() == "cuda")
        report(Ctx, RuleContext::range(Where), "a checkpoint loaded onto CUDA");
      return;
    }
    if (ts_node_is_null(P.Device))
      return;
    auto D = torch::spelledDevice(P.Device, M);
    if (!D || D->type() != "cuda")
      return;
    if (P.How == Placement::Form::To)
      report(Ctx, methodCallRange(N.Node), "a move to CUDA");
    else
      report(Ctx, RuleContext::range(P.Device), "a tensor created on CUDA");
  }

private:
  /// Whether no DataLoader of the file can start workers: the file builds DataLoaders, and each
  /// leaves `num_workers` at its default or passes a literal 0. (A file without one, or with a
  /// `num_workers` the code computes, may run its workers: the loaders are elsewhere.)
  static bool noWorkers(RuleContext &Ctx) {
    const SemanticModel &M = Ctx.model();
    const NodeText &T = Ctx.text();
    bool Any = false;
    for (TSNode Name : nodesSpelled(Ctx.file().root(), T, "DataLoader", "identifier")) {
      TSNode Call = ts_node_parent(Name);
      if (is(Call, "attribute"))
        Call = ts_node_parent(Call);
      if (!is(Call, "call") || torch::classify(M.qualifiedName(field(Call, "function"))).Kind != torch::Api::DataLoader)
        continue;
      auto A = callArgs(Call, T);
      if (!A || A->HasSplat)
        return false;
      TSNode Workers = A->arg("num_workers", 5);
      if (!ts_node_is_null(Workers) && intLiteral(Workers, T).value_or(1) != 0)
        return false;
      Any = true;
    }
    return Any;
  }

  static void report(RuleContext &Ctx, TextRange At, std::string_view What) {
    if (noWorkers(Ctx))
      return; // nothing runs in a worker: every DataLoader loads in the main process
    Ctx.report(At, std::string(What) + " in code that runs in `DataLoader` workers: a forked worker cannot "
                                       "re-initialise CUDA (`Cannot re-initialize CUDA in forked subprocess`); "
                                       "return CPU tensors and move the batch in the training loop");
  }
};
} // namespace

std::unique_ptr<Rule> createCudaInDataset(const RuleInfo &I) { return std::make_unique<CudaInDataset>(I); }

} // namespace torchlint::rules
