// The rewrite of a whole file to one device chosen at run time: "device-aware programming",
// the advice the project grew from (choose the device once, let every tensor and module
// follow it), as the unsafe fix that TL105, TL106 and TL402 offer on their first finding of a
// file. An analysis of the lint run, built only when one of them reports.
#pragma once

#include "diag/Diagnostic.h"
#include "semantic/FileContext.h"

#include <optional>
#include <vector>

namespace torchlint::torch {

class PortableRewrite {
public:
  explicit PortableRewrite(const FileContext &File);

  /// The rewrite: nullopt when nothing in the file can be made portable, or when the program
  /// is CUDA-only by design (it asserts CUDA, or imports a library that only runs on CUDA).
  const std::optional<Fix> &fix() const { return Result; }
  /// CUDA-only code the rewrite leaves as it was, each saying why.
  const std::vector<Note> &leftAlone() const { return Left; }
  /// Gives \p D the rewrite and, as notes, what it leaves alone.
  void attachTo(Diagnostic &D) const;

  /// What an edit elsewhere in the file changes of the rewrite: the placements it rewrites
  /// spell `cuda`.
  static FileWide fileWide();

private:
  std::optional<Fix> Result;
  std::vector<Note> Left;
};

} // namespace torchlint::torch
