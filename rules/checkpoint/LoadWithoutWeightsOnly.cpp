// TL304 load-without-weights-only: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class LoadWithoutWeightsOnly final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createLoadWithoutWeightsOnly(const RuleInfo &I) { return std::make_unique<LoadWithoutWeightsOnly>(I); }

} // namespace torchlint::rules
