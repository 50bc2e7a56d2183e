// Shared by the libFuzzer targets: the linter with every rule, and invariant checks that
// abort (so libFuzzer saves the input) through require() with a line saying which broke.
#pragma once

#include "FuzzTargets.h"
#include "lint/Linter.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint::fuzz {

/// The registry's linter, built once.
const Linter &linter();
/// Every rule enabled (`--select ALL`).
const LintSettings &allRules();

/// What must hold of any lint of \p File: ranges, notes and fix edits inside the file, each
/// fix's edits non-overlapping, codes known, messages present, positions round-trip.
void checkDiagnostics(const SourceFile &File, const std::vector<Diagnostic> &Diags);

} // namespace torchlint::fuzz
