// TL305 load-state-dict-non-strict: `load_state_dict(..., strict=False)` whose report of
// missing and unexpected keys is thrown away.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL305 load-state-dict-non-strict

## What it does
Flags `load_state_dict(..., strict=False)` (or `False` as the second positional argument)
called as a bare statement, so that the result it returns is dropped.

## Why is this bad?
With `strict=True` (the default), `Module.load_state_dict` raises `RuntimeError: Error(s)
in loading state_dict for Net: Missing key(s) in state_dict: ... Unexpected key(s) in
state_dict: ...` when the names do not match. With `strict=False` it raises nothing and
returns a named tuple `(missing_keys, unexpected_keys)` instead. Ignoring it means a
checkpoint saved from a `DataParallel` model (every key prefixed with `module.`), or after a
layer was renamed, loads *nothing* into those layers: the model silently keeps its random
initialisation.

## Example
```python
model.load_state_dict(torch.load(path, map_location="cpu"), strict=False)
```

## Use instead
```python
result = model.load_state_dict(torch.load(path, map_location="cpu"), strict=False)
if result.missing_keys or result.unexpected_keys:
    log.warning("partial load: missing %s, unexpected %s", result.missing_keys, result.unexpected_keys)
```
or fix the keys and keep `strict=True`.

## When it stays silent
The rule is opt-in (`extend-select = ["TL305"]`): on maintained code a non-strict load is
nearly always deliberate (fine-tuning a new head, partial transfer, keys logged elsewhere).
When selected:
- The result is used: assigned, returned, passed to a function or logged.
- `strict` is `True` or a variable (`strict=strict` in a wrapper that forwards it).
- Calls whose `strict` is not a literal `False`, such as `Optimizer.load_state_dict(state)`.
)md";

class LoadStateDictNonStrict final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
  std::vector<std::string_view> nodeKinds() const override { return {"call"}; }
  std::vector<std::string_view> calleeNames() const override { return {"load_state_dict"}; }

  void check(const NodeRef &N, RuleContext &Ctx) const override {
    const NodeText &T = Ctx.text();
    const auto &P = Ctx.calleeAttribute(N.Node);
    if (!P || P->Name != "load_state_dict")
      return;
    // Only a call that is the whole statement drops its result.
    TSNode Stmt = ts_node_parent(N.Node);
    if (!is(Stmt, "expression_statement") || ts_node_named_child_count(Stmt) != 1)
      return;
    auto A = callArgs(N.Node, T);
    if (!A)
      return;
    TSNode Strict = A->keyword("strict");
    if (ts_node_is_null(Strict) && !A->HasSplat && A->Positional.size() >= 2)
      Strict = A->Positional[1];
    if (boolLiteral(Strict) != false)
      return;
    Ctx.report(A->Callee, "`load_state_dict(..., strict=False)` drops the missing and unexpected keys it returns: "
                          "weights whose names do not match are silently not loaded");
  }
};
} // namespace

std::unique_ptr<Rule> createLoadStateDictNonStrict(const RuleInfo &I) { return std::make_unique<LoadStateDictNonStrict>(I); }

} // namespace torchlint::rules
