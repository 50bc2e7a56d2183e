// TL106 hardcoded-device-index: a literal GPU index (`"cuda:1"`, `.cuda(0)`, `set_device(1)`)
// outside the one place that chooses the device.
#include "lint/Rule.h"
#include "torch/DeviceChoice.h"
#include "torch/Portable.h"
#include "torch/ProcessGroup.h"
#include "source/Strings.h"
#include "torch/Read.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL106 hardcoded-device-index

## What it does
Flags a literal CUDA device index, 0 included, where PyTorch reads a device: `"cuda:1"` or
`torch.device("cuda:0")` passed to `.to(...)`, `.cuda(...)` or a `device=` argument of a
PyTorch function, `torch.device("cuda", 1)`, `.cuda(1)`, `.cuda(device=0)`, `.to(0)`,
`torch.cuda.set_device(1)` and `torch.cuda.device(1)`; also `.cuda(True)`, written for the
0.3-era `.cuda(async=True)`: a bool is an integer, so it asks for `cuda:1`.

## Why is this bad?
An index means "this GPU of this machine", which is rarely what the program means. With one
process per GPU (DDP, `torchrun`), every rank that says `cuda:0` lands on GPU 0: its memory
runs out while the other GPUs idle. Under `CUDA_VISIBLE_DEVICES` the numbering changes, and on
a machine with fewer GPUs a higher index fails with
`RuntimeError: CUDA error: invalid device ordinal`.

## Example
```python
model = model.to("cuda:0")
torch.cuda.set_device(1)
```

## Use instead
```python
local_rank = int(os.environ.get("LOCAL_RANK", 0))
device = torch.device("cuda", local_rank)
torch.cuda.set_device(device)
model = model.to(device)
```

