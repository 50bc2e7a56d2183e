// TL105 hardcoded-cuda: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class HardcodedCuda final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createHardcodedCuda(const RuleInfo &I) { return std::make_unique<HardcodedCuda>(I); }

} // namespace torchlint::rules
