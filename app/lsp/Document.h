// An open document of the LSP server: its text and tree, its findings, and the edits not yet
// linted. Shared by the server's files (Server.cpp, Notebooks.cpp) only.
#pragma once

#include "lsp/Incremental.h"
#include "lsp/Notebooks.h"
#include "lsp/Server.h"
#include "parse/Tree.h"
#include "source/SourceFile.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace torchlint::lsp {

struct Server::Document {
  std::string Uri, Path;
  int64_t Version = 0;
  std::unique_ptr<SourceFile> File;
  TreePtr Tree;
  std::vector<torchlint::Diagnostic> Diags;
  bool Linted = false;      // Diags are the findings of the current text and settings
  bool NeedsCheck = false;  // Diags came from a unit re-lint: check the whole file when idle
  std::optional<WordIndex> Words; // of the current text, when a unit re-lint computed it
  std::string AbsPath;            // as the project knows it
  std::set<std::string> Deps;     // the project modules its last lint read (absolute paths)
  /// The changes applied since the last lint (several when they were queued together): the
  /// text before them, what a unit re-lint needs of it, and one span covering them all.
  struct Changes {
    bool TryUnit = false; // ranged changes of a linted document: maybe one unit's re-lint
    bool Reparse = false;
    bool OldHadError = false;
    std::vector<TopUnit> OldUnits;
    std::unique_ptr<SourceFile> OldFile;
    std::optional<WordIndex> OldWords;
    std::optional<EditSpan> Span;
  };
  std::optional<Changes> Unlinted;
  /// A notebook's cells (File is then the module they join into, and positions the client
  /// sends or receives are in cells); null for a Python file.
  std::unique_ptr<Notebook> Nb;
  std::set<std::string> ShownCells; // the notebook's cells that showed findings when last published
};

} // namespace torchlint::lsp
