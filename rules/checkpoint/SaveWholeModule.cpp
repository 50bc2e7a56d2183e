// TL306 save-whole-module: PLACEHOLDER, replaced by the real rule.
#include "lint/Rule.h"

namespace torchlint::rules {

namespace {
class SaveWholeModule final : public Rule {
public:
  using Rule::Rule;
  std::string_view documentation() const override { return "PLACEHOLDER"; }
};
} // namespace

std::unique_ptr<Rule> createSaveWholeModule(const RuleInfo &I) { return std::make_unique<SaveWholeModule>(I); }

} // namespace torchlint::rules
