// What each name of a scope is bound to, and where: parameters with their annotations and
// defaults, assignments with their values, loop targets, `with ... as`, imports, `def` and
// `class`, `global`/`nonlocal`, the walrus, `except ... as`, `del`, match patterns. Read from
// the tree once per scope, on first use (SemanticModel::bindings), for every rule and query
// that asks what a plain name holds.
#pragma once

#include "parse/Tree.h"

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace torchlint {

/// One parameter of a function or lambda, in the order written.
struct Parameter {
  enum class Form : uint8_t {
    Plain,     // `x`, `x: int`
    Default,   // `x=1`, `x: int = 1`
    ListSplat, // `*args`
    DictSplat, // `**kwargs`
    Separator, // a bare `*` or `/`
  };
  Form How = Form::Plain;
  TSNode Node{};       // the parameter as written
  TSNode Name{};       // its identifier (the name after `*` or `**` for splats); null for separators
  TSNode Annotation{}; // the `type` of `x: int`, or null
  TSNode Default{};    // the default value, or null
};
/// The parameters of a `function_definition` or `lambda` (stored inline for the usual few).
using ParameterList = llvm::SmallVector<Parameter, 6>;
ParameterList parametersOf(TSNode Function);

enum class BindingKind : uint8_t {
  Parameter,
  Assignment,          // `x = value` (also each name of `a = b = value`)
  Unpacking,           // a name in `a, b = ...`, or `x = yield`, `x = a, b`
  AugmentedAssignment, // `x += 1`
  LoopTarget,          // `for x in ...`
  WithItem,            // `with value as x`
  Import,              // `import x`, `from m import x as y` (every name the statement mentions)
  Definition,          // `def x`, `class x`
  Declaration,         // `global x`, `nonlocal x`: bound in another scope
  Walrus,              // `(x := value)`
  ExceptAlias,         // `except E as x`, and names in other `as` patterns
  Delete,              // `del x`
  MatchPattern,        // a name in a `case` pattern
};

struct Binding {
  BindingKind Kind;
  std::string_view Name;
  TSNode Site{};  // the binding's statement or clause (a parameter: the parameter)
  TSNode Value{}; // Assignment: the value (the last of a chain); WithItem: the context manager
  uint32_t Index = 0; // Parameter: its position among the parameters
};

/// The bindings of one scope (a function's parameters and statements, or the module's
/// statements), nested definitions, lambdas and comprehensions excepted.
class ScopeBindings {
public:
  /// Whether the scope was too large to read (then every name counts as unknown).
  bool TooLarge = false;
  /// Every binding, in document order (parameters first).
  const std::vector<Binding> &all() const { return All; }
  /// The bindings of \p Name, in document order; empty when the scope does not bind it.
  std::vector<const Binding *> of(std::string_view Name) const;

  /// Reads the bindings of the scope whose node is \p Owner (a `module`, a
  /// `function_definition`, a `lambda`).
  static ScopeBindings read(TSNode Owner, const NodeText &Text);

private:
  std::vector<Binding> All;
  std::unordered_map<std::string_view, std::vector<uint32_t>> ByName;
};

} // namespace torchlint
