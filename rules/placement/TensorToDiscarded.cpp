// TL101 tensor-to-discarded: `x.to(...)`, `x.cuda()`, `x.cpu()` or a dtype cast as a bare
// statement on a value the flow knows is a tensor: tensors never move in place.
#include "diag/Edits.h"
#include "flow/DeviceFlow.h"
#include "lint/Rule.h"

#include <array>

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL101 tensor-to-discarded

## What it does
Flags `x.to(...)`, `x.cuda()`, `x.cpu()` and the dtype casts (`.float()`, `.double()`,
`.half()`, `.bfloat16()`, `.long()`, `.int()`) written as a statement of their own, where the
device flow knows `x` is a tensor: a batch from a DataLoader loop, the result of a tensor
factory, `torch.from_numpy`, arithmetic on tensors, a parameter or buffer of the module.

## Why is this bad?
`Tensor.to`, `.cuda()`, `.cpu()` and the casts return a new tensor (or the same one when
nothing changes); they never change the tensor they are called on. The statement copies the
data, throws the copy away, and `x` stays where it was. The next operation that meets a CUDA
module fails with `RuntimeError: Expected all tensors to be on the same device, but found at
least two devices, cuda:0 and cpu!`. Modules are different: `model.to(device)` moves the
module in place, which is why the habit carries over.

## Example
```python
for images, labels in loader:
    images.to(device)
    labels.to(device)
    loss = criterion(model(images), labels)
```

## Use instead
```python
for images, labels in loader:
    images = images.to(device)
    labels = labels.to(device)
    loss = criterion(model(images), labels)
```

## Fix safety
Safe: the fix assigns the result back (`x = x.to(...)`, `self.x = self.x.to(...)`, and for a
tuple of moves `x, y = x.to(d), y.to(d)`). It is offered only where every receiver is a name
or an attribute path, which can be assigned.

## When it stays silent
- Modules: `model.to(device)` moves the module in place.
- `x = x.to(device)`, `return x.to(device)`, `f(x.to(device))`: the result is used.
- Receivers of unknown kind: an argument with no type annotation and no flow, a value returned
  by a function of another file.
- Temporaries (`torch.ones(1).cuda()`): moved for a side effect such as initialising CUDA,
  not a value someone meant to keep.
)md";

// The tensor methods that return a moved or cast copy, and the letters they start with.
const std::vector<std::string_view> &moves() {
  static const std::vector<std::string_view> Names = torch::methodsWith(torch::Move | torch::Cast);
  return Names;
}
const std::array<bool, 256> &moveInitials() {
  static const std::array<bool, 256> T = [] {
    std::array<bool, 256> I{};
    for (std::string_view M : moves())
      I[static_cast<unsigned char>(M[0])] = true;
    return I;
  }();
  return T;
}

/// Whether \p Text may call one of the Moves: a `.`, then after any white space a move's
/// name and a `(`. A statement that starts with a string calls nothing on a tensor; one with
/// a comment inside might hide the spaces, and is read. (memchr-based finds: the statement
/// can be long, and most have no `.` at all.)
bool namesAMove(std::string_view Text) {
  size_t Prefix = 0;
  while (Prefix < 2 && Prefix < Text.size() && std::string_view("rRuUbBfF").find(Text[Prefix]) != std::string_view::npos)
    ++Prefix;
  if (Prefix < Text.size() && (Text[Prefix] == '"' || Text[Prefix] == '\''))
    return false;
  if (Text.find('#') != std::string_view::npos)
    return true;
  auto SkipSpace = [&](size_t I) {
    while (I < Text.size() && (Text[I] == ' ' || Text[I] == '\t' || Text[I] == '\r' || Text[I] == '\n' || Text[I] == '\\'))
      ++I;
    return I;
  };
  const std::array<bool, 256> &Initials = moveInitials();
  for (size_t Dot = Text.find('.'); Dot != std::string_view::npos; Dot = Text.find('.', Dot + 1)) {
    size_t At = SkipSpace(Dot + 1);
    // Most names after a dot start with a letter no move starts with.
    if (At >= Text.size() || !Initials[static_cast<unsigned char>(Text[At])])
      continue;
    for (std::string_view M : moves())
      if (Text.substr(At, M.size()) == M) {
        size_t Paren = SkipSpace(At + M.size());
        if (Paren < Text.size() && Text[Paren] == '(')
          return true;
      }
  }
  return false;
}

