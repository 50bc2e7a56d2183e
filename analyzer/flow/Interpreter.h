// The device flow's interpreter, private to flow/: the abstract state (what each name holds),
// the statements and loops (Statements.cpp), the expressions (Expressions.cpp), PyTorch's
// calls dispatched by the API table (TorchCalls.cpp), the text prefilter that skips code no
// rule can speak about (Prefilter.cpp), and the scopes, summaries and escapes (DeviceFlow.cpp).
#pragma once

#include "flow/Containers.h"
#include "flow/DeviceFlow.h"
#include "flow/Summary.h"
#include "torch/Read.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/Hashing.h>
#include <llvm/ADT/StringRef.h>

#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace llvm {
/// Names as keys of the flow's state: views into the file's text (the two special keys point
/// nowhere in it).
template <> struct DenseMapInfo<std::string_view> {
  static std::string_view getEmptyKey() { return {reinterpret_cast<const char *>(~uintptr_t(0)), 0}; }
  static std::string_view getTombstoneKey() { return {reinterpret_cast<const char *>(~uintptr_t(1)), 0}; }
  // Keys are short names and paths (`x`, `self.encoder.weight`), hashed at every look-up, and a
  // join looks up each key of one state in the other: eight bytes a step, not llvm::hash_value's
  // general mix.
  static unsigned getHashValue(std::string_view S) {
    const char *P = S.data();
    size_t N = S.size();
    constexpr uint64_t K = 0xbf58476d1ce4e5b9ull;
    uint64_t H = 0x9e3779b97f4a7c15ull ^ N;
    auto Load = [](const char *Q, size_t Bytes) {
      uint64_t V = 0;
      std::memcpy(&V, Q, Bytes);
      return V;
    };
    if (N >= 8) {
      for (size_t I = 0; I + 8 < N; I += 8)
        H = (H ^ Load(P + I, 8)) * K;
      H = (H ^ Load(P + N - 8, 8)) * K; // the last eight bytes, overlapping the step before
    } else if (N >= 4) {
      H = (H ^ (Load(P, 4) << 32 | Load(P + N - 4, 4))) * K;
    } else if (N > 0) {
      H = (H ^ (Load(P, 1) | Load(P + N / 2, 1) << 8 | Load(P + N - 1, 1) << 16)) * K;
    }
    H ^= H >> 29;
    return static_cast<unsigned>(H ^ (H >> 32));
  }
  static bool isEqual(std::string_view A, std::string_view B) {
    if (A.data() == B.data() && A.size() == B.size())
      return true;
    auto Special = [](std::string_view S) { return S.empty() && reinterpret_cast<uintptr_t>(S.data()) >= ~uintptr_t(1); };
    return !Special(A) && !Special(B) && A == B;
  }
};
} // namespace llvm

namespace torchlint::flow {

/// What each name or path holds. A DenseMap: the flow copies the whole state at every branch
/// and loop, and one allocation per copy costs far less than one per name.
using Vars = llvm::DenseMap<std::string_view, Value>;

/// What the flow knows of an optimizer a path holds: the model whose parameters it was built
/// over and, on some path to here, the state it loaded.
struct OptimizerFacts {
  std::string_view Model; // the model's path (`model`, `self.net`)
  NodeMark Created;       // the statement that built it
  NodeMark Loaded;        // its `load_state_dict` whose state is still where it went (0: none)
  bool operator==(const OptimizerFacts &) const = default;
};
using Optimizers = std::unordered_map<std::string_view, OptimizerFacts>;

/// What every name holds at one point of a function.
struct State {
  Vars V;
  Optimizers O;
  bool Reachable = true;
  // In `__init__` of a module class, `self.x` is bound there or nowhere: like a plain name, a
  // path the other side of a join lacks was not bound on that side (joinInto()).
  bool SelfBindings = false;
};
State joinStates(const State &A, const State &B);
/// \p A becomes the join of \p A and \p B, without building a third state.
void joinInto(State &A, const State &B);
bool sameState(const State &A, const State &B);
/// A loop head that would not settle: what \p Old and \p New agree on, the rest unknown.
State widenStates(const State &Old, const State &New);
/// Nothing known of any value, every name still bound (a loop too deep to follow, `match`).
void forgetValues(State &S);

/// The flow's dtype lattice for a PyTorch dtype: the precise dtype where it matters (float64
/// against float32), one element for every integer type, nothing for complex types.
DType latticeType(torch::ScalarType T);
/// The flow's device for a device string `torch.device` accepts.
Device deviceOf(const torch::DeviceString &D);
inline Value make(ValueKind K, Device D = {}) {
  Value V;
  V.Kind = K;
  V.Dev = D;
  return V;
}

class DeviceFlow::Impl {
public:
  /// \p File, where there is one: the walk's notes of each call's parts (FileContext::partsOf).
  Impl(TSNode Root, const SemanticModel &M, const FileContext *File = nullptr)
      : Root(Root), M(M), Text(M.text()), File(File) {}

