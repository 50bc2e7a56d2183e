// TL402 ddp-device: in a one-process-per-GPU program, a placement that puts every rank on
// GPU 0, or `DistributedDataParallel(..., device_ids=[0])` with a literal index.
#include "lint/Rule.h"
#include "torch/Portable.h"
#include "torch/ProcessGroup.h"
#include "source/Strings.h"
#include "torch/Read.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL402 ddp-device

## What it does
In a file that starts a process group (`torch.distributed.init_process_group`, through any
import alias), flags a model or tensor put on the default CUDA device (`.cuda()`,
`.cuda(0)`, `.to("cuda")`, `.to("cuda:0")`, `.to(0)`, `device="cuda"`,
`torch.device("cuda")`) with no `torch.cuda.set_device(...)` before it, and flags
`DistributedDataParallel(..., device_ids=[0])` (any literal index) anywhere.

## Why is this bad?
DDP runs one process per GPU, and every process starts with GPU 0 as its current device.
`"cuda"` and `.cuda()` mean the *current* device, and `"cuda:0"` means GPU 0 whatever the
rank, so until a process calls `torch.cuda.set_device(local_rank)` all ranks allocate on
GPU 0: it runs out of memory (`torch.cuda.OutOfMemoryError: CUDA out of memory`) while the
other GPUs idle, and NCCL fails with `ncclInvalidUsage` (`Duplicate GPU detected: rank 1 and
rank 0 both on CUDA device ...`). When the module and `device_ids` disagree,
`DistributedDataParallel` raises `ValueError: DistributedDataParallel device_ids and
output_device arguments only work with single-device/multiple-device GPU modules or CPU
modules, but got device_ids [1], output_device None, and module parameters
{device(type='cuda', index=0)}`. `device_ids=[0]` pins every rank's replica to GPU 0 in the
same way.

## Example
```python
def worker(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = Net().cuda()
    model = DistributedDataParallel(model, device_ids=[0])
```

## Use instead
```python
def worker(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = Net().to(rank)
    model = DistributedDataParallel(model, device_ids=[rank])
```

## Fix safety
An unsafe fix (`--unsafe-fixes`, or the editor's quick fix) on the first finding of a file
rewrites the whole file to one device chosen at run time: the rewrite TL105 offers, described
under *Fix safety* in `torchlint rule TL105`. Each rank's placements then use its own device: from `LOCAL_RANK`, or the rank parameter of
a spawned worker (`def worker(rank, world_size)`); the `"nccl"` backend falls back to `"gloo"`
and `device_ids` is `None` where CUDA is absent. It is unsafe because
it changes where the program runs: review it with `--diff`.

## When it stays silent
- An RPC program (`torch.distributed.rpc.init_rpc`): a parameter server and its trainers place
  tensors by the RPC device maps and may share a GPU by design.
- `torch.cuda.set_device(local_rank)` (or `with torch.cuda.device(local_rank):`) runs
  before the placement in the same function or one around it. Where the file sets the device
  only in another function, placements in helpers are left alone: they may run after it. A
  function that starts the process group itself is judged on its own (a `set_device` in
  another worker has not run in it), unless it first calls the function of this file that
  chooses the device.
- The device comes from a variable: `.cuda(local_rank)`, `.to(f"cuda:{rank}")`,
  `torch.device("cuda", local_rank)`, `device_ids=[local_rank]`.
- The same function then moves the object on to a device it computes (`model.cuda()` ...
  `model.to(rank)`): it ends on the process's own GPU.
- The file does not call `init_process_group`, or sets `CUDA_VISIBLE_DEVICES` (each process
  may then see only its own GPU, which is `cuda:0`).
- Code under a condition about ranks or the mode (`if rank == 0:`, `if args.distributed:`,
  `else:` of one), under a CUDA guard, in the one place that chooses the device
  (`device = torch.device("cuda")`: the index is resolved when it is used), inside
  `map_location` (TL302), and in DataLoader worker code (TL108).
- Other literal indices (`"cuda:1"`, `.cuda(1)`) and `torch.cuda.set_device(0)`: TL106
  speaks. Where this rule speaks, TL105 and TL106 stay silent.
)md";

/// A literal device in `device_ids`: an integer, `"cuda:0"` or `torch.device("cuda", 0)`.
TSNode literalDeviceId(TSNode List, const SemanticModel &M) {
  if (!is(List, "list") && !is(List, "tuple"))
    return TSNode{};
  for (uint32_t I = 0, E = ts_node_named_child_count(List); I < E; ++I) {
    TSNode C = ts_node_named_child(List, I);
    auto D = torch::spelledDevice(C, M);
    if (D && D->type() == "cuda" && D->Index && !D->VariableIndex)
      return C;
  }
  return TSNode{};
}

class DdpDevice final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override {
    return {torch::ProcessGroup::fileWide(), torch::PortableRewrite::fileWide()};
  }
  bool finishesFile() const override { return true; }
  /// The first finding offers the rewrite of the whole file to one device.
  void finishFile(std::vector<Diagnostic> &Mine, RuleContext &Ctx) const override {
    if (!Mine.empty())
      Ctx.analysis<torch::PortableRewrite>().attachTo(Mine.front());
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    if (Facts->api().has(torch::Wrapper) && lastComponent(Facts->Qualified) == "DistributedDataParallel") {
      checkDeviceIds(N, *Facts, Ctx);
      return;
    }
    auto P = Ctx.analysis<torch::ProcessGroup>().defaultGpuPlacement(N, *Facts);
    if (!P)
      return;
    std::string Msg =
        P->IndexZero
            ? "placement on `cuda:0` in a process-group program: every rank puts this on GPU 0; use the process's "
              "own device (`torch.device(\"cuda\", local_rank)`)"
            : "placement on the current CUDA device before any `torch.cuda.set_device(...)` in a process-group "
              "program: every rank puts this on GPU 0; call `torch.cuda.set_device(local_rank)` first or use "
              "`torch.device(\"cuda\", local_rank)`";
    Diagnostic &D = Ctx.report(P->Range, Msg);
    if (!ts_node_is_null(P->Init))
      D.Notes.push_back(Note{RuleContext::range(P->Init), "the process group starts here"});
    if (!ts_node_is_null(P->SetDevice))
      D.Notes.push_back(Note{RuleContext::range(P->SetDevice), "the device is chosen only here, after the placement"});
  }

private:
  static void checkDeviceIds(const NodeRef &N, const CallFacts &Facts, RuleContext &Ctx) {
    const CallArgs &A = Facts.args();
    TSNode Ids = A.keyword("device_ids");
    if (ts_node_is_null(Ids) && !A.HasSplat && A.Positional.size() > 1)
      Ids = A.Positional[1];
    TSNode Lit = literalDeviceId(Ids, Ctx.model());
    if (ts_node_is_null(Lit) || Ctx.analysis<torch::ProcessGroup>().restrictsVisibleDevices())
      return;
    Ctx.report(Lit, "`device_ids` with a literal index: every rank's replica is pinned to that GPU; pass the "
                    "process's own device (`device_ids=[local_rank]`)");
  }
};
} // namespace

std::unique_ptr<Rule> createDdpDevice(const RuleInfo &I) { return std::make_unique<DdpDevice>(I); }

} // namespace torchlint::rules
