// TL107 invalid-device-string: a device string `torch.device` rejects ("CPU", "gpu",
// "cuda: 0"), in the places PyTorch reads a device.
#include "lint/Rule.h"
#include "source/Strings.h"
#include "torch/Api.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL107 invalid-device-string

## What it does
Flags a string that is clearly meant as a device but that `torch.device` rejects, where
PyTorch reads a device: the first argument of `torch.device(...)`, the device of `.to(...)`
and `.cuda(...)`, a `device=` or `map_location=` argument of a PyTorch function,
`torch.load`'s second argument, `torch.set_default_device(...)` and
`torch.cuda.set_device(...)`. Flagged: wrong case (`"CPU"`, `"Cuda"`), `"gpu"`/`"GPU"`, a
space or a missing colon before the index (`"cuda: 0"`, `"cuda0"`), and a negative index
(`"cuda:-1"`).

## Why is this bad?
Device types are lower case and PyTorch has no `"gpu"` device (NVIDIA and AMD GPUs are
`"cuda"`, Apple's are `"mps"`). The line raises when it runs, e.g.
`RuntimeError: Expected one of cpu, cuda, ... device type at start of device string: gpu` or
`RuntimeError: Invalid device string: 'cuda: 0'`, often only on the machine or the code path
that reaches it (a GPU branch that CI never takes).

## Example
```python
model.to("GPU")
state = torch.load(path, map_location="CPU")
x = torch.zeros(3, device="cuda: 0")
```

## Use instead
```python
model.to("cuda")
state = torch.load(path, map_location="cpu")
x = torch.zeros(3, device="cuda:0")
```

## Fix safety
Safe where the meaning is unambiguous: the fix lower-cases a known device type and writes the
index as PyTorch spells it (`"CPU"` -> `"cpu"`, `"cuda: 0"` and `"cuda0"` -> `"cuda:0"`). The
code then does what it plainly meant instead of raising. There is no fix for `"gpu"` (CUDA or
MPS?) nor for a negative index.

## When it stays silent
- Valid device strings, including every device type PyTorch knows (`"xpu"`, `"meta"`,
  `"hpu"`) and indices (`"cuda:1"`).
- Strings that are not a known device type misspelt: backends registered by plug-ins
  (`"npu"`, `"privateuseone"`), `"auto"`, arbitrary text.
- Strings elsewhere: dictionary keys, log messages, `device_type=` arguments, the `device=`
  of functions that do not resolve to PyTorch (other libraries spell devices `"GPU"` on
  purpose), and `.to("...")` in files that do not import `torch`.
)md";

class InvalidDeviceString final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const SemanticModel &M = Ctx.model();
    const CallFacts *Facts = Ctx.call(N.Node);
    if (!Facts)
      return;
    const std::string &Q = Facts->Qualified;
    torch::Api Kind = Facts->api().Kind;
    if (Kind == torch::Api::Device) {
      if (!Facts->args().HasSplat)
        checkString(Facts->args().arg("type", 0), Ctx);
      return;
    }
    // `.to("GPU")` is also another library's method (OpenVINO spells devices in capitals).
    bool To = !ts_node_is_null(Facts->receiver("to")) && M.importsTorch();
    if (To || !ts_node_is_null(Facts->receiver("cuda"))) {
      checkString(Facts->args().argUnlessSplat("device", 0), Ctx);
      return;
    }
    if (!startsWith(Q, "torch."))
      return;
    if (Kind == torch::Api::SetDefaultDevice || Kind == torch::Api::SetDevice || Kind == torch::Api::CudaDevice) {
      checkString(Facts->args().argUnlessSplat("device", 0), Ctx);
      return;
    }
    checkString(Kind == torch::Api::Load ? Facts->args().argUnlessSplat("map_location", 1)
                                         : Facts->keyword("map_location"),
                Ctx);
    checkString(Facts->keyword("device"), Ctx);
  }

private:
  static void checkString(TSNode S, RuleContext &Ctx) {
    if (ts_node_is_null(S))
      return;
    auto Value = stringLiteral(S, Ctx.text());
    if (!Value)
      return;
    torch::DeviceString D = torch::parseDeviceString(*Value);
    if (D.Valid || !D.LooksLikeDevice)
      return;
    std::string Shown = "`\"" + std::string(*Value) + "\"`";
    if (D.Suggestion.empty()) {
      std::string_view V = *Value;
      while (!V.empty() && V.front() == ' ')
        V.remove_prefix(1);
      bool Gpu = V.size() >= 3 && (V[0] | 0x20) == 'g' && (V[1] | 0x20) == 'p' && (V[2] | 0x20) == 'u';
      std::string Hint = Gpu ? "PyTorch calls NVIDIA and AMD GPUs `\"cuda\"` and Apple GPUs `\"mps\"`"
                             : "the index after `:` must be a non-negative integer";
      Ctx.report(S, Shown + " is not a device string `torch.device` accepts: it raises `RuntimeError`; " + Hint);
      return;
    }
    std::string Fixed = "`\"" + D.Suggestion + "\"`";
    Diagnostic &Diag = Ctx.report(
        S, Shown + " is not a device string `torch.device` accepts: it raises `RuntimeError`; use " + Fixed);
    // Replace the text between the quotes, keeping the quotes and any prefix.
    uint32_t Count = ts_node_child_count(S);
    if (Count < 3)
      return;
    TSNode Start = ts_node_child(S, 0), End = ts_node_child(S, Count - 1);
    Diag.Fix = torchlint::Fix{"use " + Fixed, Applicability::Safe,
                              {Edit{{ts_node_end_byte(Start), ts_node_start_byte(End)}, D.Suggestion}}};
  }
};
} // namespace

std::unique_ptr<Rule> createInvalidDeviceString(const RuleInfo &I) {
  return std::make_unique<InvalidDeviceString>(I);
}

} // namespace torchlint::rules
