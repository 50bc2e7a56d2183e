// Which expressions surely evaluate to tensors (see Tensors.h).
#include "torch/Tensors.h"

#include "source/Strings.h"
#include "torch/Api.h"

namespace torchlint::torch {

namespace {

/// Whether \p E surely evaluates to a tensor. \p AskedLocal is set when the answer read a
/// local name (so that a caller can first try without reading the function's statements).
bool tensorExpr(TSNode E, const SemanticModel &M, const LocalTensors &Locals, bool *AskedLocal, int Depth) {
  if (ts_node_is_null(E) || Depth > 16)
    return false;
  const NodeText &T = M.text();
  std::string_view K = kind(E);
  if (K == "parenthesized_expression")
    return ts_node_named_child_count(E) == 1 && tensorExpr(ts_node_named_child(E, 0), M, Locals, AskedLocal, Depth + 1);
  if (K == "identifier") {
    if (AskedLocal)
      *AskedLocal = true;
    auto It = Locals.find(T(E));
    return It != Locals.end() && It->second;
  }
  if (K == "subscript")
    return tensorExpr(field(E, "value"), M, Locals, AskedLocal, Depth + 1);
  if (K == "unary_operator")
    return T(E).substr(0, 1) == "-" && tensorExpr(field(E, "argument"), M, Locals, AskedLocal, Depth + 1);
  if (K == "binary_operator") {
    std::string_view Op = T(field(E, "operator"));
    if (Op != "+" && Op != "-" && Op != "*" && Op != "/" && Op != "//" && Op != "%" && Op != "**" && Op != "@")
      return false;
    return tensorExpr(field(E, "left"), M, Locals, AskedLocal, Depth + 1) ||
           tensorExpr(field(E, "right"), M, Locals, AskedLocal, Depth + 1);
  }
  if (K != "call")
    return false;
  TSNode Callee = field(E, "function");
  std::string Q = M.qualifiedName(Callee);
  if (!Q.empty())
    return classify(Q).returnsTensor();
  auto P = attributeParts(Callee, T);
  return P && methodIs(P->Name, ReturnsTensor) &&
         tensorExpr(P->Object, M, Locals, AskedLocal, Depth + 1);
}

/// A Python number as far as the text shows: a numeric literal, arithmetic on numbers, or a
/// `math.*`, `float()`, `int()` call.
bool scalarExpr(TSNode E, const SemanticModel &M, int Depth) {
  if (ts_node_is_null(E) || Depth > 16)
    return false;
  std::string_view K = kind(E);
  if (K == "integer" || K == "float")
    return true;
  if (K == "parenthesized_expression")
    return ts_node_named_child_count(E) == 1 && scalarExpr(ts_node_named_child(E, 0), M, Depth + 1);
  if (K == "unary_operator")
    return scalarExpr(field(E, "argument"), M, Depth + 1);
  if (K == "binary_operator")
    return scalarExpr(field(E, "left"), M, Depth + 1) && scalarExpr(field(E, "right"), M, Depth + 1);
  if (K != "call")
    return false;
  TSNode Callee = field(E, "function");
  if (is(Callee, "identifier"))
    return (M.text()(Callee) == "float" || M.text()(Callee) == "int") && M.importOf(M.text()(Callee)).empty();
  return startsWith(M.qualifiedName(Callee), "math.");
}

} // namespace

bool surelyTensor(TSNode E, const SemanticModel &M, const LocalTensors &Locals, bool *AskedLocal) {
  return tensorExpr(E, M, Locals, AskedLocal, 0);
}

std::optional<LocalTensors> localTensorsBefore(int32_t ScopeId, uint32_t Before, const SemanticModel &M) {
  const ScopeBindings &B = M.bindings(ScopeId);
  if (B.TooLarge)
    return std::nullopt;
  LocalTensors Locals;
  for (const Binding &X : B.all()) {
    if (ts_node_start_byte(X.Site) >= Before)
      break;
    bool Tensor = false;
    if (X.Kind == BindingKind::AugmentedAssignment)
      continue; // `x += 1` keeps what x is
    if (X.Kind == BindingKind::Assignment)
      Tensor = tensorExpr(X.Value, M, Locals, nullptr, 0);
    auto [It, New] = Locals.emplace(X.Name, Tensor);
    if (!New)
      It->second = It->second && Tensor;
  }
  return Locals;
}

bool zeroDimTensor(TSNode E, const SemanticModel &M) {
  if (!is(E, "call"))
    return false;
  ApiFacts Api = classify(M.qualifiedName(field(E, "function")));
  if (Api.Kind != Api::Factory)
    return false;
  auto A = callArgs(E, M.text());
  if (!A || A->HasSplat || A->Positional.empty())
    return false;
  TSNode First = A->Positional[0];
  if (Api.has(ScalarData)) // `torch.tensor(0.07)`
    return scalarExpr(First, M, 0);
  // `torch.zeros(())`: an empty shape (factories that take data or bounds first do not count).
  if (Api.has(ShapeFirst))
    return (is(First, "tuple") || is(First, "list")) && ts_node_named_child_count(First) == 0;
  return false;
}

} // namespace torchlint::torch
