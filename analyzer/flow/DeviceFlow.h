// The device flow: an abstract interpretation of every function (and the module body) of a
// file in program order, giving each evaluated expression its kind, device, dtype and rank
// with the node that established them. Rules ask it questions about the nodes the dispatcher
// hands them; they never walk the tree themselves. Linear in the file: one pass per
// statement, loops iterated at most three times, no path splitting.
#pragma once

#include "diag/Diagnostic.h"
#include "flow/Value.h"
#include "semantic/FileContext.h"
#include "semantic/SemanticModel.h"

#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torchlint::flow {

/// What became of an optimizer's loaded state: `opt.load_state_dict(...)` put it on the
/// device of the model's parameters at that moment; then, on a path from the load, the model
/// moved or its parameters were replaced (or neither).
struct OptimizerLoad {
  std::string_view Optimizer, Model; // their paths as written (`opt`, `self.model`)
  NodeMark Created;      // the statement that built the optimizer over `Model.parameters()`
  Device StateDevice;    // where the state went: the parameters' device at the load
  NodeMark Change;       // the first move or replacement of the model after the load (0: none)
  bool Replaced = false; // Change replaced the parameters rather than moving them
  Device NewDevice;      // for a move: where the model went (unknown when the code does not say)
  std::string Through;   // a helper of another module that loads it: "`restore` (ckpt.py:4)"
};

struct ModuleSummary;

class DeviceFlow {
public:
  /// Analyses the file rooted at \p Root. \p Model must outlive the flow.
  DeviceFlow(TSNode Root, const SemanticModel &Model);
  /// The flow as an analysis of the lint run (`Ctx.analysis<flow::DeviceFlow>()`): a file
  /// that imports neither `torch` nor `torch.nn` is not interpreted, and nothing has a value.
  explicit DeviceFlow(const FileContext &File);
  /// Code that changes where every factory of the file puts its tensors.
  static FileWide fileWide();
  ~DeviceFlow();

  /// The value of an expression the flow evaluated (joined over every path that reaches
  /// it), or nullptr where it did not evaluate it (comprehensions, lambdas, unknown code).
  const Value *valueOf(TSNode Expr) const;
  /// Whether valueOf() may know anything below \p Node: false where the flow has a value for
  /// no expression in its text (code it skipped, as most of a library). A rule whose every
  /// question is about \p Node's subexpressions asks this first, before reading arguments.
  /// Cheapest asked in document order, as the rules are run.
  bool knowsWithin(TSNode Node) const;
  /// The same for a node the walk collected, by the end byte it noted: the tree that holds a
  /// node's end has long left the cache when the rules run.
  bool knowsWithin(const NodeRef &N) const { return knowsWithinBytes(ts_node_start_byte(N.Node), N.End); }
  /// Whether \p Node (a call) runs in every step of a loop that also calls `backward()` or
  /// `step()`.
  bool inTrainingLoop(TSNode Node) const;
  /// For `opt.load_state_dict(...)` as a statement, where `opt` was built in the same function
  /// over one model's parameters and the model's device was known: what became of the state.
  const OptimizerLoad *optimizerLoad(TSNode LoadCall) const;
  /// A short description of where a value got its device, for notes: "moved at line 9".
  std::string deviceReason(const Value &V) const;
  /// Where a value got its dtype: "cast at line 4".
  std::string dtypeReason(const Value &V) const;
  /// The node a value's provenance marks (null for none).
  TSNode node(NodeMark M) const;
  /// A note on where \p Expr got its device, placed on the node that established it:
  /// "`labels` is on cpu (from the DataLoader at line 15)".
  Note deviceNote(TSNode Expr, const Value &V, const NodeText &Text) const;
  /// A note on where \p Expr got its dtype: "`x` is float64 (from NumPy at line 3)".
  Note dtypeNote(TSNode Expr, const Value &V, const NodeText &Text) const;

  /// After the lint: the module's summary exports (\p Out's Names, for \p Out's Module and
  /// Only), where this flow gives what a summarising flow would; false where it may not.
  /// Analyses what the lint skipped, so only once the lint's rules are done.
  bool summarizeAfterLint(ModuleSummary &Out) const;

  class Impl;

private:
  bool knowsWithinBytes(uint32_t Begin, uint32_t End) const;
  std::unique_ptr<Impl> P;
};

/// Parses a device string the way `torch.device` accepts the common ones ("cpu", "cuda",
/// "cuda:1", "mps", "meta"); an unknown device for anything else.
Device parseDevice(std::string_view S);

} // namespace torchlint::flow
