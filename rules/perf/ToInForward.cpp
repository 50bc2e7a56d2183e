// TL201 to-in-forward: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class ToInForward final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createToInForward(const RuleInfo &I) { return std::make_unique<ToInForward>(I); }

} // namespace torchlint::rules
