// The receiver of a method call (see Call.h).
#include "torch/Call.h"

#include "source/Strings.h"
#include "torch/Read.h"

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

Placement CallFacts::readPlacement() const {
  Placement P;
  if (TSNode R = receiver("to"); !ts_node_is_null(R)) {
    P = {Placement::Form::To, R, torch::readTo(args(), *Model).Device};
  } else if (TSNode R = receiver("cuda"); !ts_node_is_null(R)) {
    P = {Placement::Form::Cuda, R, args().argUnlessSplat("device", 0)};
  } else if (startsWith(Qualified, "torch.") && !torch::isCudaApi(Qualified)) {
    if (TSNode D = keyword("device"); !ts_node_is_null(D))
      P = {Placement::Form::Keyword, TSNode{}, D};
  }
  return P;
}

} // namespace torchlint
