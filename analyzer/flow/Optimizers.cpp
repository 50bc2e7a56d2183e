// Optimizers and the state they load. `Optimizer.load_state_dict` casts the state to the
// device of each parameter at load time: the flow remembers, per optimizer, the model whose
// parameters it was built over and the load whose state is still where it went, and records
// the first move or replacement of that model after the load (TL303 reads it).
#include "flow/Interpreter.h"

namespace torchlint::flow {

void DeviceFlow::Impl::buildOptimizer(std::string_view Key, TSNode Call, TSNode Stmt) {
  auto A = callArgs(Call, Text);
  if (!A)
    return;
  std::string_view Model = pathKey(torch::parametersOwner(A->arg("params", 0), Text));
  if (!Model.empty())
    F->S.O[Key] = OptimizerFacts{Model, mark(Stmt), NodeMark{}};
}

void DeviceFlow::Impl::loadOptimizerState(TSNode C, std::string_view Key, bool Kept) {
  if (Inlining) // the helper's own analysis reports its loads
    return;
  auto It = F->S.O.find(Key);
  if (It == F->S.O.end() || (!Kept && !is(ts_node_parent(C), "expression_statement")))
    return;
  // Only a model the flow knows is a module (built here, or moved) has a device to compare.
  auto Model = F->S.V.find(It->second.Model);
  if (Model == F->S.V.end() || Model->second.Kind != ValueKind::Module)
    return;
  auto [L, New] = Loads.try_emplace(C.id);
  if (New) {
    L->second.Optimizer = Key;
    L->second.Model = It->second.Model;
    L->second.Created = It->second.Created;
    L->second.StateDevice = Model->second.Dev;
  } else if (!(L->second.StateDevice == Model->second.Dev)) {
    L->second.StateDevice = Device(); // another pass through a loop found it elsewhere
  }
  It->second.Loaded = mark(C);
}

void DeviceFlow::Impl::modelChanged(std::string_view Model, TSNode At, bool Replaced, std::optional<Device> To) {
  if (Model.empty())
    return;
  for (auto &[Key, O] : F->S.O) {
    if (O.Model != Model || !O.Loaded)
      continue;
    OptimizerLoad &L = Loads[Marked[O.Loaded.Index].id];
    if (!L.Change) {
      L.Change = mark(At);
      L.Replaced = Replaced;
      L.NewDevice = To ? *To : Device();
    }
    O.Loaded = NodeMark{}; // the first change after the load decides
  }
}

void DeviceFlow::Impl::forgetModel(std::string_view Key) {
  // `x = ...` rebinds x, and with it `x.y`: an optimizer so named, or built over such a
  // model, is another one now.
  auto Covers = [&](std::string_view Path) {
    return Path.size() >= Key.size() && Path.substr(0, Key.size()) == Key &&
           (Path.size() == Key.size() || Path[Key.size()] == '.' || Path[Key.size()] == '[');
  };
  for (auto It = F->S.O.begin(); It != F->S.O.end();)
    if (Covers(It->first) || Covers(It->second.Model))
      It = F->S.O.erase(It);
    else
      ++It;
}

} // namespace torchlint::flow
