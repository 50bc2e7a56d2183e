// TL305 load-state-dict-non-strict: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class LoadStateDictNonStrict final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createLoadStateDictNonStrict(const RuleInfo &I) { return std::make_unique<LoadStateDictNonStrict>(I); }

} // namespace torchlint::rules
