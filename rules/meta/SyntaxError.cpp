// TL001 syntax-error: reported by the engine at the first ERROR or MISSING node.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
constexpr std::string_view Doc = R"md(# TL001 syntax-error

## What it does
Reports that the file does not fully parse as Python, once, at the first error. The rest
of the file is still linted: rules skip only the parts that did not parse.

## Why is this bad?
Python refuses to run the file (`SyntaxError: invalid syntax`). Findings near the broken
part may be missing until it is fixed.

## Example
```python
def train(model, loader:
    for x, y in loader:
        loss = model(x, y)
```

## Use instead
```python
def train(model, loader):
    for x, y in loader:
        loss = model(x, y)
```

## When it stays silent
On every file that parses, and on lines of valid Python that the parser (tree-sitter-python)
does not accept: a starred display in a bare tuple, such as `head, *rest = parts, *[]` or
`return a, *(b,)` (valid since Python 3.8). Rules skip those lines; a later real error is
still reported.
)md";

class SyntaxError final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return Doc; }
};
} // namespace

std::unique_ptr<Rule> createSyntaxError(const RuleInfo &I) { return std::make_unique<SyntaxError>(I); }

} // namespace torchlint::rules
