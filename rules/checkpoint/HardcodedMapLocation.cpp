// TL302 hardcoded-map-location: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class HardcodedMapLocation final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createHardcodedMapLocation(const RuleInfo &I) { return std::make_unique<HardcodedMapLocation>(I); }

} // namespace torchlint::rules
