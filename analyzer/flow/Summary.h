// A module's summary: what its top-level names are to the device flow of the files that
// import it. Computed from the module's own text alone (other modules' values are never
// consulted), so it is the same whichever file asks first, can be cached by content, and
// import cycles cannot change it.
#pragma once

#include "flow/Value.h"
#include "semantic/FileContext.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace torchlint::flow {

/// A value another module gives, detached from that module's analysis.
struct ExportedValue {
  ValueKind Kind = ValueKind::Unknown;
  DeviceKind Dev = DeviceKind::Unknown;
  int32_t Index = -1;
  std::string Configured; // DeviceKind::Configured: the module-level name holding it (`config.DEVICE`)
  DType Type = DType::Unknown;
  Rank R = Rank::Unknown;
  Origin How = Origin::None; // how the defining module gave it its device
  uint32_t HowLine = 0;      // and on which line of it (1-based; 0: unknown)
  uint16_t Flags = FlagNone; // FlagParamless, FlagMovesInputs, FlagPinned
  /// What a function returns of its arguments (`return t.float() / 255`, `return t.to(device)`):
  /// the tensor passed at position Arg (-1: none), with the argument's own device where ArgDev,
  /// else that of the device or tensor passed at position DevArg, else Dev above; with the
  /// argument's dtype where ArgType, else Type above; with the argument's rank where ArgRank
  /// (elementwise work), else an unknown one.
  int8_t Arg = -1, DevArg = -1;
  /// AlsoModule: a module passed there comes back with the device a tensor would
  /// (`return model.to(device)`).
  bool ArgDev = false, ArgType = false, ArgRank = false, AlsoModule = false;
  bool operator==(const ExportedValue &) const = default;
};

/// One top-level name a module defines.
struct Export {
  enum class Kind : uint8_t {
    Function,    // a call returns Result (what the function builds itself; unknown otherwise)
    ModuleClass, // an nn.Module subclass: an instance, told nothing of devices, is Result
    Constant,    // a module-level value: a device, a tensor, a DataLoader
  };
  Kind What = Kind::Function;
  ExportedValue Result;
  uint32_t Line = 0; // 1-based line of the definition
  /// A function's plain parameters, in order (for arguments passed by keyword).
  std::vector<std::string> Params;
  /// Bits by parameter position: which the function may move (`p.to(...)`, or hands on to
  /// other code), and on which it calls `.load_state_dict(...)` (`restore(model, opt, path)`).
  uint32_t MayMove = ~0u, LoadsState = 0;
  /// A function's Result that is a tuple (`return images, labels`): its elements.
  std::vector<ExportedValue> Parts;
  /// A function that calls `torch.cuda.set_device(...)` (or enters `torch.cuda.device(...)`)
  /// in its own body: calling it chooses the process's device.
  bool SetsDevice = false;
  bool operator==(const Export &) const = default;
};

struct ModuleSummary {
  std::string Module;  // dotted name within the project (`pkg.data`)
  std::string Display; // its path for notes, relative to the project root (`pkg/data.py`)
  std::map<std::string, Export, std::less<>> Names;
  /// The module's own imports, local name -> qualified name (relative ones made absolute):
  /// re-exports (`from .data import make_batch` in `__init__.py`) and what a star import of
  /// this module binds.
  std::map<std::string, std::string, std::less<>> Imports;
  std::vector<std::string> Stars; // modules it star-imports (absolute)
  std::optional<std::vector<std::string>> All; // `__all__`, when it is a literal list or tuple
  /// The names the module binds at top level other than by import (`def`, `class`, assignments,
  /// loop targets...), a superset of those in Names: a name outside it is found through
  /// Imports and Stars alone, so the import table answers for it. nullopt: not read (any name).
  std::optional<std::set<std::string, std::less<>>> Defined;
  /// When set, only these of the module's names were summarised (the names the files of a
  /// batch import): another name is not known to be absent.
  std::optional<std::set<std::string, std::less<>>> Only;
  /// The module files this summary read besides its own (the import tables of its star
  /// imports, which decide what its names are), absolute path -> hash of the text read: it
  /// holds while each keeps that content. Filled in by whoever resolves the imports.
  std::vector<std::pair<std::string, uint64_t>> Reads;
  /// Whether \p Name was summarised (present in Names or known to have nothing to say).
  bool covers(std::string_view Name) const { return !Only || Only->count(Name); }
  bool operator==(const ModuleSummary &) const = default;
};

/// Only the module's imports, star imports and `__all__` (what a star import of it binds):
/// never reads another module. With \p WithDefined, also the names it defines (Defined).
ModuleSummary importTable(const FileContext &File, std::string Module, std::string Display,
                          bool WithDefined = true);

/// Summarises the analysed file \p File (its semantic model knows its module name through its
/// project, so relative imports come out absolute). \p Module and \p Display name it. With
/// \p Only, just those names are summarised (ModuleSummary::Only).
ModuleSummary summarize(const FileContext &File, std::string Module, std::string Display,
                        const std::set<std::string, std::less<>> *Only = nullptr);

/// `__all__ = ["a", "b"]` at module level (and `+=` of such lists); nullopt when there is
/// none or it is computed.
std::optional<std::vector<std::string>> literalAll(TSNode Root, const NodeText &Text);

/// A stable hash of a summary: a file whose lint used summaries is stale when one changes.
uint64_t summaryHash(const ModuleSummary &S);

} // namespace torchlint::flow