  void run();
  /// What the module's top-level names are to the files that import it (Summary.cpp).
  void summarize(ModuleSummary &Out);
  void exportNames(ModuleSummary &Out);
  /// The same summary from this flow after the lint ran it, where that cannot differ from a
  /// summarising flow's: false (and \p Out's names left empty) where it might.
  bool summarizeAfterLint(ModuleSummary &Out);

  // The answers, one per evaluated expression that says something (record(): an unknown value
  // outside loops leaves no entry), by node id:
  // open addressing in one array (a node per entry and a division per look-up cost the flow
  // more than its interpretation). Nothing holds an entry across an insertion.
  llvm::DenseMap<const void *, Value> Values;
  // Where each entry's expression starts, for knowsWithin(): sorted when asked (the rules ask
  // after the run), then searched from where the last question left off.
  mutable std::vector<uint32_t> ValueStarts;
  mutable bool StartsSorted = true;
  mutable size_t StartsHint = 0;
  llvm::DenseMap<const void *, int32_t> CallLoop; // call -> loop it runs in every step of
  // The nodes values' provenance marks, by NodeMark::Index (0: none), and each one's index.
  std::vector<TSNode> Marked{TSNode{}};
  llvm::DenseMap<const void *, uint32_t> MarkOf;
  NodeMark mark(TSNode N) {
    if (ts_node_is_null(N))
      return {};
    auto [It, New] = MarkOf.try_emplace(N.id, static_cast<uint32_t>(Marked.size()));
    if (New)
      Marked.push_back(N);
    return NodeMark{It->second};
  }
  std::vector<char> TrainingLoop;
  std::unordered_map<const void *, OptimizerLoad> Loads; // by the `load_state_dict` call
  // Values from the project's other modules: why each has its device, by the mark of the node
  // where it entered this file ("returned by `make_batch` (data.py:4)").
  struct ImportReason {
    std::string Before, After; // around " at line N": "returned by `f`" ... ", created in data.py:4"
  };
  std::unordered_map<uint32_t, ImportReason> ImportWhy;

private:
  struct ClassFacts {
    Vars Attrs; // "self.x" -> value in the other methods
    bool Done = false, Busy = false;
    bool InitMovesSelf = false; // `__init__` calls `self.to(...)`, `self.cuda()`...: no CPU module
    bool HasState = false;      // `__init__` registers a parameter, buffer or submodule
    bool StateUnplaced = false; // one of them on a device `__init__` does not show (an argument)
  };
  struct FunctionSummary {
    Value Returns;
    bool Done = false, Busy = false, AnyReturn = false;
  };
  struct Frame {
    State S;
    std::optional<Value> Returned;
    bool AnyReturn = false;
    std::vector<State> LoopJumps; // break/continue states of the innermost loops
    std::vector<int32_t> Loops;   // enclosing loops (indices into TrainingLoop)
    std::vector<uint32_t> LoopIfDepth;
    uint32_t IfDepth = 0;
    bool DefaultsUnknown = false; // inside `with torch.device(...)`
    int32_t Class = -1;           // the nn.Module class whose method this is
    bool InInit = false;
    bool IsFunction = false;
    int32_t Scope = 0;       // the scope analysed
    Frame *Caller = nullptr; // the frame whose analysis asked for this one
    std::unordered_set<std::string_view> Bound; // names bound here: globals do not show through
    std::unordered_set<std::string_view> Parents; // paths some stored key extends (`x` of `x.y`)
  };

