// TL106 hardcoded-device-index: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class HardcodedDeviceIndex final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createHardcodedDeviceIndex(const RuleInfo &I) { return std::make_unique<HardcodedDeviceIndex>(I); }

} // namespace torchlint::rules
