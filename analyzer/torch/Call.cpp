// The receiver of a method call (see Call.h).
#include "torch/Call.h"

#include "source/Strings.h"

namespace torchlint {

TSNode CallFacts::receiver(std::string_view Name) const {
  std::string_view C = CalleeText;
  // An attribute ends with its name, a whole identifier: most calls are ruled out by their
  // text alone (`x.to` passes, `x.proto` and `goto` do not).
  if (C.size() <= Name.size() || C.substr(C.size() - Name.size()) != Name)
    return TSNode{};
  char Before = C[C.size() - Name.size() - 1];
  if (nameByte(Before))
    return TSNode{};
  auto P = attributeParts(Callee, Model->text());
  if (!P || P->Name != Name)
    return TSNode{};
  std::string Q = Model->qualifiedName(P->Object);
  if (Q == "torch" || startsWith(Q, "torch."))
    return TSNode{};
  return P->Object;
}

} // namespace torchlint