  TSNode Root;
  const SemanticModel &M;
  const NodeText &Text;
  const FileContext *File;
  Vars Globals;
  // What a function's nested functions and classes read of its names (closures): its values at
  // its end, as Globals are the module's (lookup()).
  std::unordered_map<int32_t, Vars> Closures;
  std::optional<Value> enclosingValue(std::string_view Name) const;
  static bool sharedWithNested(std::string_view K, const Value &V);
  static Value sharedValue(Value V);
  // Containers' elements, by Value::Parts (Containers.h).
  ContainerTable Containers;
  Value tupleOf(std::vector<Value> Parts);
  /// A list whose every element is \p Elem (nullopt: an empty list); unknown where \p Elem is.
  Value listOf(std::optional<Value> Elem);
  Value dictOf(Contents C);
  const std::vector<Value> *partsOf(const Value &V) const {
    return V.Kind == ValueKind::Tuple && V.Parts ? &Containers.at(V.Parts).Elems : nullptr;
  }
  /// What iterating \p V gives (a batch of a DataLoader, a list's element, the join of a
  /// tuple's); \p At: the iterable's expression, where a batch's device comes from.
  Value elementOf(const Value &V, TSNode At);
  /// The value for the key \p Index of the dict \p D: a literal key's, else every value's join.
  Value dictItem(const Value &D, TSNode Index);
  /// `a + b` of two lists or tuples; nullopt when they are not both containers.
  std::optional<Value> concat(const Value &L, const Value &R);
  /// A comprehension or generator: its element evaluated with its loop targets bound.
  Value comprehension(TSNode E);
  /// `zip`, `enumerate`, `list`, `iter`, `dict(...)`...: nullopt for other names.
  std::optional<Value> builtinCall(std::string_view Name, const CallArgs &A);
  /// `xs.append(t)`, `d.items()`...: nullopt where \p Recv is no container.
  std::optional<Value> containerMethod(TSNode C, const CallArgs &A, TSNode Obj, std::string_view Name,
                                       const Value &Recv, const std::vector<Value> &Args);
  /// `xs[i] = v`, `d["k"] = v`: the container at \p Target's object takes \p V.
  bool storeItem(TSNode Target, const Value &V);
  // Calls of local functions evaluated with their arguments (inlineCall()): nothing is recorded
  // while one is under way, and none is entered twice.
  uint32_t Inlining = 0;
  uint32_t RecordingAt = 0; // the inlining depth whose values are recorded (a closure's call)
  llvm::DenseSet<const void *> CallRecorded; // nodes a closure's call recorded
  std::vector<int32_t> InlineStack;
  std::optional<Value> inlineCall(int32_t Scope, const CallArgs &A);
  std::optional<Value> inlineValues(int32_t Scope, const std::vector<Value> &Pos,
                                    const std::vector<std::pair<std::string_view, Value>> &Kw);
  /// What the function \p Scope returns of the tensor passed at \p Position, where it says
  /// something (Summary.cpp).
  std::optional<ExportedValue> argumentResult(int32_t Scope, size_t Position);
  /// What a project function returns of the arguments \p Pos and \p Kw (Project.cpp).
  Value fromArguments(TSNode C, const ModuleSummary &S, const Export &E, const ExportedValue &X,
                      const std::vector<Value> &Pos, const std::vector<std::pair<std::string_view, Value>> &Kw);
  bool KeepModule = false; // summarising: keep what the module body leaves
  // What decides whether the lint's flow can give the module's summary (summarizeAfterLint):
  bool ModuleRead = false;  // the module body was analysed first, as a summary's flow does
  bool ReadProject = false; // some value or effect came from another module's summary
  bool MetBusy = false;     // a function or class was asked for while being analysed: a
                            // recursion, whose answer depends on where the analysis started
  Vars ModuleVars;
  bool FactoriesUnknown = false; // the file changes the default device
  std::unordered_map<int32_t, ClassFacts> Classes;
  std::unordered_map<std::string_view, int32_t> TopFunctions; // name -> scope
  std::unordered_map<int32_t, FunctionSummary> Summaries;
  std::vector<char> Analysed; // per scope: 1 under way, 2 done
  Frame *F = nullptr;
  std::deque<std::string> BufferNames; // keys of `register_buffer("name", ...)`, stable storage
  uint32_t Depth = 0;                  // expression nesting being evaluated
  static constexpr uint32_t MaxDepth = 64; // real code nests a few levels; sanitizer frames are large

