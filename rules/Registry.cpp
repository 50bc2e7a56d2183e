// Builds the registry from Registry.def; each rule's class lives in its own file.
#include "Rules.h"

namespace torchlint::rules {

#define TORCHLINT_RULE(CODE, NAME, FAMILY, ON, SEV, FIX, CLASS, SUMMARY)                                \
  std::unique_ptr<Rule> create##CLASS(const RuleInfo &);
#include "Registry.def"
#undef TORCHLINT_RULE

namespace {
const RuleInfo Infos[] = {
#define TORCHLINT_RULE(CODE, NAME, FAMILY, ON, SEV, FIX, CLASS, SUMMARY)                                \
  {#CODE, NAME, FAMILY, SUMMARY, ON, Severity::SEV, FixSafety::FIX},
#include "Registry.def"
#undef TORCHLINT_RULE
};
} // namespace

const Registry &registry() {
  static const Registry R = [] {
    Registry Out;
    size_t I = 0;
#define TORCHLINT_RULE(CODE, NAME, FAMILY, ON, SEV, FIX, CLASS, SUMMARY) Out.add(create##CLASS(Infos[I++]));
#include "Registry.def"
#undef TORCHLINT_RULE
    return Out;
  }();
  return R;
}

} // namespace torchlint::rules
