// TL002 unknown-suppression: reported by the engine while reading suppression comments.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL002 unknown-suppression

## What it does
Flags a `# noqa: ...` or `# torchlint: disable=...` comment that names a torchlint code
(`TL` followed by digits) that does not exist. Codes of other tools (`E501`, `F401`) are
left alone.

## Why is this bad?
A misspelt code suppresses nothing: the finding it was meant to silence is still reported,
or, worse, a later real finding on that line is not, because the author believes it is.

## Example
```python
model.cuda()  # noqa: TL15
```

## Use instead
```python
model.cuda()  # noqa: TL105
```

## Fix safety
Safe: the fix removes the unknown code (or the whole comment when it was the only code),
which cannot change what is reported.

## When it stays silent
Codes that exist, and codes that are not torchlint's.
)md";

class UnknownSuppression final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
};
} // namespace

std::unique_ptr<Rule> createUnknownSuppression(const RuleInfo &I) {
  return std::make_unique<UnknownSuppression>(I);
}

} // namespace torchlint::rules
