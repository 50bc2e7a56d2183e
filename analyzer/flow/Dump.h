// A readable dump of what the semantic model and the device flow know about a file: every
// scope with its roles, every collected node's context flags, every value the flow gave an
// expression. For rule authors (`torchlint dump-flow FILE`) and for checking that a change
// to the engine leaves its answers alone (diff two dumps over a corpus).
#pragma once

#include <llvm/Support/raw_ostream.h>

#include <string_view>

namespace torchlint::flow {

/// Parses \p Source, runs the walk and the flow as a lint does, and writes what they found.
void dumpAnalysis(std::string_view Source, llvm::raw_ostream &OS);

} // namespace torchlint::flow