  // The prefilter (Prefilter.cpp).
  std::vector<uint32_t> Triggers; // offsets of the words any flow rule needs (sorted)
  // Offsets of host reads (`.item(`, `.tolist(`, `float(`): only TL203 acts on them, and only
  // in a loop that calls `backward()` or `step()`, so they count where those words appear.
  std::vector<uint32_t> HostReads;
  // Offsets of `.load_state_dict(`: they count only where `parameters(` builds an optimizer.
  std::vector<uint32_t> StateLoads;
  std::unordered_set<std::string_view> LocalNames; // top-level functions and classes of the file
  /// What callsSource() reads of a name written before `(`, read once per name of the file (a
  /// function's text holds dozens of calls, and each name was three look-ups).
  struct CalleeWord {
    bool Factory = false;      // a tensor factory's name (`zeros`)
    bool Local = false;        // a top-level function or class of this file
    bool Constructor = false;  // capitalized, and no exception's name
    bool TorchFactory = false; // imported from torch: a factory
    bool TorchClass = false;   // imported from torch: a capitalized name
    int8_t Project = -1;       // imported from a module of the project with a summary (-1: not asked)
    std::string_view Imported; // what the import binds it to
  };
  llvm::DenseMap<llvm::StringRef, CalleeWord> CalleeWords;
  std::unordered_map<std::string, bool> ProjectCallees; // `module.function`: a project function?
  std::unordered_map<int32_t, bool> InitMatters;   // class -> whether its __init__ may give devices
  void findTriggers(std::string_view Src);
  bool mayMatter(TSNode N) const { return mayMatter(ts_node_start_byte(N), ts_node_end_byte(N)); }
  bool mayMatter(uint32_t Begin, uint32_t End) const;
  bool forwardMayMatter(const Scope &S);
  /// A function outside `forward` whose tensor arguments are the caller's (see Prefilter.cpp).
  bool libraryFunction(int32_t Scope) const;
  /// Whether a function uses its parameter \p Name as a tensor (\p Code: its afterName()).
  bool usedAsTensor(std::string_view Code, std::string_view Name) const;
  /// Whether the annotation \p Type (a `type` node, or null) says a tensor: `Tensor`,
  /// `torch.Tensor`, `"torch.Tensor"`; not `Optional[Tensor]`, `Tensor | None`.
  bool annotatesTensor(TSNode Type) const;

