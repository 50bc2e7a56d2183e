// Readers of PyTorch's spellings in the tree (see Read.h).
#include "torch/Read.h"

#include "source/Strings.h"

namespace torchlint::torch {

namespace {

bool isTorchDeviceCall(TSNode N, const SemanticModel &M) {
  return is(N, "call") && M.refersTo(field(N, "function"), "torch.device");
}

} // namespace

std::optional<DeviceExpr> readDevice(TSNode N, const SemanticModel &M) {
  const NodeText &T = M.text();
  DeviceExpr D;
  if (auto S = stringLiteral(N, T)) {
    D.Spelling = *S;
    D.Parsed = parseDeviceString(*S);
    D.Index = D.Parsed.Index;
    return D;
  }
  auto ordinal = [](DeviceExpr &D, long I) {
    D.Parsed.Valid = true;
    D.Parsed.Type = "cuda";
    D.Parsed.Index = I;
    D.Index = I;
  };
  if (auto I = intLiteral(N, T)) {
    D.How = DeviceExpr::Form::Integer;
    ordinal(D, *I);
    return D;
  }
  if (!isTorchDeviceCall(N, M))
    return std::nullopt;
  auto A = callArgs(N, T);
  if (!A || A->HasSplat)
    return std::nullopt;
  TSNode First = A->arg("type", 0);
  if (ts_node_is_null(First))
    return std::nullopt;
  D.How = DeviceExpr::Form::TorchDevice;
  D.Raises = A->Positional.size() + A->Keywords.size() > 2;
  TSNode Idx = A->arg("index", 1);
  if (auto I = intLiteral(First, T)) {
    ordinal(D, *I);
    D.Raises |= !ts_node_is_null(Idx); // torch.device(0, 1)
    return D;
  }
  auto S = stringLiteral(First, T);
  if (!S)
    return std::nullopt;
  D.Spelling = *S;
  D.Parsed = parseDeviceString(*S);
  D.Index = D.Parsed.Index;
  if (!ts_node_is_null(Idx) && !is(Idx, "none")) {
    if (D.Parsed.Index)
      D.Raises = true; // torch.device("cuda:0", 1)
    else if (auto I = intLiteral(Idx, T))
      D.Index = *I;
    else
      D.VariableIndex = true;
  }
  return D;
}

std::optional<DeviceExpr> spelledDevice(TSNode N, const SemanticModel &M) {
  auto D = readDevice(N, M);
  if (!D || !D->valid())
    return std::nullopt;
  return D;
}

ScalarType readDtype(TSNode N, const SemanticModel &M, DtypeSpelling In) {
  if (ts_node_is_null(N))
    return ScalarType::Unknown;
  const NodeText &T = M.text();
  if (In == DtypeSpelling::Numpy)
    if (auto S = stringLiteral(N, T))
      return dtypeNamed("numpy." + std::string(*S));
  if (!is(N, "attribute") && !is(N, "identifier"))
    return ScalarType::Unknown;
  std::string Q = M.qualifiedName(N);
  if (!Q.empty())
    return dtypeNamed(Q, /*TorchOnly=*/In == DtypeSpelling::Torch);
  // Python's own types, as both libraries read them.
  if (is(N, "identifier")) {
    std::string_view Name = T(N);
    if (Name == "float")
      return ScalarType::Float64;
    if (Name == "int")
      return ScalarType::Int64;
    if (Name == "bool")
      return ScalarType::Bool;
  }
  return ScalarType::Unknown;
}

ToArgs readTo(const CallArgs &A, const SemanticModel &M) {
  ToArgs R;
  R.Device = A.keyword("device");
  R.Dtype = A.keyword("dtype");
  if (A.HasSplat || A.Positional.empty())
    return R;
  TSNode First = A.Positional[0];
  R.Positional = 1;
  if (readDtype(First, M) != ScalarType::Unknown) { // to(dtype, non_blocking, copy)
    R.Conflict = !ts_node_is_null(R.Device) || !ts_node_is_null(R.Dtype);
    if (ts_node_is_null(R.Dtype))
      R.Dtype = First;
    return R;
  }
  if (!ts_node_is_null(R.Device)) { // the device twice
    R.Conflict = true;
    return R;
  }
  // to(device, dtype, non_blocking, copy) or to(other, non_blocking, copy).
  R.Device = First;
  R.DeviceMayBeTensor = !readDevice(First, M);
  if (A.Positional.size() > 1 && ts_node_is_null(R.Dtype) && readDtype(A.Positional[1], M) != ScalarType::Unknown) {
    R.Dtype = A.Positional[1];
    R.Positional = 2;
  }
  return R;
}

LoadArgs readLoad(const CallArgs &A) {
  LoadArgs L;
  L.File = A.arg("f", 0);
  L.MapLocation = A.arg("map_location", 1);
  L.PickleModule = A.arg("pickle_module", 2);
  L.WeightsOnly = A.keyword("weights_only");
  return L;
}

bool constructsModule(TSNode Call, const SemanticModel &M) {
  if (!is(Call, "call"))
    return false;
  TSNode Callee = field(Call, "function");
  if (is(Callee, "identifier") && M.importOf(M.text()(Callee)).empty()) {
    const ClassInfo *C = M.classAt(M.text()(Callee), Call);
    return C && C->IsModule;
  }
  return classify(M.qualifiedName(Callee)).Kind == Api::ModuleClass;
}

TSNode parametersOwner(TSNode Arg, const NodeText &T) {
  TSNode Owner{};
  std::vector<TSNode> Stack{Arg};
  size_t Guard = 0;
  while (!Stack.empty() && ++Guard < 2000) {
    TSNode N = Stack.back();
    Stack.pop_back();
    if (ts_node_is_null(N))
      continue; // no such argument (`SGD(lr=0.1)`): nothing below it
    if (is(N, "call")) {
      auto P = attributeParts(field(N, "function"), T);
      if (P && (P->Name == "parameters" || P->Name == "named_parameters")) {
        if (!ts_node_is_null(Owner) && T(Owner) != T(P->Object))
          return TSNode{};
        Owner = P->Object;
        continue;
      }
    }
    if (is(N, "lambda"))
      continue;
    for (uint32_t I = 0, E = ts_node_named_child_count(N); I < E; ++I)
      Stack.push_back(ts_node_named_child(N, I));
  }
  return Owner;
}

namespace {
/// A device inside a choice, a lambda or a remapping table is still the map_location.
bool mapLocationPassThrough(std::string_view K) {
  return K == "parenthesized_expression" || K == "conditional_expression" || K == "boolean_operator" ||
         K == "lambda" || K == "dictionary" || K == "pair";
}
/// A parent of a `torch.device(...)` that only inspects or hands it on.
bool inspectingParent(std::string_view K) {
  return K == "comparison_operator" || K == "attribute" || K == "pair" || K == "list" || K == "tuple" || K == "set";
}
/// The kind of the parent of a node the walk collected; empty when unknown.
std::string_view parentKind(const NodeRef &N) {
  const std::vector<std::string_view> &Names = symbolNames();
  return N.ParentSym < Names.size() ? Names[N.ParentSym] : std::string_view();
}
} // namespace

bool inMapLocation(TSNode N, const SemanticModel &M) {
  TSNode Cur = N;
  for (int Hops = 0; Hops < 8; ++Hops) {
    TSNode P = ts_node_parent(Cur);
    if (ts_node_is_null(P))
      return false;
    std::string_view K = kind(P);
    if (K == "keyword_argument")
      return ts_node_eq(field(P, "value"), Cur) && M.text()(field(P, "name")) == "map_location";
    if (K == "argument_list") {
      TSNode Call = ts_node_parent(P);
      if (!is(Call, "call") || classify(M.qualifiedName(field(Call, "function"))).Kind != Api::Load)
        return false;
      auto A = callArgs(Call, M.text());
      return A && A->Positional.size() > 1 && ts_node_eq(A->Positional[1], Cur);
    }
    if (!mapLocationPassThrough(K))
      return false;
    Cur = P;
  }
  return false;
}

// The kinds the tree walks below start from: a parent of another kind rules the node out
// without asking the tree for it (unknown: ask).
bool inMapLocation(const NodeRef &N, const SemanticModel &M) {
  std::string_view K = parentKind(N);
  return (K.empty() || K == "keyword_argument" || K == "argument_list" || mapLocationPassThrough(K)) &&
         inMapLocation(N.Node, M);
}

bool deviceOnlyInspected(const NodeRef &Call, const SemanticModel &M) {
  std::string_view K = parentKind(Call);
  return (K.empty() || K == "parenthesized_expression" || K == "keyword_argument" || K == "argument_list" ||
          inspectingParent(K)) &&
         deviceOnlyInspected(Call.Node, M);
}

bool currentCudaDevice(TSNode N, const SemanticModel &M) {
  if (!is(N, "call"))
    return false;
  TSNode Args = field(N, "arguments");
  return ts_node_named_child_count(Args) == 0 && M.qualifiedName(field(N, "function")) == "torch.cuda.current_device";
}

bool deviceOnlyInspected(TSNode Call, const SemanticModel &M) {
  TSNode P = ts_node_parent(Call);
  while (is(P, "parenthesized_expression"))
    P = ts_node_parent(P);
  if (ts_node_is_null(P))
    return false;
  std::string_view K = kind(P);
  if (inspectingParent(K))
    return true;
  if (K == "keyword_argument") {
    if (!mentionsDeviceWord(M.text()(field(P, "name"))) && M.text()(field(P, "name")) != "map_location")
      return true; // `return_value=torch.device("cuda", 1)`: a value handed over, no placement
    P = ts_node_parent(P);
  }
  if (!is(P, "argument_list"))
    return false;
  TSNode Outer = ts_node_parent(P);
  if (!is(Outer, "call"))
    return false;
  std::string Q = M.qualifiedName(field(Outer, "function"));
  Api Kind = classify(Q).Kind;
  return isCudaApi(Q) && Kind != Api::SetDevice && Kind != Api::CudaDevice;
}

bool constantData(TSNode Data) {
  if (is(Data, "integer") || is(Data, "float") || is(Data, "true") || is(Data, "false"))
    return true;
  if (is(Data, "unary_operator") || is(Data, "parenthesized_expression"))
    return ts_node_named_child_count(Data) == 1 && constantData(ts_node_named_child(Data, 0));
  if (!is(Data, "list") && !is(Data, "tuple"))
    return false;
  for (uint32_t I = 0, E = ts_node_named_child_count(Data); I < E; ++I)
    if (!constantData(ts_node_named_child(Data, I)))
      return false;
  return true;
}

} // namespace torchlint::torch
