// What a Python file's names mean: imports resolved to qualified names, classes with
// their resolved bases (nn.Module, Dataset), functions and their roles (forward, dataset
// item access, DataLoader callbacks), and per-node context flags (inside a CUDA guard,
// inside the place that chooses the device). Built in the same single walk that collects
// the nodes the rules asked for.
#pragma once

#include "parse/Tree.h"
#include "semantic/Bindings.h"
#include "semantic/Project.h"

#include <llvm/ADT/SmallVector.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace torchlint {

enum class ScopeKind : uint8_t { Module, Class, Function, Lambda };

/// Roles a function plays at run time, as far as the file shows.
enum FunctionRole : uint8_t {
  RoleNone = 0,
  RoleForward = 1 << 0,    // forward of an nn.Module, or a method it calls, or code nested in them
  RoleDataWorker = 1 << 1, // Dataset.__getitem__/__iter__, collate_fn, worker_init_fn, and helpers
};

struct Scope {
  ScopeKind Kind;
  TSNode Node;           // module, class_definition, function_definition, lambda
  int32_t Parent = -1;   // enclosing scope
  int32_t Class = -1;    // for a class: its index in classes(); for a method: its class
  std::string_view Name; // class or function name
  uint8_t Roles = RoleNone; // effective roles (own, or inherited from an enclosing function)
};

struct ClassInfo {
  std::string_view Name;
  TSNode Node;
  int32_t Scope = -1;
  std::vector<std::string> Bases; // qualified where imports resolve them, else the local name
  bool IsModule = false;
  bool IsDataset = false;
  bool IsOptimizer = false; // derives from `torch.optim.Optimizer`
};

/// Context of one collected node, computed by the walker.
enum NodeFlag : uint8_t {
  FlagCudaGuarded = 1 << 0, // under a condition about CUDA/GPU/device, or after an early exit on one
  FlagDeviceChoice = 1 << 1, // in the value assigned to a device variable: the place that chooses it
  FlagAfterSetDevice = 1 << 2, // after `torch.cuda.set_device(...)` in the same block: `.cuda()` means that device
  FlagExpectsError = 1 << 3,   // in `with pytest.raises(...)` / `self.assertRaises(...)`: the misuse is the test
  FlagSafeGlobals = 1 << 4,    // in `with torch.serialization.safe_globals(...)`: loads are weights-only by design
  FlagTypeErrorFallback = 1 << 5, // in an `except TypeError` handler: a fallback for an older API
};

struct NodeRef {
  TSNode Node;
  int32_t Scope; // innermost enclosing scope
  uint8_t Flags;
  // ts_node_symbol(Node), as the walk read it: asked again later, it reads a tree that the
  // walk has since left, and would miss the cache at every node.
  TSSymbol Sym;
  // For a `call` of the plain shape (a callee and its argument list, no comment between):
  // its entry in WalkResult::Calls, where the walk noted its two children; 0 otherwise. (The
  // children live apart: two thirds of the wanted nodes are no calls, and the dispatcher
  // reads every node.)
  uint32_t Parts = 0;
  // The symbol of the node's parent, as the walk met it: ts_node_parent walks down from the
  // root, so a rule that asks it of every node in a deep expression is quadratic.
  TSSymbol ParentSym = 0;
  // The node's end byte, as the walk read it (its text without a look at the tree).
  uint32_t End = 0;
};

/// Whether a collected node is of kind \p K, by the symbol the walk noted.
inline bool is(const NodeRef &N, std::string_view K) {
  const std::vector<std::string_view> &Names = symbolNames();
  return N.Sym < Names.size() && Names[N.Sym] == K;
}

/// A call's two children, as the walk met them.
struct CallParts {
  TSNode Callee{}, ArgList{};
  bool Arguments = false; // ArgList is an `argument_list` (not a generator expression)
  // The callee's symbol and end, as the walk read them (0: not read): the dispatch reads
  // every call's callee, long after the walk, when a large file's tree has left the cache.
  TSSymbol CalleeSym = 0;
  uint32_t CalleeEnd = 0;
  // The argument list's named children as the walk met them (comments too), at
  // WalkResult::Children[ArgsFrom...]; ArgsCount is NotMet where the walk did not enter it.
  static constexpr uint32_t NotMet = UINT32_MAX;
  uint32_t ArgsFrom = 0, ArgsCount = NotMet;
};

/// The named children of a node of the kinds the flow reads the children of (the module, a
/// block, an expression statement, a collection, a boolean or comparison), as the walk met them:
/// WalkResult::Children[From...]. A node the walk did not enter fully has none.
struct KeptChildren {
  TSNode Node{};
  uint32_t Start = 0; // the node's start byte
  uint32_t From = 0, Count = CallParts::NotMet;
};

class SemanticModel {
public:
  /// Code that changes what names mean, or what role a function plays, beyond its own
  /// definition: imports, `global`, `nonlocal`, module attributes set from afar, DataLoader
  /// callbacks (they make other functions DataLoader workers), `set_device` (it gives
  /// `.cuda()` after it a device).
  static struct FileWide fileWide();
  explicit SemanticModel(std::string_view Source) : Text(Source) {}

