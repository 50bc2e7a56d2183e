// TL108 cuda-in-dataset: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class CudaInDataset final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createCudaInDataset(const RuleInfo &I) { return std::make_unique<CudaInDataset>(I); }

} // namespace torchlint::rules
