// The single walk over a parsed file: builds the SemanticModel and collects, in document
// order, the nodes the rules asked for, each with its scope and context flags.
#pragma once

#include "semantic/SemanticModel.h"

#include <vector>

namespace torchlint {

/// A set of grammar symbols, built from node kind names.
class KindSet {
public:
  KindSet();
  void add(std::string_view Kind);
  bool contains(TSSymbol S) const { return S < Bits.size() && Bits[S]; }

private:
  std::vector<bool> Bits;
};

struct WalkResult {
  std::vector<NodeRef> Nodes;   // nodes of the wanted kinds, outside ERROR subtrees
  std::vector<CallParts> Calls{CallParts{}}; // by NodeRef::Parts (0: none)
  std::vector<TSNode> Children;    // the named children met of argument lists and Kept's nodes
  std::vector<KeptChildren> Kept; // in document order (an enclosing node first)
  std::vector<TSNode> Comments; // every comment
  TSNode FirstError{};          // first ERROR or MISSING node, if any
  bool HasError = false;
};

/// \p Reuse: an earlier result whose lists' memory the walk may fill again (a large file's are
/// megabytes: allocated afresh for each file, the walk paid for their pages every time).
WalkResult walkFile(TSNode Root, SemanticModel &Model, const KindSet &Wanted, WalkResult Reuse = {});

/// Whether a text speaks of CUDA, GPUs or devices at all (test code that names no device runs
/// on the CPU). Guards are read from the tree instead (semantic/Guards.h).
bool mentionsAccelerator(std::string_view Text);

} // namespace torchlint
