// TL301 load-without-map-location: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class LoadWithoutMapLocation final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createLoadWithoutMapLocation(const RuleInfo &I) { return std::make_unique<LoadWithoutMapLocation>(I); }

} // namespace torchlint::rules
