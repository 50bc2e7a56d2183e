// TL701 deprecated-cuda-amp: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class DeprecatedCudaAmp final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createDeprecatedCudaAmp(const RuleInfo &I) { return std::make_unique<DeprecatedCudaAmp>(I); }

} // namespace torchlint::rules