## Fix safety
An unsafe fix (`--unsafe-fixes`, or the editor's quick fix) on the first finding of a file
rewrites the whole file to one device chosen at run time: the rewrite TL105 offers, described
under *Fix safety* in `torchlint rule TL105`. A literal index becomes the device in scope (in a program that starts a process group, each
process's own GPU: from `LOCAL_RANK`, or the rank parameter of a spawned worker). It is unsafe because
it changes where the program runs: review it with `--diff`.

## When it stays silent
- The one place that chooses the device: the value assigned to a device-named variable
  (`device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")`), a device-named
  parameter's default, a function whose name says it picks the device.
- Code guarded on CUDA or the GPUs: inside `if torch.cuda.device_count() > 1:` or another
  condition about CUDA, after an early exit or `assert` on one, in a test skipped without CUDA,
  in a function or class whose name is about CUDA or the GPU (`test_multi_gpu`,
  `TestMultiGpu`). There the author is choosing devices deliberately: multi-GPU code and
  tests address `cuda:1` on purpose.
- Inside `map_location` (TL302 speaks), and inside `Dataset.__getitem__`, `collate_fn` or
  `worker_init_fn` (TL108 speaks).
- `torch.device("cuda", local_rank)` and other indices that come from a variable; a literal
  device that is only compared or inspected (`x.device == torch.device("cuda:0")`); queries
  such as `torch.cuda.get_device_name(0)`; `device_ids=[0]` (TL402's).
- Index 0 in a program of one process that chooses no device (no CPU fallback, no option, no
  `device` parameter): `cuda:0` is the GPU it runs on anyway (DataParallel's inputs go there on
  purpose). Several processes (a process group, `LOCAL_RANK`, `spawn`) or a device choice make
  it a bug, and the message says which.
- In a file that starts a process group, index 0 (`"cuda:0"`, `.cuda(0)`, `.to(0)`) with no
  `torch.cuda.set_device(...)` before it: TL402 speaks (every rank lands on GPU 0).
)md";

/// What a literal index does in this program: index 0 lands every process on GPU 0 in a
/// program of several processes, and bypasses the device the program chooses in one that chooses
/// it; in a program of one process that chooses nothing, `cuda:0` is the GPU it runs on anyway
/// (no message). Another index fails where fewer GPUs are visible.
std::optional<std::string> message(long Index, const NodeRef &N, RuleContext &Ctx) {
  std::string Dev = "`cuda:" + std::to_string(Index) + "`";
  if (Index != 0)
    return "hardcoded device index " + Dev + ": it fails with `invalid device ordinal` where fewer GPUs are "
           "visible; use the device chosen once for the program (e.g. from `LOCAL_RANK`)";
  if (Ctx.analysis<torch::ProcessGroup>().severalProcesses())
    return "hardcoded device index " + Dev + ": with one process per GPU every process lands on GPU 0; use the "
           "device chosen once for the program (e.g. from `LOCAL_RANK`)";
  if (torch::DeviceEvidence E = Ctx.analysis<torch::DeviceChoice>().around(N.Scope))
    return "hardcoded device index " + Dev + " bypasses the device this program chooses (" + E.describe() +
           "), so this line fails where that is the CPU; use the chosen device";
  return std::nullopt;
}

class HardcodedDeviceIndex final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<FileWide> fileWideReads() const override {
    return {torch::ProcessGroup::fileWide(), torch::DeviceChoice::fileWide(), torch::PortableRewrite::fileWide()};
  }
  bool finishesFile() const override { return true; }
  /// The first finding offers the rewrite of the whole file to one device.
  void finishFile(std::vector<Diagnostic> &Mine, RuleContext &Ctx) const override {
    if (!Mine.empty())
      Ctx.analysis<torch::PortableRewrite>().attachTo(Mine.front());
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (N.Flags & (FlagCudaGuarded | FlagDeviceChoice))
      return;
    const SemanticModel &M = Ctx.model();
    if (M.inRole(N.Scope, RoleDataWorker))
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    if (Ctx.analysis<torch::ProcessGroup>().defaultGpuPlacement(N, *Facts))
      return; // TL402 speaks: every rank lands on GPU 0

    torch::Api Kind = Facts->api().Kind;
    if (Kind == torch::Api::Device) {
      auto D = torch::spelledDevice(N.Node, M);
      if (!D || D->type() != "cuda" || !D->Index || torch::inMapLocation(N, M) ||
          torch::deviceOnlyInspected(N, M))
        return;
      if (auto Msg = message(*D->Index, N, Ctx))
        Ctx.report(N.Node, std::move(*Msg));
      return;
    }
    // The device a placement names, or the one `set_device` and `torch.cuda.device` choose.
    TSNode Dev = Kind == torch::Api::SetDevice || Kind == torch::Api::CudaDevice
                     ? Facts->args().argUnlessSplat("device", 0)
                     : Facts->placement().Device;
    if (ts_node_is_null(Dev))
      return;
    // `.cuda(True)`, meant as the 0.3-era `.cuda(async=True)`: a bool is an int, so the device
    // is `cuda:1`.
    if (is(Dev, "true") && Facts->placement().How == Placement::Form::Cuda) {
      Ctx.report(Dev, "`.cuda(True)` passes `True` as the device index, which is `cuda:1`: it fails with "
                      "`invalid device ordinal` on a machine with one GPU; for an asynchronous copy pass "
                      "`non_blocking=True`");
      return;
    }
    // `torch.device("cuda", 1)` as the argument is reported on its own.
    auto D = torch::spelledDevice(Dev, M);
    if (!D || D->torchDevice() || D->type() != "cuda" || !D->Index || torch::inMapLocation(N, M))
      return;
    if (auto Msg = message(*D->Index, N, Ctx))
      Ctx.report(Dev, std::move(*Msg));
  }
};
} // namespace

std::unique_ptr<Rule> createHardcodedDeviceIndex(const RuleInfo &I) {
  return std::make_unique<HardcodedDeviceIndex>(I);
}

} // namespace torchlint::rules
