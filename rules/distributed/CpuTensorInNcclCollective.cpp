// TL403 cpu-tensor-in-nccl-collective: a CPU tensor handed to a collective of a program whose
// process group is NCCL's, which moves CUDA tensors only.
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"
#include "source/Strings.h"
#include "torch/ProcessGroup.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL403 cpu-tensor-in-nccl-collective

## What it does
In a program whose process group is NCCL's (`dist.init_process_group("nccl")`), flags a tensor
that is on the CPU, as far as the code shows, passed to a collective or point-to-point call of
`torch.distributed`: `all_reduce`, `broadcast`, `reduce`, `all_gather` (its input),
`all_gather_into_tensor`, `reduce_scatter`, `reduce_scatter_tensor`, `all_to_all_single`,
`gather`, `scatter`, `send`, `recv`, `isend`, `irecv`.

## Why is this bad?
NCCL communicates between GPUs and only accepts CUDA tensors. A CPU tensor fails at run time,
on every rank, often only at the end of the first epoch where a metric is averaged:
`RuntimeError: No backend type associated with device type cpu` (PyTorch 2.x), or
`RuntimeError: Tensors must be CUDA and dense` (1.x). The usual culprit is a statistic wrapped
in a fresh tensor, `torch.tensor([loss])`, which is created on the CPU.

## Example
```python
dist.init_process_group("nccl")
...
total = torch.tensor([correct, count])
dist.all_reduce(total)
```

## Use instead
```python
total = torch.tensor([correct, count], device=device)
dist.all_reduce(total)
```

## When it stays silent
- The process group's backend is not the literal `"nccl"`: Gloo (which takes CPU tensors), a
  variable, `"nccl" if torch.cuda.is_available() else "gloo"`, or a program that starts no
  process group in this file.
- The tensor's device is not known to be the CPU: a function's argument, a tensor built with
  `device=`, moved with `.to(device)`/`.cuda()`, or of unknown origin.
- The call sits under a condition about CUDA or the backend.
- Calls of other libraries' `all_reduce` (Lightning's `self.all_reduce`, Accelerate's `gather`).
)md";

class CpuTensorInNcclCollective final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> calleeNames() const override {
    return torch::lastNamesOf(torch::Api::Collective);
  }
  std::vector<FileWide> fileWideReads() const override {
    return {flow::DeviceFlow::fileWide(), torch::ProcessGroup::fileWide()};
  }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (N.Flags & FlagCudaGuarded)
      return;
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts || Facts->api().Kind != torch::Api::Collective || !Ctx.analysis<torch::ProcessGroup>().ncclOnly())
      return;
    const CallArgs &A = Facts->args();
    if (A.HasSplat)
      return;
    const flow::DeviceFlow &F = Ctx.analysis<flow::DeviceFlow>();
    for (size_t I : {size_t(0), size_t(1)}) {
      if (!Facts->api().has(I == 0 ? torch::TensorArg0 : torch::TensorArg1) || I >= A.Positional.size())
        continue;
      TSNode Arg = A.Positional[I];
      const flow::Value *V = F.valueOf(Arg);
      if (!V || !V->isTensor() || V->Dev.Kind != flow::DeviceKind::Cpu)
        continue;
      std::string Name(lastComponent(Facts->Qualified));
      Diagnostic &D = Ctx.report(Arg, "`" + shortText(Arg, Ctx.text()) + "` is on the CPU, but `" + Name +
                                          "` of an NCCL process group takes CUDA tensors only; create it on "
                                          "the process's device");
      D.Notes.push_back(F.deviceNote(Arg, *V, Ctx.text()));
      D.Notes.push_back(Note{RuleContext::range(Ctx.analysis<torch::ProcessGroup>().init()),
                             "the NCCL process group starts here"});
      return;
    }
  }
};
} // namespace

std::unique_ptr<Rule> createCpuTensorInNcclCollective(const RuleInfo &I) {
  return std::make_unique<CpuTensorInNcclCollective>(I);
}

} // namespace torchlint::rules