  // Python scalars (Kinds.cpp).
  /// `n: int`, `Optional[float]`, `"int | None"`: an annotation naming only Python scalars.
  bool annotatesScalar(TSNode Type) const;
  bool scalarDefault(TSNode Default) const;
  bool testsScalarType(TSNode Type) const;
  /// Whether a function passes its parameter \p Name as a size or a bound (\p Code: afterName()).
  bool usedAsNumber(std::string_view Code, std::string_view Name) const;
  /// A scalar where the parameter's annotation, default or use shows one; else unknown.
  Value parameterScalar(const Parameter &P, bool Annotated, std::string_view Code) const;
  /// Whether the tensor method \p Method returns Python numbers (`size`, `item`, `tolist`...).
  static bool givesNumber(std::string_view Method);
  Value lambdaCall(const Value &Fn, const CallArgs &A);
  /// Whether \p Code (a function's text) only calls the function \p Name it defines: it passes
  /// it nowhere, so the calls written there are all its runs.
  static bool onlyCalled(std::string_view Code, std::string_view Name);
  uint32_t Lambdas = 0; // lambda calls under evaluation (a lambda calling another one)
  /// The value of `torch.where(cond)[i]` for the call \p Call, or unknown for any other.
  Value whereIndex(TSNode Call);
  bool libraryMayMatter(int32_t Scope);
  bool callsSource(std::string_view Code, bool Constructors);
  bool projectSource(std::string_view Q);
  bool projectCallee(std::string Q);
  std::string_view afterName(TSNode Function) const;
  int32_t initOf(int32_t Class) const;

  // Scopes and summaries (DeviceFlow.cpp).
  void prepare();
  void analyseScope(int32_t Id);
  void analyseFunction(int32_t Id, const Scope &S, Frame &Fr);
  void analyseClassInit(int32_t Class);
  void setupParameters(TSNode Function, int32_t Scope);
  bool hostBuiltAtEveryCall(int32_t Scope, size_t Position, std::string_view Keyword) const;
  Value localCall(int32_t Scope);
  void escape(const CallArgs &A, int32_t Callee = -1);
  /// The module's device is unknown from here on (code we do not follow may move it).
  void forgetDevice(Value &Module);
  bool mayMove(int32_t Scope, size_t Position, std::string_view Keyword) const;
  bool mayMoveUncached(int32_t Scope, size_t Position, std::string_view Keyword) const;
  mutable std::map<std::tuple<int32_t, size_t, std::string>, bool> MayMove; // mayMove's answers

  // Statements (Statements.cpp).
  void block(TSNode Block);
  void statement(TSNode S);
  void ifStatement(TSNode S);
  void tryStatement(TSNode S);
  void withStatement(TSNode S);
  void assign(TSNode Left, TSNode Right, TSNode Stmt);
  void bindTarget(TSNode Target, const Value &V, bool SameObject = false);
  void narrow(TSNode Condition);
  void bindUnknown(TSNode Target);
  void forLoop(TSNode S, bool IsWhile);
  Value loopElement(TSNode S, TSNode &Target);
  std::string_view pathKey(TSNode E) const;
  void set(std::string_view Key, const Value &V, bool SameObject = false);
  void unbind(std::string_view Key);
  Value lookup(TSNode E);

  // Optimizers and their loaded state (Optimizers.cpp).
  void buildOptimizer(std::string_view Key, TSNode Value, TSNode Stmt);
  /// \p Kept: the call's result may be kept (a helper's `start = restore(model, opt, path)`),
  /// not only a statement of its own as `opt.load_state_dict(...)` is.
  void loadOptimizerState(TSNode C, std::string_view Key, bool Kept = false);
  void modelChanged(std::string_view Model, TSNode At, bool Replaced, std::optional<Device> To);
  void forgetModel(std::string_view Key);

  // Expressions (Expressions.cpp).
  Value eval(TSNode E);
  Value evalUncached(TSNode E);
  Value attribute(TSNode E);
  Value subscript(TSNode E);
  Value conditional(TSNode E);
  void record(TSNode E, const Value &V);
  Value binary(TSNode E, const Value &L, const Value &R);
  std::optional<Device> deviceArg(TSNode D);
  DType dtypeArg(TSNode D, torch::DtypeSpelling In = torch::DtypeSpelling::Torch);
  Value call(TSNode C);
  Value nameCall(TSNode C, const CallArgs &A);
  Value localClassCall(TSNode C, const CallArgs &A, const ClassInfo &Cls);
  /// An instance of the module class \p Cls constructed at \p At (told a device or not).
  Value moduleInstance(const ClassInfo &Cls, TSNode At, bool Told);
  /// Whether a constructor's arguments tell the module where to go (`device=`, `dtype=`).
  bool toldDevice(const CallArgs &A) const;

