// The dump of the semantic model and the device flow (see Dump.h).
#include "flow/Dump.h"

#include "flow/DeviceFlow.h"
#include "semantic/Walker.h"

namespace torchlint::flow {

namespace {

std::string_view kindName(ValueKind K) {
  switch (K) {
  case ValueKind::Unknown:
    return "unknown";
  case ValueKind::Tensor:
    return "tensor";
  case ValueKind::Scalar:
    return "scalar";
  case ValueKind::Module:
    return "module";
  case ValueKind::Optimizer:
    return "optimizer";
  case ValueKind::Device:
    return "device";
  case ValueKind::DataLoader:
    return "dataloader";
  case ValueKind::Batch:
    return "batch";
  case ValueKind::NumpyArray:
    return "ndarray";
  case ValueKind::Checkpoint:
    return "checkpoint";
  case ValueKind::Settings:
    return "settings";
  case ValueKind::Tuple:
    return "tuple";
  case ValueKind::List:
    return "list";
  case ValueKind::Dict:
    return "dict";
  case ValueKind::Callable:
    return "callable";
  }
  return "?";
}

std::string at(TSNode N) {
  if (ts_node_is_null(N))
    return "-";
  TSPoint P = ts_node_start_point(N);
  return std::to_string(P.row + 1) + ":" + std::to_string(P.column + 1);
}

std::string span(TSNode N) {
  TSPoint E = ts_node_end_point(N);
  return at(N) + "-" + std::to_string(E.row + 1) + ":" + std::to_string(E.column + 1);
}

} // namespace

void dumpAnalysis(std::string_view Source, llvm::raw_ostream &OS) {
  TreePtr Tree = parsePython(Source);
  if (!Tree)
    return;
  TSNode Root = ts_tree_root_node(Tree.get());
  SemanticModel Model(Source);
  KindSet Wanted;
  for (std::string_view K : {"call", "binary_operator", "assignment", "expression_statement", "decorator"})
    Wanted.add(K);
  WalkResult W = walkFile(Root, Model, Wanted);
  const NodeText &Text = Model.text();
  for (size_t I = 0; I < Model.scopes().size(); ++I) {
    const Scope &S = Model.scope(static_cast<int32_t>(I));
    OS << "scope " << I << " parent " << S.Parent << " " << S.Name << " roles " << unsigned(S.Roles);
    if (const ClassInfo *C = Model.methodClass(static_cast<int32_t>(I)))
      OS << " method-of " << C->Name;
    OS << "\n";
  }
  for (const ClassInfo &C : Model.classes())
    OS << "class " << C.Name << (C.IsModule ? " module" : "") << (C.IsDataset ? " dataset" : "") << "\n";
  for (const NodeRef &N : W.Nodes)
    if (N.Flags)
      OS << "node " << span(N.Node) << " " << kind(N.Node) << " scope " << N.Scope << " flags " << unsigned(N.Flags)
         << "\n";
  DeviceFlow F(Root, Model);
  forEachNode(Root, [&](TSNode N) {
    const Value *V = F.valueOf(N);
    if (!V || (V->Kind == ValueKind::Unknown && !V->Flags))
      return;
    std::string_view T = Text(N);
    T = T.substr(0, T.find('\n')).substr(0, 30);
    OS << span(N) << " " << kind(N) << " `" << T << "`: " << kindName(V->Kind);
    if (V->Dev.known())
      OS << " on " << deviceName(V->Dev) << " (" << F.deviceReason(*V) << ")";
    if (V->Type != DType::Unknown)
      OS << " " << dtypeName(V->Type) << " (" << F.dtypeReason(*V) << ")";
    if (V->R != Rank::Unknown)
      OS << (V->R == Rank::Zero ? " 0-dim" : " n-dim");
    if (V->Flags)
      OS << " flags " << V->Flags;
    if (V->Loader)
      OS << " loader " << at(F.node(V->Loader));
    if (V->Factory)
      OS << " factory " << at(F.node(V->Factory));
    if (is(N, "call") && F.inTrainingLoop(N))
      OS << " in-training-loop";
    OS << "\n";
  });
}

} // namespace torchlint::flow
