// TL601 parameter-moved-non-leaf: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class ParameterMovedNonLeaf final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createParameterMovedNonLeaf(const RuleInfo &I) { return std::make_unique<ParameterMovedNonLeaf>(I); }

} // namespace torchlint::rules