  const NodeText &text() const { return Text; }

  /// Qualified name of a dotted expression (`T.cuda.amp.autocast` -> `torch.cuda.amp.autocast`)
  /// when its root name is imported; empty otherwise.
  std::string qualifiedName(TSNode Expr) const;
  /// The same, for an expression whose text and symbol the caller already holds.
  std::string qualifiedName(TSNode Expr, std::string_view Spelled, TSSymbol Sym) const;
  /// Whether \p Expr names exactly the qualified name \p Q (e.g. "torch.load").
  bool refersTo(TSNode Expr, std::string_view Q) const;
  /// The qualified name an imported local name is bound to, or empty.
  std::string_view importOf(std::string_view Local) const;
  /// Local names bound to a module or object from `torch` (for fixes that need one).
  std::string_view localNameFor(std::string_view Qualified) const;
  /// Whether the file imports `torch` itself (`import torch`, `import torch as T`) or `torch.nn`.
  bool importsTorch() const { return !localNameFor("torch").empty() || !localNameFor("torch.nn").empty(); }
  /// The identifier at the root of a dotted expression (`T` of `T.cuda.amp.autocast`, the
  /// name itself for a bare name); null for other expressions.
  TSNode rootName(TSNode Expr) const;
  /// For a dotted expression (`T.cuda.amp.autocast`) whose root name is bound to the import
  /// \p Module (`torch`): that root identifier; else a null node. A bare name has no root.
  TSNode rootImportedAs(TSNode Expr, std::string_view Module) const;
  /// The project the file belongs to (imports of its own modules, star imports), or nullptr
  /// for a file analysed alone.
  const ProjectView *project() const { return Project; }
  void setProject(const ProjectView *P) { Project = P; }
  /// Every name an import binds, local -> qualified (relative imports made absolute where the
  /// project names the file's module).
  const std::unordered_map<std::string_view, std::string> &imports() const { return Imports; }
  /// Whether an import binds a name that does not say the accelerator word its module's name
  /// holds (`from torch.cuda import is_available`, `import torch.cuda as tc`): a condition's
  /// text alone then cannot tell that it says nothing of the accelerator.
  bool importHidesAccelerator() const { return HidesAccelerator; }
  /// The modules `from m import *` reads (absolute), in the order of the file.
  const std::vector<std::string> &starImports() const { return Stars; }

  const std::vector<Scope> &scopes() const { return Scopes; }
  const Scope &scope(int32_t Id) const { return Scopes[Id]; }
  const std::vector<ClassInfo> &classes() const { return Classes; }
  /// The nearest enclosing function scope (not a class), or -1 at module level.
  int32_t enclosingFunction(int32_t ScopeId) const;
  /// The innermost scope holding \p N (0, the module, for a node outside every other scope),
  /// for a node the walk did not collect with its scope.
  int32_t scopeAt(TSNode N) const;
  /// Whether the function enclosing \p ScopeId carries a decorator whose callee's last part
  /// is \p Name (`@functools.lru_cache(maxsize=8)`, `@cache`).
  bool decoratedWith(int32_t ScopeId, std::string_view Name) const;
  /// The class a function scope is a method of (directly), or nullptr.
  const ClassInfo *methodClass(int32_t ScopeId) const;
  bool inRole(int32_t ScopeId, FunctionRole R) const { return (Scopes[ScopeId].Roles & R) != 0; }
  /// Whether the class of the method \p ScopeId is a test's toy: defined inside a test function
  /// (`test_*`) or a pytest fixture whose code names no device, so it runs on the CPU.
  bool testToyClass(int32_t ScopeId) const;
  /// The `self.<name>(...)` calls of the method \p MethodScope from methods of its own class.
  std::vector<TSNode> selfCallsTo(int32_t MethodScope) const;
  /// Byte ranges of the plain string literals and comments the walk met, in document order:
  /// prose, not code (docstrings are a good part of a library's bytes).
  const std::vector<std::pair<uint32_t, uint32_t>> &proseRanges() const { return Prose; }
  /// The class of this file a plain name means at module level, or null.
  const ClassInfo *localClass(std::string_view Name) const;
  /// The class or function (\p Kind) of this file that the plain name \p Name means inside
  /// scope \p From: defined in \p From itself or in an enclosing function or the module, the
  /// innermost first (a class body's names are not seen from its methods, as in Python); -1 if
  /// none. A nested helper, or a class defined in a function, is found from the code beside it.
  int32_t definitionFrom(std::string_view Name, int32_t From, ScopeKind Kind) const;
  /// classFrom() as seen from the node \p At (its scope is looked up only where a class of that
  /// name exists).
  const ClassInfo *classAt(std::string_view Name, TSNode At) const;
  const ClassInfo *classFrom(std::string_view Name, int32_t From) const {
    int32_t S = definitionFrom(Name, From, ScopeKind::Class);
    return S < 0 || Scopes[S].Class < 0 ? nullptr : &Classes[Scopes[S].Class];
  }
  /// Whether the file's text holds \p Word anywhere, remembered per word: a rule that needs
  /// a file-wide call (`init_process_group`) rules out every call of the other files at once.
  bool textHas(std::string_view Word) const;
  /// Whether the file chooses a device anywhere: a value assigned to a device-named variable
  /// or attribute, a device-named parameter's default, a function named after the device.
  bool choosesDevice() const { return ChoosesDevice; }
  void noteDeviceChoice() { ChoosesDevice = true; }
  /// What scope \p Id binds (a function's or lambda's parameters and statements, or the
  /// module's), read on first use; empty for class scopes.
  const ScopeBindings &bindings(int32_t Id) const;
  /// The parameters of the function or lambda \p Function (parametersOf()), read once: the
  /// flow, the bindings and several rules ask for the same function's.
  const ParameterList &parameters(TSNode Function) const;
  /// The function or module scope whose bindings define the plain name \p Name as seen from
  /// scope \p From (the innermost enclosing function that binds it, else the module), with
  /// those bindings; nullopt in a class body, or when a scope on the way is too large to read.
  std::optional<std::pair<int32_t, const ScopeBindings *>> bindingScope(std::string_view Name, int32_t From) const;
  /// Whether \p Local is bound by more than one import, or by one under `try` or under an `if`
  /// with an `elif`/`else`: a compatibility shim.
  bool conditionalImport(std::string_view Local) const;

