// `torchlint generate-man`: the torchlint(1) page, written from the registered command-line
// options and the rule registry, so the page cannot drift from the program.
#pragma once

#include "lint/Rule.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>

#include <string_view>

namespace torchlint {

/// A group of options: those of \p Category, under the heading \p Title.
struct ManOptionGroup {
  const llvm::cl::OptionCategory *Category;
  std::string_view Title;
};

void writeManPage(llvm::raw_ostream &OS, llvm::ArrayRef<ManOptionGroup> Groups, const Registry &R,
                  std::string_view Version);

} // namespace torchlint
