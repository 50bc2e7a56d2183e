// TL003 unused-suppression: reported by the engine after suppressions are applied.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL003 unused-suppression

## What it does
Flags a code in a `# noqa: ...` or `# torchlint: disable...` comment that silenced
nothing on its line (or, for `disable-file`, in its file). Opt-in: enable it with
`extend-select = ["TL003"]`.

## Why is this bad?
Stale suppressions hide future findings on the same line and mislead readers into thinking
the line has a known problem.

## Example
```python
x = x.to(device)  # noqa: TL101
```

## Use instead
```python
x = x.to(device)
```

## Fix safety
Safe: the code silenced nothing, so removing it changes no report.

## When it stays silent
Bare `# noqa` (it may be meant for another tool), codes of other tools, and codes of rules
that are not enabled for the file.
)md";

class UnusedSuppression final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
};
} // namespace

std::unique_ptr<Rule> createUnusedSuppression(const RuleInfo &I) {
  return std::make_unique<UnusedSuppression>(I);
}

} // namespace torchlint::rules