  // Building (used by the walker).
  int32_t addScope(Scope S);
  /// \p MayHide false: the caller knows \p Qualified names no accelerator that \p Local does
  /// not (importHidesAccelerator()), and it need not be read again.
  void addImport(std::string_view Local, std::string Qualified, bool MayHide = true);
  /// An import statement binds \p Local (relative imports too).
  void noteStarImport(std::string Module) { Stars.push_back(std::move(Module)); }
  /// A name `from m import *` binds (kept here: the file's text does not hold it).
  void addStarImport(std::string Local, std::string Qualified);
  /// Whether \p Local was bound by a star import (not one of the module's own imports).
  bool starBound(std::string_view Local) const;
  void noteImportSite(std::string_view Local, TSNode Statement) { ImportSites.emplace_back(Local, Statement); }
  int32_t addClass(ClassInfo C);
  void setClassScope(int32_t Class, int32_t ScopeId) { Classes[Class].Scope = ScopeId; }
  void noteSelfCall(int32_t FromScope, std::string_view Method, TSNode Call);
  void noteWorkerCallback(int32_t FromScope, TSNode Value);
  void noteProse(TSNode N) { Prose.emplace_back(ts_node_start_byte(N), ts_node_end_byte(N)); }
  /// Resolves class kinds and function roles once the walk is done.
  void finish();

private:
  std::string resolve(TSNode Expr, std::string_view Spelled, TSSymbol Sym) const;
  /// Whether the imported name \p Local means something else at \p At: bound again after the
  /// import (the latest binding wins), or bound in the function around \p At.
  bool rebound(std::string_view Local, TSNode At) const;
  mutable std::unordered_set<std::string_view> MayRebind; // names the text writes before a lone `=`
  mutable bool RebindScanned = false;
  bool memoFor(TSNode Expr) const { return Expr.id && Expr.id == MemoId && ts_node_start_byte(Expr) == MemoStart; }

  NodeText Text;
  std::unordered_map<std::string_view, std::string> Imports;
  bool HidesAccelerator = false;
  // The expression qualifiedName() resolved last, and its answer: the rules ask about the
  // same callee one after another (refersTo for each name they know).
  mutable const void *MemoId = nullptr;
  mutable uint32_t MemoStart = 0;
  mutable std::string MemoName;
  bool ChoosesDevice = false;
  mutable std::vector<std::pair<std::string, bool>> WordsSeen; // textHas(): a few words
  const ProjectView *Project = nullptr;
  std::vector<std::string> Stars;
  std::deque<std::string> StarNames; // the local names star imports bound, stable storage
  std::vector<Scope> Scopes;
  std::vector<uint32_t> ScopeStarts; // per scope: its node's start byte (scopeAt's search)
  bool ScopesInOrder = true;         // each scope starts at or after the one before
  std::vector<ClassInfo> Classes;
  struct SelfCall {
    int32_t From;            // the function scope the call is in
    std::string_view Method; // `self.<Method>(...)`
    TSNode Call;
  };
  std::vector<SelfCall> SelfCalls;
  std::vector<std::pair<int32_t, TSNode>> WorkerCallbacks;     // values of collate_fn= etc.
  std::vector<std::pair<uint32_t, uint32_t>> Prose;
  std::vector<std::pair<std::string_view, TSNode>> ImportSites;
  mutable std::vector<std::unique_ptr<ScopeBindings>> Bound; // by scope, read on first use
  // definitionFrom(): the class and function scopes by name, built on first use.
  const std::unordered_map<std::string_view, llvm::SmallVector<int32_t, 2>> &definitions() const;
  mutable std::unordered_map<std::string_view, llvm::SmallVector<int32_t, 2>> Definitions;
  mutable bool DefinitionsBuilt = false;
  mutable std::unordered_map<const void *, ParameterList> Params; // by function node, read on first use
};

} // namespace torchlint
