// What a batch of files imports, read from their text before any of them is parsed: the
// names of project modules some file of the batch may ask about. A module's summary then
// covers only those names (a library's modules define far more than others import), and a
// name the scan did not foresee is summarised when first asked (ProjectIndex), so the scan
// may err only on the side of wanting too much.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torchlint {

struct ImportWants {
  /// Module -> the names imported from it (`from pkg.data import make_batch`).
  std::unordered_map<std::string, std::set<std::string, std::less<>>> Names;
  /// Modules any of whose names may be read: `from pkg.data import *` outside a package's
  /// `__init__.py`, and a module of another top package bound whole (`import lib.data`, `from
  /// lib import data`). A module of the importer's own top package bound whole is wanted for
  /// the names the text reads through the binding (`data.make_batch` -> `make_batch`), in Names.
  std::set<std::string, std::less<>> Whole;
  /// `from .resnet import *` in a package's `__init__.py`, package -> module: the package
  /// re-exports the module's names, so what is wanted of the package is wanted of the module
  /// (rather than all of it). Resolved by finish().
  std::vector<std::pair<std::string, std::string>> Reexports;
  /// Every module a file star-imports, re-exported or not: the ones whose import tables are
  /// read, for starImported().
  std::set<std::string, std::less<>> Starred;

  /// Carries what is wanted of re-exporting packages to the modules they re-export; call once
  /// every file is scanned, before wanted().
  void finish();

  /// What of module \p Module is wanted: nullptr with \p All set when every name is; nullptr
  /// and \p All unset when nothing is. The scan resolved imports as the project root sees them,
  /// but Python also finds a script's siblings beside it (`data` for `scripts/data.py`), so every
  /// dotted suffix of \p Module counts too.
  std::set<std::string, std::less<>> wanted(std::string_view Module, bool &All) const;

  /// Whether a file of the batch star-imports \p Module (a package's re-export included), so that
  /// its import table is read for the names it binds, wanted or not. Dotted suffixes count, as
  /// in wanted().
  bool starImported(std::string_view Module) const;
};

/// Adds the imports of the Python source \p Text, whose module is \p Module (a package's
/// `__init__.py` when \p IsPackage; relative imports start there), to \p Out. Reads import
/// statements at any indentation (under `if`, `try`, in functions), with parenthesised and
/// backslash-continued lists and `;`-separated statements. A line inside a string that looks
/// like an import is read too: it only makes the summaries cover more. \p Named, when given,
/// receives every module the statements name (`pkg.data` and `pkg.data.make_batch` for `from
/// pkg.data import make_batch`: the latter may be a module too). `torch.*` modules are read
/// for their star importers alone (the PyTorch table says what their names are).
void scanImports(std::string_view Text, std::string_view Module, bool IsPackage, ImportWants &Out,
                 std::vector<std::string> *Named = nullptr);

} // namespace torchlint