class TensorToDiscarded final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"expression_statement"}; }
  std::vector<FileWide> fileWideReads() const override { return {flow::DeviceFlow::fileWide()}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    if (!namesAMove(Ctx.text(N)))
      return; // most statements: read no children
    // `x.to(d)` or `x.to(d), y.to(d)` (a tuple: several children).
    NodeList Calls = namedChildren(N.Node);
    if (Calls.size() == 1 && is(Calls[0], "expression_list"))
      Calls = namedChildren(Calls[0]);
    const flow::DeviceFlow *F = nullptr;
    struct Found {
      TSNode Call, Receiver;
      const flow::Value *V;
    };
    std::vector<Found> Hits;
    for (TSNode C : Calls) {
      if (!is(C, "call"))
        return; // a tuple with anything else in it is not a list of forgotten moves
      TSNode Callee = field(C, "function");
      if (!is(Callee, "attribute"))
        return;
      std::string_view Name = Ctx.text()(field(Callee, "attribute"));
      if (!(torch::methodBits(Name) & (torch::Move | torch::Cast)))
        return;
      TSNode Receiver = field(Callee, "object");
      if (!Ctx.model().qualifiedName(Receiver).empty())
        return; // torch.Tensor.to(...)
      // A temporary (`torch.ones(1).cuda()`) is moved for its side effect, e.g. to initialise
      // CUDA: nobody meant to keep it.
      if (!is(Receiver, "identifier") && !is(Receiver, "attribute") && !is(Receiver, "subscript"))
        return;
      if (!F)
        F = &Ctx.analysis<flow::DeviceFlow>();
      const flow::Value *V = F->valueOf(Receiver);
      if (!V || !V->isTensor())
        return;
      Hits.push_back({C, Receiver, V});
    }
    if (Hits.empty())
      return;
    const NodeText &Text = Ctx.text();
    // Assignable receivers: names and attribute paths.
    bool Fixable = true;
    std::string Targets;
    for (const Found &H : Hits) {
      TSNode R = H.Receiver;
      while (is(R, "attribute"))
        R = field(R, "object");
      Fixable &= is(R, "identifier") && (is(H.Receiver, "identifier") || is(H.Receiver, "attribute"));
      Targets += (Targets.empty() ? "" : ", ") + std::string(Text(H.Receiver));
    }
    for (const Found &H : Hits) {
      std::string Recv = shortText(H.Receiver, Text);
      std::string_view Name = Text(field(field(H.Call, "function"), "attribute"));
      Diagnostic &D = Ctx.report(methodCallRange(H.Call),
                                 "the result of `." + std::string(Name) +
                                     "()` is discarded: tensors do not change in place, so `" + Recv +
                                     "` is unchanged");
      D.Notes.push_back(F->deviceNote(H.Receiver, *H.V, Text));
      D.Notes.back().Message = "`" + Recv + "` is a tensor" +
                               (H.V->DevHow != flow::Origin::None ? " (" + F->deviceReason(*H.V) + ")" : "");
      if (Fixable && &H == &Hits.front()) { // one edit fixes the whole statement
        uint32_t At = ts_node_start_byte(N.Node);
        D.Fix = torchlint::Fix{"Assign the result: `" + Targets + " = ...`", Applicability::Safe,
                               {{{At, At}, Targets + " = "}}};
      }
    }
  }
};
} // namespace

std::unique_ptr<Rule> createTensorToDiscarded(const RuleInfo &I) { return std::make_unique<TensorToDiscarded>(I); }

} // namespace torchlint::rules