  // The project's other modules (Project.cpp).
  /// The summary and export of the project's name \p Q. \p Decides: the answer is taken as it
  /// is (ReadProject). The callers that read a value or an effect from it say so themselves, and
  /// only where it differs from what a call or name the flow cannot see into gives: an export
  /// that changes nothing here leaves summarizeAfterLint() possible.
  std::pair<const ModuleSummary *, const Export *> projectName(std::string_view Q, bool Decides = true);
  /// A call of a project function or module class; nullopt when the project knows nothing.
  /// \p Args: the positional arguments' values, where the caller evaluated them.
  std::optional<Value> projectCall(TSNode C, const CallArgs &A, std::string_view Q,
                                   const std::vector<Value> *Args = nullptr);
  /// A project module's constant named at \p E (`DEVICE`, `config.DEVICE`); nullopt if none.
  std::optional<Value> projectConstant(TSNode E);
  std::string starDefinition(std::string_view Name);
  void parameterFacts(int32_t Scope, flow::Export &E);
  /// A call of a project function: the modules it may move escape, the optimizers it loads a
  /// state into load it here.
  std::optional<Value> projectCallee(TSNode C, const CallArgs &A, std::string_view Q,
                                     const std::vector<Value> *Args = nullptr);
  void projectArguments(TSNode C, const CallArgs &A, const ModuleSummary &S, const Export &E, std::string_view Q);
  Value imported(const ExportedValue &X, TSNode At, ImportReason Why);
  std::unordered_map<std::string, std::pair<const ModuleSummary *, const Export *>> ProjectNames;
  std::deque<std::string> Interned; // names of configured devices of other modules
  Value nextParameter(const ArgNodes &Pos);
  void noteLoop(TSNode C);

  // PyTorch's calls, by the API table (TorchCalls.cpp).
  Value apiCall(TSNode C, const CallArgs &A, std::string_view Q);
  Value factory(TSNode C, const CallArgs &A, std::string_view Q, torch::ApiFacts Api, const std::vector<Value> &Args);
  std::optional<Value> likeFactory(TSNode C, const CallArgs &A, const std::vector<Value> &Args);
  Value fromNumpy(TSNode C, const std::vector<Value> &Args);
  Value torchDevice(TSNode C, const CallArgs &A, const std::vector<Value> &Args);
  Value joinCall(TSNode C, const ArgNodes &Pos);
  std::optional<Value> legacyTensor(TSNode C, const CallArgs &A, std::string_view Q, const std::vector<Value> &Args);
  std::optional<Value> functional(TSNode C, torch::ApiFacts Api, const std::vector<Value> &Args);
  Value dataLoader(TSNode C, const CallArgs &A);
  Value parameter(const std::vector<Value> &Args);
  Value moduleClass(TSNode C, const CallArgs &A, std::string_view Q, torch::ApiFacts Api,
                    const std::vector<Value> &Args);
  Value numpyCall(std::string_view Name, TSNode C, const CallArgs &A, torch::ApiFacts Api);
  Value moduleCall(const Value &Mod, TSNode C, const ArgNodes &Pos);
  /// Where a move or a cast sends a value: a device (unknown when !Known) and a dtype.
  struct MoveTarget {
    std::optional<Device> Dev;
    bool Known = true;
    DType Type = DType::Unknown;
  };
  MoveTarget moveTarget(const CallArgs &A, std::string_view Name);
  Value applyMove(Value V, TSNode C, const MoveTarget &T, bool Moves);
  Value methodCall(TSNode C, const CallArgs &A, TSNode Obj, std::string_view Name, const Value &Recv);
  Value moduleMethod(TSNode C, const CallArgs &A, TSNode Obj, std::string_view Name, const Value &Recv,
                     const std::vector<Value> &Args, const MoveTarget &T);
  Value tensorMethod(TSNode C, std::string_view Name, uint32_t Bits, const Value &Recv,
                     const std::vector<Value> &Args);
};

} // namespace torchlint::flow
