// What a file's analysis may ask of the project it belongs to: its own module name (so that
// `from .data import make_batch` means `pkg.data.make_batch`), the names a star import binds,
// and the summary of the project module that defines a qualified name. The application
// implements it over the files on disk (or the editor's open documents); without a project,
// a file is analysed alone and every other module is unknown.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace torchlint {

namespace flow {
struct ModuleSummary;
}
class FileContext;

/// The absolute module a relative import names (`..data` from `pkg.sub.train` is `pkg.data`),
/// given the importing file's module name and whether it is a package's `__init__.py`; empty
/// when the import climbs above the top package or the file has no module name.
std::string absoluteModule(std::string_view Relative, std::string_view Module, bool IsPackage);

/// Whether \p Qualified is PyTorch's own (`torch`, `torch.nn.functional.pad`): the PyTorch
/// table says what those are, so a summary of torch's source (when torch itself is the project
/// being linted) never stands in for it.
inline bool isTorchName(std::string_view Qualified) {
  return Qualified == "torch" || Qualified.substr(0, 6) == "torch.";
}

class ProjectView {
public:
  virtual ~ProjectView() = default;
  /// The dotted name of the file being analysed within the project (`pkg.train`), or empty
  /// when it has none (a file outside the project root, standard input).
  virtual std::string_view moduleName() const = 0;
  /// Whether the file is a package's `__init__.py` (its relative imports start in itself).
  virtual bool isPackage() const = 0;
  /// The names `from <Module> import *` binds that stand for other modules or their members
  /// (`torch`, `nn`, `Linear`...), local name -> qualified name, honouring `__all__`; empty
  /// for a module outside the project.
  virtual std::vector<std::pair<std::string, std::string>> starImports(std::string_view Module) const = 0;
  /// The summary of the project module that defines \p Qualified (`pkg.data.make_batch`, after
  /// following re-exports such as `pkg/__init__.py`'s `from .data import make_batch`), with
  /// the name inside it in \p Name; nullptr for names outside the project.
  virtual const flow::ModuleSummary *definition(std::string_view Qualified, std::string &Name) const = 0;
  /// Whether the project function \p Qualified chooses the process's CUDA device (its summary
  /// says it calls `torch.cuda.set_device`): a call of it counts as that call.
  virtual bool choosesDevice(std::string_view Qualified) const {
    (void)Qualified;
    return false;
  }
  /// Called once the file's lint is done, with its analyses still alive: a project that is
  /// linting every module anyway takes the file's summary from them instead of parsing again.
  virtual void analysed(const FileContext &) const {}
};

} // namespace torchlint
