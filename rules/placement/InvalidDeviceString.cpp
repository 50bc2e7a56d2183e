// TL107 invalid-device-string: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class InvalidDeviceString final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createInvalidDeviceString(const RuleInfo &I) { return std::make_unique<InvalidDeviceString>(I); }

} // namespace torchlint::rules
