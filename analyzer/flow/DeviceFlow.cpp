// The device-flow interpreter: transfer functions for what PyTorch does to devices and
// dtypes (factories, `.to`, in-place module moves, module calls, DataLoader batches), joins
// at branches and a bounded fixpoint for loops.
#include "flow/DeviceFlow.h"

#include "semantic/Walker.h"
#include "source/Strings.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <map>
#include <memory_resource>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace torchlint::flow {

Device parseDevice(std::string_view S) {
  if (S == "cpu")
    return Device::cpu();
  if (S == "mps")
    return {DeviceKind::Mps, -1, {}};
  if (S == "meta")
    return {DeviceKind::Meta, -1, {}};
  if (S == "cuda")
    return {DeviceKind::Cuda, -1, {}};
  if (startsWith(S, "cuda:") && S.size() > 5 && S.size() < 9) {
    int32_t I = 0;
    for (char C : S.substr(5)) {
      if (C < '0' || C > '9')
        return {};
      I = I * 10 + (C - '0');
    }
    return {DeviceKind::Cuda, I, {}};
  }
  return {};
}

namespace {

using Vars = std::unordered_map<std::string_view, Value>;

struct State {
  Vars V;
  bool Reachable = true;
};

State joinStates(const State &A, const State &B) {
  if (!A.Reachable)
    return B;
  if (!B.Reachable)
    return A;
  State J;
  for (auto &[K, Va] : A.V) {
    auto It = B.V.find(K);
    if (It == B.V.end())
      continue;
    Value V = join(Va, It->second);
    if (V.Kind != ValueKind::Unknown || V.Flags)
      J.V.emplace(K, V);
  }
  return J;
}

bool sameState(const State &A, const State &B) {
  if (A.Reachable != B.Reachable || A.V.size() != B.V.size())
    return false;
  for (auto &[K, Va] : A.V) {
    auto It = B.V.find(K);
    if (It == B.V.end() || !(It->second == Va))
      return false;
  }
  return true;
}

bool oneOf(std::string_view S, std::initializer_list<std::string_view> L) {
  return std::find(L.begin(), L.end(), S) != L.end();
}

// Factories that take `device=` and place their result on the CPU by default.
bool isFactory(std::string_view N) {
  return oneOf(N, {"zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
                   "logspace", "eye", "tensor", "as_tensor", "scalar_tensor"});
}
bool isLikeFactory(std::string_view N) {
  return oneOf(N, {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like"});
}
// Tensor methods that keep the receiver's device and rank.
bool keepsShape(std::string_view M) {
  return oneOf(M, {"view", "reshape", "unsqueeze", "permute", "transpose", "flatten", "contiguous", "clone", "detach",
                   "expand", "expand_as", "repeat", "abs", "exp", "log", "sigmoid", "tanh", "relu", "softmax",
                   "log_softmax", "masked_fill", "pow", "sqrt", "neg", "add", "sub", "mul", "div", "t", "requires_grad_",
                   "view_as", "reshape_as", "clamp", "float", "double", "half", "bfloat16", "long", "int", "bool",
                   "type_as", "pin_memory", "to", "cuda", "cpu", "detach_", "sin", "cos"});
}
// Tensor methods that keep the device but may drop dimensions.
bool keepsDevice(std::string_view M) {
  return oneOf(M, {"squeeze", "sum", "mean", "max", "min", "argmax", "argmin", "norm", "std", "var", "prod",
                   "matmul", "mm", "bmm", "index_select", "gather", "narrow", "select", "masked_select", "cumsum",
                   "topk", "sort"});
}
// Modules without parameters: calling them does not involve the module's device.
bool isParamless(std::string_view Class) {
  return endsWith(Class, "Loss") ||
         oneOf(Class, {"ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout",
                       "Dropout2d", "Identity", "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d", "MaxPool3d",
                       "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
                       "AdaptiveMaxPool2d", "Upsample", "LeakyReLU", "ELU", "Softplus", "Hardtanh", "Mish",
                       "PixelShuffle", "CosineSimilarity", "PairwiseDistance"});
}
// Losses and other functions of torch.nn.functional whose tensor arguments must share a device.
bool isFunctionalLoss(std::string_view N) {
  return endsWith(N, "_loss") || oneOf(N, {"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits",
                                           "kl_div", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss"});
}

DType dtypeFromName(std::string_view Q) {
  std::string_view N = lastComponent(Q);
  if (!startsWith(Q, "torch.") && !startsWith(Q, "numpy."))
    return DType::Unknown;
  if (N == "float64" || N == "double")
    return DType::Float64;
  if (N == "float32" || (N == "float" && startsWith(Q, "torch.")))
    return DType::Float32;
  if (N == "float16" || N == "half")
    return DType::Half;
  if (N == "bfloat16")
    return DType::BFloat16;
  if (oneOf(N, {"int64", "long", "int32", "int", "int16", "int8", "uint8", "short"}))
    return DType::Integer;
  if (N == "bool" || N == "bool_")
    return DType::Bool;
  return DType::Unknown;
}

uint32_t line(TSNode N) { return ts_node_start_point(N).row + 1; }

Value make(ValueKind K, Device D = {}) {
  Value V;
  V.Kind = K;
  V.Dev = D;
  return V;
}

} // namespace

class DeviceFlow::Impl {
public:
  Impl(TSNode Root, const SemanticModel &M) : Root(Root), M(M), Text(M.text()) {}

  void run();

  // The answers, one per evaluated expression (a good part of the file's nodes): their
  // nodes come from an arena, all released at once with the analysis.
  std::pmr::monotonic_buffer_resource Arena;
  std::pmr::unordered_map<const void *, Value> Values{&Arena};
  std::pmr::unordered_map<const void *, int32_t> CallLoop{&Arena}; // call -> loop it runs in every step of
  // The nodes values' provenance marks, by NodeMark::Index (0: none), and each one's index.
  std::vector<TSNode> Marked{TSNode{}};
  std::unordered_map<const void *, uint32_t> MarkOf;
  NodeMark mark(TSNode N) {
    if (ts_node_is_null(N))
      return {};
    auto [It, New] = MarkOf.emplace(N.id, static_cast<uint32_t>(Marked.size()));
    if (New)
      Marked.push_back(N);
    return NodeMark{It->second};
  }
  std::vector<char> TrainingLoop;

private:
  struct ClassFacts {
    Vars Attrs; // "self.x" -> value in the other methods
    bool Done = false, Busy = false, MovesItself = false;
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
    std::unordered_set<std::string_view> Bound; // names bound here: globals do not show through
    std::unordered_set<std::string_view> Parents; // paths some stored key extends (`x` of `x.y`)
  };

  TSNode Root;
  const SemanticModel &M;
  const NodeText &Text;
  Vars Globals;
  bool FactoriesUnknown = false; // the file changes the default device
  std::unordered_map<int32_t, ClassFacts> Classes;
  std::unordered_map<std::string_view, int32_t> TopFunctions; // name -> scope
  std::unordered_map<int32_t, FunctionSummary> Summaries;
  std::vector<char> Analysed; // per scope
  Frame *F = nullptr;
  std::deque<std::string> BufferNames; // keys of `register_buffer("name", ...)`, stable storage
  std::vector<uint32_t> Triggers;      // offsets of the words any flow rule needs (sorted)
  // Offsets of host reads (`.item(`, `.tolist(`, `float(`): only TL203 acts on them, and only
  // in a loop that calls `backward()` or `step()`, so they count where those words appear.
  std::vector<uint32_t> HostReads;
  uint32_t Depth = 0;                  // expression nesting being evaluated
  static constexpr uint32_t MaxDepth = 64; // real code nests a few levels; sanitizer frames are large

  void findTriggers(std::string_view Src);
  bool mayMatter(TSNode N) const { return mayMatter(ts_node_start_byte(N), ts_node_end_byte(N)); }
  bool mayMatter(uint32_t Begin, uint32_t End) const;
  bool forwardMayMatter(const Scope &S);
  bool callsSource(std::string_view Code, bool Constructors);
  std::string_view afterName(TSNode Function) const;
  int32_t initOf(int32_t Class) const;
  std::unordered_set<std::string_view> LocalNames; // top-level functions and classes of the file
  std::unordered_map<int32_t, bool> InitMatters;   // class -> whether its __init__ may give devices

  void analyseScope(int32_t Id);
  void analyseClassInit(int32_t Class);
  void setupParameters(TSNode Params, int32_t Scope);

  // Statements.
  void block(TSNode Block);
  void statement(TSNode S);
  void assign(TSNode Left, TSNode Right, TSNode Stmt);
  void bindTarget(TSNode Target, const Value &V);
  void bindUnknown(TSNode Target);
  void forLoop(TSNode S, bool IsWhile);

  // Expressions.
  Value eval(TSNode E);
  Value evalUncached(TSNode E);
  Value call(TSNode C);
  Value binary(TSNode E, const Value &L, const Value &R);
  Value methodCall(TSNode C, TSNode Callee, TSNode Obj, std::string_view Name, const Value &Recv,
                   const ArgNodes &Pos, const KeywordArgs &Kw);
  std::optional<Device> deviceArg(TSNode D);
  DType dtypeArg(TSNode D);
  Value lookup(TSNode E);
  std::string_view pathKey(TSNode E) const;
  void set(std::string_view Key, const Value &V);
  void record(TSNode E, const Value &V);
  Value localCall(int32_t Scope);
  Value numpyCall(std::string_view Name, TSNode C, const ArgNodes &Pos,
                  const KeywordArgs &Kw);
  Value moduleCall(const Value &Mod, TSNode C, const ArgNodes &Pos);
  void escape(const CallArgs &A, int32_t Callee = -1);
  bool mayMove(int32_t Scope, size_t Position, std::string_view Keyword) const;
  bool mayMoveUncached(int32_t Scope, size_t Position, std::string_view Keyword) const;
  mutable std::map<std::tuple<int32_t, size_t, std::string>, bool> MayMove; // mayMove's answers
};

DeviceFlow::DeviceFlow(TSNode Root, const SemanticModel &Model) : P(std::make_unique<Impl>(Root, Model)) { P->run(); }
DeviceFlow::~DeviceFlow() = default;

const Value *DeviceFlow::valueOf(TSNode Expr) const {
  if (ts_node_is_null(Expr))
    return nullptr;
  auto It = P->Values.find(Expr.id);
  return It == P->Values.end() ? nullptr : &It->second;
}

bool DeviceFlow::inTrainingLoop(TSNode Node) const {
  auto It = P->CallLoop.find(Node.id);
  return It != P->CallLoop.end() && It->second >= 0 && P->TrainingLoop[It->second];
}

static std::string reason(Origin How, TSNode At) {
  std::string R(originVerb(How));
  if (!ts_node_is_null(At))
    R += (R.empty() ? "" : " ") + std::string("at line ") + std::to_string(line(At));
  return R;
}

std::string DeviceFlow::deviceReason(const Value &V) const { return reason(V.DevHow, node(V.DevAt)); }
std::string DeviceFlow::dtypeReason(const Value &V) const { return reason(V.TypeHow, node(V.TypeAt)); }
TSNode DeviceFlow::node(NodeMark M) const { return P->Marked[M.Index]; }

// ---------------------------------------------------------------------------------------

void DeviceFlow::Impl::run() {
  std::string_view Src = Text.source(); // trigger offsets are the nodes' byte offsets
  // Code that changes the default device makes every factory's device unknown.
  constexpr std::string_view SetDefault = "set_default_";
  for (size_t At = findBytes(Src, SetDefault); !FactoriesUnknown && At != std::string_view::npos;
       At = findBytes(Src, SetDefault, At + SetDefault.size())) {
    std::string_view Rest = Src.substr(At + SetDefault.size());
    FactoriesUnknown = startsWith(Rest, "device") || startsWith(Rest, "tensor_type");
  }
  Analysed.assign(M.scopes().size(), 0);
  for (size_t I = 0; I < M.scopes().size(); ++I) {
    const Scope &S = M.scopes()[I];
    if (S.Kind == ScopeKind::Function && S.Parent >= 0 && M.scope(S.Parent).Kind == ScopeKind::Module)
      TopFunctions.emplace(S.Name, static_cast<int32_t>(I));
  }
  findTriggers(Src);
  // The module body first: its devices and DataLoaders are what functions see as globals.
  bool AnyCode = mayMatter(0, static_cast<uint32_t>(Src.size()));
  for (size_t I = 0; I < M.scopes().size(); ++I)
    if (M.scopes()[I].Kind == ScopeKind::Module && AnyCode)
      analyseScope(static_cast<int32_t>(I));
  // Functions in which no rule can find anything are skipped (their helpers and classes are
  // still analysed on demand): most of a library has no device code at all.
  for (size_t I = 0; I < M.scopes().size(); ++I) {
    const Scope &S = M.scopes()[I];
    if (S.Kind != ScopeKind::Function)
      continue;
    if (mayMatter(S.Node) || (M.inRole(static_cast<int32_t>(I), RoleForward) && forwardMayMatter(S)))
      analyseScope(static_cast<int32_t>(I));
  }
}

// Code that runs at every forward step matters without the trigger words too: a factory
// there (`torch.zeros(n)`) makes a CPU tensor that meets the inputs, and so does a plain tensor
// attribute that `__init__` made. Without the triggers, only these give a value there a known
// device: a factory, a module built on the spot, a call to a function or class of this file (its
// summary), a global device or DataLoader, and, in a method, the attributes its class's
// `__init__` left (registered ones follow the module; plain tensors come from the same sources).
bool DeviceFlow::Impl::forwardMayMatter(const Scope &S) {
  std::string_view Code = afterName(S.Node);
  if (callsSource(Code, /*Constructors=*/true))
    return true;
  for (auto &[Name, V] : Globals)
    if (containsBytes(Code, Name))
      return true;
  if (S.Class < 0 || M.scope(S.Parent).Kind != ScopeKind::Class)
    return false;
  auto [It, New] = InitMatters.try_emplace(S.Class, false);
  if (int32_t Init = New ? initOf(S.Class) : -1; Init >= 0) {
    // Modules built in `__init__` are registered: they follow the module, wherever it is.
    TSNode Fn = M.scope(Init).Node;
    It->second = mayMatter(Fn) || callsSource(afterName(Fn), /*Constructors=*/false);
  }
  return It->second;
}

// The scope of class \p Class's own `__init__`, or -1.
int32_t DeviceFlow::Impl::initOf(int32_t Class) const {
  for (size_t I = 0; I < M.scopes().size(); ++I) {
    const Scope &S = M.scopes()[I];
    if (S.Kind == ScopeKind::Function && S.Class == Class && S.Name == "__init__" && S.Parent >= 0 &&
        M.scope(S.Parent).Kind == ScopeKind::Class)
      return static_cast<int32_t>(I);
  }
  return -1;
}

// A function's text from its parameters on: its own `name(` is no call.
std::string_view DeviceFlow::Impl::afterName(TSNode Function) const {
  std::string_view Whole = Text(Function);
  TSNode Params = field(Function, "parameters");
  if (ts_node_is_null(Params))
    return Whole;
  uint32_t From = ts_node_start_byte(Params) - ts_node_start_byte(Function);
  return From <= Whole.size() ? Whole.substr(From) : Whole;
}

// Whether \p Code calls a tensor factory, this file's own function or class, a torch function
// imported under another name, or (with \p Constructors) a class such as `nn.Linear`: the name
// before each `(`.
bool DeviceFlow::Impl::callsSource(std::string_view Code, bool Constructors) {
  if (LocalNames.empty()) {
    for (auto &[Name, Scope] : TopFunctions)
      LocalNames.insert(Name);
    for (const ClassInfo &C : M.classes())
      LocalNames.insert(C.Name);
  }
  for (size_t Open = Code.find('('); Open != std::string_view::npos; Open = Code.find('(', Open + 1)) {
    size_t End = Open;
    while (End > 0 && (Code[End - 1] == ' ' || Code[End - 1] == '\t'))
      --End;
    size_t Begin = End;
    while (Begin > 0 && nameByte(Code[Begin - 1]))
      --Begin;
    std::string_view Name = Code.substr(Begin, End - Begin);
    if (Name.empty())
      continue;
    // Only a bare name calls this file's function or class (methods have no summaries).
    bool Bare = Begin == 0 || Code[Begin - 1] != '.';
    if (isFactory(Name) || (Bare && LocalNames.count(Name)))
      return true;
    // Exceptions raised there are no modules.
    if (Constructors && capitalized(Name) && !endsWith(Name, "Error") && !endsWith(Name, "Exception") &&
        !endsWith(Name, "Warning"))
      return true;
    std::string_view Q = M.importOf(Name);
    if (startsWith(Q, "torch.") && (isFactory(lastComponent(Q)) || (Constructors && capitalized(lastComponent(Q)))))
      return true;
  }
  return false;
}

// One pass over the file for the words without which no flow rule can report: device moves
// and casts, devices, DataLoaders, NumPy, float64, MPS, `non_blocking`; host reads apart
// (HostReads: they count only beside `backward` or `step`).
void DeviceFlow::Impl::findTriggers(std::string_view Src) {
  auto At = [&](size_t I, std::string_view W) { return Src.compare(I, W.size(), W) == 0; };
  // The byte pairs a trigger can start with: SSE2 compares rule out sixteen positions at a
  // time, and a 64K-bit set each position of the tail (a set of first bytes alone let through
  // one byte in eight, each a mispredicted branch).
  static constexpr std::string_view PairList[] = {".t", ".c", ".f", ".d", ".h", ".b", ".l", ".i",
                                                  ".n", "de", "Da", "nu", "np", "no", "fl", "mp"};
  static const std::array<uint64_t, 1024> Pairs = [] {
    std::array<uint64_t, 1024> T{};
    for (std::string_view P : PairList) {
      unsigned K = static_cast<unsigned char>(P[0]) | (static_cast<unsigned char>(P[1]) << 8);
      T[K >> 6] |= uint64_t(1) << (K & 63);
    }
    return T;
  }();
  const auto *Bytes = reinterpret_cast<const unsigned char *>(Src.data());
  auto Check = [&](size_t I) {
    bool Hit = false, HostRead = false;
    switch (Src[I]) {
    case '.':
      switch (Src[I + 1]) {
      case 't':
        Hit = At(I + 1, "to(");
        HostRead = At(I + 1, "tolist(");
        break;
      case 'c':
        Hit = At(I + 1, "cuda(") || At(I + 1, "cpu(");
        break;
      case 'f':
        Hit = At(I + 1, "float(");
        break;
      case 'd':
        Hit = At(I + 1, "double(");
        break;
      case 'h':
        Hit = At(I + 1, "half(");
        break;
      case 'b':
        Hit = At(I + 1, "bfloat16(");
        break;
      case 'l':
        Hit = At(I + 1, "long(");
        break;
      case 'i':
        Hit = At(I + 1, "int(");
        HostRead = At(I + 1, "item(");
        break;
      case 'n':
        Hit = At(I + 1, "numpy(");
        break;
      }
      break;
    case 'd':
      Hit = At(I, "device");
      break;
    case 'D':
      Hit = At(I, "DataLoader");
      break;
    case 'n':
      Hit = At(I, "numpy") || At(I, "np.") || At(I, "non_blocking");
      break;
    case 'f':
      Hit = At(I, "float64");
      HostRead = At(I, "float(");
      break;
    case 'm':
      Hit = At(I, "mps");
      break;
    }
    if (Hit)
      Triggers.push_back(static_cast<uint32_t>(I));
    else if (HostRead)
      HostReads.push_back(static_cast<uint32_t>(I));
  };
  auto Scan = [&](size_t From, size_t To) {
    size_t I = From, N = Src.size();
#if defined(__SSE2__)
    // Sixteen positions at a time: each pair's two compares, against the bytes at I and I+1.
    for (; I + 16 <= To && I + 17 <= N; I += 16) {
      __m128i First = _mm_loadu_si128(reinterpret_cast<const __m128i *>(Bytes + I));
      __m128i Second = _mm_loadu_si128(reinterpret_cast<const __m128i *>(Bytes + I + 1));
      __m128i Any = _mm_setzero_si128();
#pragma GCC unroll 16
      for (std::string_view P : PairList)
        Any = _mm_or_si128(Any, _mm_and_si128(_mm_cmpeq_epi8(First, _mm_set1_epi8(P[0])),
                                              _mm_cmpeq_epi8(Second, _mm_set1_epi8(P[1]))));
      for (unsigned Mask = static_cast<unsigned>(_mm_movemask_epi8(Any)); Mask; Mask &= Mask - 1)
        Check(I + static_cast<unsigned>(__builtin_ctz(Mask)));
    }
#endif
    for (; I < To && I + 1 < N; ++I) { // every trigger is longer than one byte
      unsigned K = Bytes[I] | (Bytes[I + 1] << 8);
      if ((Pairs[K >> 6] >> (K & 63)) & 1)
        Check(I);
    }
  };
  // Only code counts: a docstring or comment that speaks of devices moves nothing.
  size_t Code = 0;
  for (auto [Begin, End] : M.proseRanges()) {
    if (Begin > Code)
      Scan(Code, Begin);
    Code = std::max<size_t>(Code, End);
  }
  Scan(Code, Src.size());
}

bool DeviceFlow::Impl::mayMatter(uint32_t Begin, uint32_t End) const {
  auto Within = [&](const std::vector<uint32_t> &Offsets) {
    auto It = std::lower_bound(Offsets.begin(), Offsets.end(), Begin);
    return It != Offsets.end() && *It < End;
  };
  if (Within(Triggers))
    return true;
  if (!Within(HostReads))
    return false;
  // A training loop is one whose body calls `backward()` or `step()` (see call()).
  std::string_view Code = Text.source().substr(Begin, End - Begin);
  return containsBytes(Code, "backward") || containsBytes(Code, "step");
}

void DeviceFlow::Impl::analyseScope(int32_t Id) {
  if (Analysed[Id])
    return;
  Analysed[Id] = 1;
  const Scope &S = M.scope(Id);
  Frame Fr;
  Frame *Saved = F;
  F = &Fr;
  if (S.Kind == ScopeKind::Module) {
    block(Root);
    for (auto &[K, V] : Fr.S.V)
      if ((V.Kind == ValueKind::Device || V.Kind == ValueKind::DataLoader) && K.find('.') == std::string_view::npos)
        Globals.emplace(K, V);
  } else {
    Fr.IsFunction = true;
    const ClassInfo *C = M.methodClass(Id);
    if (C && C->IsModule) {
      Fr.Class = static_cast<int32_t>(C - M.classes().data());
      Fr.InInit = S.Name == "__init__";
      if (!Fr.InInit) {
        analyseClassInit(Fr.Class);
        F = &Fr;
        for (auto &[K, V] : Classes[Fr.Class].Attrs)
          Fr.S.V.emplace(K, V);
        Fr.Parents.insert("self");
      }
    }
    setupParameters(field(S.Node, "parameters"), Id);
    TSNode Body = field(S.Node, "body");
    if (!ts_node_is_null(Body))
      block(Body);
    auto &Sum = Summaries[Id];
    Sum.Done = true;
    Sum.AnyReturn = Fr.AnyReturn;
    if (Fr.Returned)
      Sum.Returns = Fr.S.Reachable ? Value() : *Fr.Returned; // falling off the end returns None
    if (Fr.InInit && Fr.Class >= 0) {
      ClassFacts &CF = Classes[Fr.Class];
      for (auto &[K, V] : Fr.S.V) {
        if (!startsWith(K, "self.") || K.find_first_of(".[", 5) != std::string_view::npos)
          continue;
        Value A = V;
        bool Registered = A.Kind == ValueKind::Module || (A.isTensor() && A.has(FlagInput));
        if (Registered) {
          // Parameters, buffers and submodules follow the module wherever it moves.
          A.Dev = Device::configured("self");
          A.DevHow = Origin::Attribute;
        } else if (A.isTensor()) {
          A.Flags |= FlagPlainAttribute;
        }
        A.Flags &= ~FlagDefaultFactory;
        A.Flags |= A.isTensor() && Registered ? FlagInput : 0;
        CF.Attrs.emplace(K, A);
      }
      CF.Done = true;
    }
  }
  F = Saved;
}

void DeviceFlow::Impl::analyseClassInit(int32_t Class) {
  ClassFacts &CF = Classes[Class];
  if (CF.Done || CF.Busy)
    return;
  CF.Busy = true;
  if (int32_t Init = initOf(Class); Init >= 0)
    analyseScope(Init);
  CF.Done = true;
}

void DeviceFlow::Impl::setupParameters(TSNode Params, int32_t Scope) {
  if (ts_node_is_null(Params))
    return;
  bool Forward = M.inRole(Scope, RoleForward);
  bool First = true;
  for (TSNode P : namedChildren(Params)) {
    TSNode Name = P;
    if (!is(P, "identifier"))
      Name = field(P, "name");
    if (is(P, "typed_parameter") || is(P, "typed_default_parameter")) {
      Name = is(P, "typed_parameter") ? ts_node_named_child(P, 0) : field(P, "name");
    }
    bool IsFirst = First;
    First = false;
    if (!is(Name, "identifier"))
      continue;
    std::string_view N = Text(Name);
    Value V;
    if (IsFirst && N == "self" && F->Class >= 0) {
      V.Kind = ValueKind::Module;
      V.Dev = Device::configured("self");
      V.DevHow = Origin::Parameter;
      V.DevAt = mark(Name);
    } else if (isDeviceName(N) && N.find("dtype") == std::string_view::npos && !containsNoCase(N, "count") &&
               !containsNoCase(N, "num") && !containsNoCase(N, "ids")) {
      V.Kind = ValueKind::Device;
      V.Dev = Device::configured(N);
      V.DevHow = Origin::Parameter;
      V.DevAt = mark(Name);
    } else {
      TSNode Type = field(P, "type");
      bool Annotated = !ts_node_is_null(Type);
      if (Annotated && endsWith(Text(Type), "Tensor"))
        V.Kind = ValueKind::Tensor;
      // An input of forward is a tensor unless its annotation says otherwise (`n: int`).
      if (Forward && (!Annotated || V.Kind == ValueKind::Tensor))
        V.Flags |= FlagInput;
    }
    F->Bound.insert(N);
    if (V.Kind != ValueKind::Unknown || V.Flags)
      F->S.V[N] = V;
  }
}

// ---------------------------------------------------------------------------------------
// Statements

void DeviceFlow::Impl::block(TSNode Block) {
  for (TSNode S : namedChildren(Block)) {
    if (!F->S.Reachable)
      return;
    statement(S);
  }
}

void DeviceFlow::Impl::statement(TSNode S) {
  std::string_view K = kind(S);
  if (K == "expression_statement") {
    for (TSNode E : namedChildren(S)) {
      if (is(E, "assignment"))
        assign(field(E, "left"), field(E, "right"), E);
      else if (is(E, "augmented_assignment")) {
        Value L = eval(field(E, "left")), R = eval(field(E, "right"));
        std::string_view Key = pathKey(field(E, "left"));
        if (!Key.empty())
          set(Key, binary(E, L, R));
      } else
        eval(E);
    }
  } else if (K == "if_statement") {
    eval(field(S, "condition"));
    State Entry = F->S;
    ++F->IfDepth;
    block(field(S, "consequence"));
    State Out = std::move(F->S); // every path below assigns F->S before reading it
    bool HasElse = false;
    for (TSNode C : namedChildren(S)) {
      if (is(C, "elif_clause")) {
        F->S = Entry;
        eval(field(C, "condition"));
        Entry = F->S;
        block(field(C, "consequence"));
        Out = joinStates(Out, F->S);
      } else if (is(C, "else_clause")) {
        F->S = Entry;
        block(field(C, "body"));
        Out = joinStates(Out, F->S);
        HasElse = true;
      }
    }
    if (!HasElse)
      Out = joinStates(Out, Entry);
    --F->IfDepth;
    F->S = std::move(Out);
  } else if (K == "for_statement") {
    forLoop(S, false);
  } else if (K == "while_statement") {
    forLoop(S, true);
  } else if (K == "try_statement") {
    State Entry = F->S;
    block(field(S, "body"));
    State Body = std::move(F->S); // each clause below assigns F->S first
    State Out;
    Out.Reachable = false;
    State HandlerEntry = joinStates(Entry, Body);
    bool Finally = false;
    for (TSNode C : namedChildren(S)) {
      if (is(C, "except_clause") || is(C, "except_group_clause")) {
        F->S = HandlerEntry;
        for (TSNode B : namedChildren(C))
          if (is(B, "block"))
            block(B);
        Out = joinStates(Out, F->S);
      } else if (is(C, "else_clause")) {
        F->S = Body;
        block(field(C, "body"));
        Body = F->S;
      } else if (is(C, "finally_clause")) {
        Finally = true;
        F->S = joinStates(Out, Body);
        if (!F->S.Reachable)
          F->S = HandlerEntry;
        for (TSNode B : namedChildren(C))
          if (is(B, "block"))
            block(B);
      }
    }
    if (!Finally)
      F->S = joinStates(Out, Body);
  } else if (K == "with_statement") {
    bool Saved = F->DefaultsUnknown;
    for (TSNode C : namedChildren(S)) {
      if (!is(C, "with_clause"))
        continue;
      for (TSNode Item : namedChildren(C)) {
        TSNode V = field(Item, "value");
        TSNode Target{};
        if (is(V, "as_pattern")) {
          Target = field(V, "alias");
          V = ts_node_named_child(V, 0);
        }
        Value Ctx = eval(V);
        if (Ctx.Kind == ValueKind::Device)
          F->DefaultsUnknown = true; // `with torch.device("cuda"):` places factories there
        if (!ts_node_is_null(Target))
          bindUnknown(Target);
      }
    }
    block(field(S, "body"));
    F->DefaultsUnknown = Saved;
  } else if (K == "return_statement") {
    Value R;
    if (ts_node_named_child_count(S) > 0)
      R = eval(ts_node_named_child(S, 0));
    F->Returned = F->AnyReturn ? join(*F->Returned, R) : R;
    F->AnyReturn = true;
    F->S.Reachable = false;
  } else if (K == "raise_statement") {
    for (TSNode C : namedChildren(S))
      eval(C);
    F->S.Reachable = false;
  } else if (K == "break_statement" || K == "continue_statement") {
    if (!F->LoopJumps.empty())
      F->LoopJumps.back() = joinStates(F->LoopJumps.back(), F->S);
    F->S.Reachable = false;
  } else if (K == "function_definition" || K == "class_definition") {
    F->S.V.erase(Text(field(S, "name")));
  } else if (K == "decorated_definition") {
    TSNode D = field(S, "definition");
    if (!ts_node_is_null(D))
      F->S.V.erase(Text(field(D, "name")));
  } else if (K == "delete_statement" || K == "global_statement" || K == "nonlocal_statement") {
    // `global x` makes x shared with other functions: forget what we knew.
    for (TSNode C : namedChildren(S))
      for (TSNode N : is(C, "expression_list") ? namedChildren(C) : NodeList{C})
        F->S.V.erase(Text(N));
  } else if (K == "match_statement") {
    F->S.V.clear(); // not modelled: nothing known afterwards
  } else if (K == "block" || K == "module") {
    block(S);
  }
  // pass, import, assert, print...: nothing that moves a tensor.
}

void DeviceFlow::Impl::forLoop(TSNode S, bool IsWhile) {
  int32_t LoopId = static_cast<int32_t>(TrainingLoop.size());
  TrainingLoop.push_back(0);
  Value Elem;
  TSNode Target{};
  if (IsWhile) {
    eval(field(S, "condition"));
  } else {
    TSNode Iter = field(S, "right");
    Target = field(S, "left");
    Value It = eval(Iter);
    // `enumerate(loader)`, `tqdm(loader)`: the batch is the last element / the element.
    TSNode Inner = Iter;
    bool Enumerate = false;
    while (is(Inner, "call")) {
      std::string_view Fn = lastComponent(Text(field(Inner, "function")));
      if (Fn != "enumerate" && Fn != "tqdm" && Fn != "iter" && Fn != "trange")
        break;
      Enumerate |= Fn == "enumerate";
      TSNode Args = field(Inner, "arguments");
      if (ts_node_named_child_count(Args) == 0)
        break;
      Inner = ts_node_named_child(Args, 0);
      It = eval(Inner);
    }
    if (It.Kind == ValueKind::DataLoader) {
      Elem.Kind = ValueKind::Batch;
      Elem.Dev = Device::cpu();
      Elem.DevHow = Origin::DataLoader;
      Elem.DevAt = mark(Inner);
      Elem.R = Rank::NonZero;
      Elem.Loader = It.Loader;
      Elem.Flags = It.Flags & FlagPinned;
    }
    if (Enumerate && (is(Target, "pattern_list") || is(Target, "tuple_pattern")) &&
        ts_node_named_child_count(Target) == 2) {
      bindUnknown(ts_node_named_child(Target, 0));
      Target = ts_node_named_child(Target, 1);
    } else if (Enumerate) {
      Elem = Value();
    }
  }
  State Entry = F->S;
  State Head = Entry;
  // Two levels of loops iterate to a fixpoint; deeper ones run once from a state that knows
  // nothing (sound, as unknown is the top), so nesting never multiplies the work.
  bool Deep = F->Loops.size() >= 2;
  if (Deep)
    Head.V.clear();
  TSNode Body = field(S, "body");
  State End;
  End.Reachable = false;
  F->Loops.push_back(LoopId);
  F->LoopIfDepth.push_back(F->IfDepth);
  for (int Iter = 0; Iter < 3; ++Iter) {
    F->S = Head;
    if (!ts_node_is_null(Target))
      bindTarget(Target, Elem);
    F->LoopJumps.emplace_back();
    F->LoopJumps.back().Reachable = false;
    block(Body);
    State Jumps = std::move(F->LoopJumps.back());
    F->LoopJumps.pop_back();
    End = joinStates(F->S, Jumps);
    if (Deep)
      break;
    State Next = joinStates(Entry, End);
    if (sameState(Next, Head))
      break;
    Head = std::move(Next);
  }
  F->Loops.pop_back();
  F->LoopIfDepth.pop_back();
  F->S = joinStates(Entry, End);
  if (!ts_node_is_null(Target) && !IsWhile)
    bindUnknown(Target); // the last element, or none: nothing certain
  for (TSNode C : namedChildren(S))
    if (is(C, "else_clause"))
      block(field(C, "body"));
}

void DeviceFlow::Impl::bindUnknown(TSNode Target) { bindTarget(Target, Value()); }

void DeviceFlow::Impl::bindTarget(TSNode Target, const Value &V) {
  std::string_view K = kind(Target);
  if (K == "pattern_list" || K == "tuple_pattern" || K == "list_pattern" || K == "expression_list" ||
      K == "tuple" || K == "list") {
    // Unpacking a batch gives its tensors; anything else is not followed element-wise.
    Value E;
    if (V.Kind == ValueKind::Batch) {
      E = V;
      E.Kind = ValueKind::Tensor;
    }
    for (TSNode C : namedChildren(Target))
      bindTarget(C, is(C, "list_splat_pattern") ? Value() : E);
    return;
  }
  if (K == "parenthesized_expression" && ts_node_named_child_count(Target) == 1) {
    bindTarget(ts_node_named_child(Target, 0), V);
    return;
  }
  std::string_view Key = pathKey(Target);
  if (!Key.empty())
    set(Key, V);
  else if (is(Target, "subscript") || is(Target, "attribute"))
    eval(Target);
}

void DeviceFlow::Impl::assign(TSNode Left, TSNode Right, TSNode Stmt) {
  if (ts_node_is_null(Right)) { // `x: int` annotation only
    return;
  }
  if (is(Right, "assignment")) { // a = b = value
    assign(field(Right, "left"), field(Right, "right"), Right);
    Right = field(Right, "left");
  }
  bool MultiTarget = is(Left, "pattern_list") || is(Left, "tuple_pattern") || is(Left, "list_pattern");
  if (MultiTarget && (is(Right, "expression_list") || is(Right, "tuple")) &&
      ts_node_named_child_count(Left) == ts_node_named_child_count(Right)) {
    std::vector<Value> Vs;
    for (TSNode R : namedChildren(Right))
      Vs.push_back(eval(R));
    uint32_t I = 0;
    for (TSNode L : namedChildren(Left))
      bindTarget(L, Vs[I++]);
    return;
  }
  Value V = eval(Right);
  // A configured device takes the name it is stored under: `device = torch.device(...)`.
  std::string_view Key = pathKey(Left);
  if (V.Kind == ValueKind::Device && V.Dev.Kind == DeviceKind::Configured && V.Dev.Name.empty()) {
    if (Key.empty()) {
      V = Value();
    } else {
      V.Dev.Name = Key;
      V.DevAt = mark(Stmt);
      V.DevHow = Origin::Config;
    }
  }
  bindTarget(Left, V);
}

// ---------------------------------------------------------------------------------------
// Expressions

std::string_view DeviceFlow::Impl::pathKey(TSNode E) const {
  if (ts_node_is_null(E))
    return {};
  std::string_view K = kind(E);
  if (K == "identifier")
    return Text(E);
  if (K == "attribute") {
    // Written as a dotted name (`self.encoder.weight`): a chain of names, without reading
    // the children (`None.x` and `True.x` are not, and are never worth a look-up).
    std::string_view T = Text(E);
    if (plainDottedName(T) && !(T[0] >= '0' && T[0] <= '9')) {
      std::string_view Root = T.substr(0, T.find('.'));
      if (Root != "None" && Root != "True" && Root != "False")
        return T;
    }
    if (pathKey(field(E, "object")).empty())
      return {};
    return T;
  }
  if (K == "subscript") {
    TSNode Sub = field(E, "subscript");
    if (pathKey(field(E, "value")).empty() || !(is(Sub, "integer") || is(Sub, "string")))
      return {};
    return Text(E);
  }
  return {};
}

void DeviceFlow::Impl::set(std::string_view Key, const Value &V) {
  // `x = ...` forgets `x.y` and `x[0]`; only paths that ever had such keys need the scan,
  // which keeps a long script of plain assignments linear.
  if (F->Parents.count(Key))
    for (auto It = F->S.V.begin(); It != F->S.V.end();) {
      std::string_view K = It->first;
      if (K.size() > Key.size() && startsWith(K, Key) && (K[Key.size()] == '.' || K[Key.size()] == '['))
        It = F->S.V.erase(It);
      else
        ++It;
    }
  for (size_t I = Key.find_first_of(".["); I != std::string_view::npos; I = Key.find_first_of(".[", I + 1))
    F->Parents.insert(Key.substr(0, I));
  F->Bound.insert(Key);
  if (V.Kind == ValueKind::Unknown && !V.Flags)
    F->S.V.erase(Key);
  else
    F->S.V[Key] = V;
}

void DeviceFlow::Impl::record(TSNode E, const Value &V) {
  auto [It, New] = Values.emplace(E.id, V);
  if (!New)
    It->second = join(It->second, V);
}

Value DeviceFlow::Impl::eval(TSNode E) {
  // Generated code nests expressions thousands deep (`a + b + ...`): past a depth no rule
  // needs, say nothing rather than exhaust the stack.
  if (ts_node_is_null(E) || Depth >= MaxDepth)
    return {};
  ++Depth;
  Value V = evalUncached(E);
  --Depth;
  record(E, V);
  return V;
}

Value DeviceFlow::Impl::lookup(TSNode E) {
  std::string_view Key = pathKey(E);
  if (Key.empty())
    return {};
  auto It = F->S.V.find(Key);
  if (It != F->S.V.end())
    return It->second;
  if (is(E, "identifier") && F->IsFunction && !F->Bound.count(Key)) {
    auto G = Globals.find(Key);
    if (G != Globals.end())
      return G->second;
  }
  return {};
}

Value DeviceFlow::Impl::binary(TSNode /*At*/, const Value &L, const Value &R) {
  auto Tensorish = [](const Value &V) { return V.isTensor() || V.has(FlagInput); };
  if (!Tensorish(L) && !Tensorish(R))
    return {};
  Value Out;
  // Two inputs of unknown kind may be numbers: their result is no known tensor.
  Out.Kind = L.isTensor() || R.isTensor() ? ValueKind::Tensor : ValueKind::Unknown;
  Out.Flags = (L.Flags | R.Flags) & (FlagDefaultFactory | FlagInput);
  Out.Factory = L.has(FlagDefaultFactory) ? L.Factory : R.Factory;
  const Value *Only = nullptr;
  if (R.Kind == ValueKind::Scalar || (R.isTensor() && R.R == Rank::Zero && R.Dev.Kind == DeviceKind::Cpu))
    Only = &L;
  else if (L.Kind == ValueKind::Scalar || (L.isTensor() && L.R == Rank::Zero && L.Dev.Kind == DeviceKind::Cpu))
    Only = &R;
  if (Only) {
    Out.Dev = Only->Dev;
    Out.DevHow = Only->DevHow;
    Out.DevAt = Only->DevAt;
    Out.R = Only->R;
    Out.Type = Only->Type;
    Out.TypeHow = Only->TypeHow;
    Out.TypeAt = Only->TypeAt;
    return Out;
  }
  if (L.Dev == R.Dev) {
    Out.Dev = L.Dev;
    Out.DevHow = Origin::Derived;
    Out.DevAt = L.DevAt;
  }
  if (L.Type == R.Type)
    Out.Type = L.Type;
  if (L.R == Rank::NonZero || R.R == Rank::NonZero)
    Out.R = Rank::NonZero;
  return Out;
}

std::optional<Device> DeviceFlow::Impl::deviceArg(TSNode D) {
  if (ts_node_is_null(D))
    return std::nullopt;
  if (auto S = stringLiteral(D, Text)) {
    Device Dv = parseDevice(*S);
    return Dv.known() ? std::optional<Device>(Dv) : std::nullopt;
  }
  if (auto I = intLiteral(D, Text))
    return Device{DeviceKind::Cuda, static_cast<int32_t>(*I), {}};
  Value V = eval(D);
  if (V.Kind == ValueKind::Device) {
    if (V.Dev.Kind == DeviceKind::Configured && V.Dev.Name.empty())
      return Device::configured(Text(D)); // `torch.device(args.device)` spelt inline
    return V.Dev.known() ? std::optional<Device>(V.Dev) : std::nullopt;
  }
  if (V.Kind != ValueKind::Unknown)
    return std::nullopt;
  std::string_view Key = pathKey(D);
  if (!Key.empty() && !is(D, "subscript")) {
    std::string_view Last = lastComponent(Key);
    if (Key == "self.device" && F->Class >= 0)
      return Device::configured("self"); // Lightning's LightningModule.device
    // `x.device` of a tensor we know nothing about is no configured device; `args.device`,
    // `cfg.train.device`, `self.device` of a trainer are.
    if (Key != Last) {
      std::string_view Root = Key.substr(0, Key.find('.'));
      if (!oneOf(Root, {"args", "opt", "opts", "cfg", "config", "conf", "hparams", "options", "params", "settings",
                        "self", "trainer", "hp", "FLAGS", "flags"}))
        return std::nullopt;
    }
    if (isDeviceName(Last) && Last.find("dtype") == std::string_view::npos && !containsNoCase(Last, "count") &&
        !containsNoCase(Last, "num") && !containsNoCase(Last, "ids"))
      return Device::configured(Key);
  }
  return std::nullopt;
}

DType DeviceFlow::Impl::dtypeArg(TSNode D) {
  if (ts_node_is_null(D))
    return DType::Unknown;
  if (auto S = stringLiteral(D, Text))
    return dtypeFromName(std::string("numpy.") + std::string(*S));
  std::string Q = M.qualifiedName(D);
  if (!Q.empty())
    return dtypeFromName(Q);
  if (is(D, "identifier") && Text(D) == "float")
    return DType::Float64; // NumPy reads the builtin float as float64
  return DType::Unknown;
}

Value DeviceFlow::Impl::localCall(int32_t Scope) {
  auto &S = Summaries[Scope];
  if (!S.Done) {
    if (S.Busy)
      return {};
    S.Busy = true;
    analyseScope(Scope);
    S.Busy = false;
  }
  return S.AnyReturn ? S.Returns : Value();
}

Value DeviceFlow::Impl::evalUncached(TSNode E) {
  std::string_view K = kind(E);
  if (K == "identifier")
    return lookup(E);
  if (K == "integer" || K == "float")
    return make(ValueKind::Scalar);
  if (K == "string") {
    if (auto S = stringLiteral(E, Text)) {
      Device D = parseDevice(*S);
      if (D.known()) {
        Value V = make(ValueKind::Device, D);
        V.DevHow = Origin::Config;
        V.DevAt = mark(E);
        return V;
      }
    }
    return {};
  }
  if (K == "parenthesized_expression" && ts_node_named_child_count(E) == 1)
    return eval(ts_node_named_child(E, 0));
  if (K == "unary_operator")
    return eval(field(E, "argument"));
  if (K == "await")
    return eval(ts_node_named_child(E, 0));
  if (K == "binary_operator") {
    Value L = eval(field(E, "left")), R = eval(field(E, "right"));
    return binary(E, L, R);
  }
  if (K == "comparison_operator" || K == "boolean_operator" || K == "not_operator") {
    for (TSNode C : namedChildren(E))
      eval(C);
    return {};
  }
  if (K == "conditional_expression") {
    NodeList C = namedChildren(E);
    if (C.size() != 3)
      return {};
    Value A = eval(C[0]);
    eval(C[1]);
    Value B = eval(C[2]);
    // "cuda" if torch.cuda.is_available() else "cpu": the place that chooses the device.
    if (A.Kind == ValueKind::Device && B.Kind == ValueKind::Device && !(A.Dev == B.Dev)) {
      Value V = make(ValueKind::Device, Device::configured(""));
      V.DevAt = mark(E);
      V.DevHow = Origin::Config;
      return V;
    }
    return join(A, B);
  }
  if (K == "attribute") {
    Value Known = lookup(E);
    if (Known.Kind != ValueKind::Unknown || Known.Flags)
      return Known;
    TSNode Obj = field(E, "object");
    std::string_view Attr = Text(field(E, "attribute"));
    std::string Q = M.qualifiedName(E);
    if (!Q.empty())
      return {};
    Value O = eval(Obj);
    if (Attr == "device" && (O.isTensor() || O.Kind == ValueKind::Module) && O.Dev.known()) {
      Value V = make(ValueKind::Device, O.Dev);
      V.DevHow = O.DevHow;
      V.DevAt = O.DevAt;
      return V;
    }
    if (Attr == "device" && Text(Obj) == "self" && F->Class >= 0) {
      Value V = make(ValueKind::Device, Device::configured("self"));
      return V;
    }
    if (O.isTensor() && (Attr == "T" || Attr == "data" || Attr == "mT")) {
      Value V = O;
      V.Flags &= ~FlagPlainAttribute;
      return V;
    }
    return {};
  }
  if (K == "subscript") {
    Value O = eval(field(E, "value"));
    for (TSNode C : namedChildren(E))
      if (!ts_node_eq(C, field(E, "value")))
        eval(C);
    Value Known = lookup(E);
    if (Known.Kind != ValueKind::Unknown)
      return Known;
    if (O.Kind == ValueKind::Batch) {
      Value V = O;
      V.Kind = ValueKind::Tensor;
      return V;
    }
    if (O.isTensor() || O.has(FlagInput)) {
      Value V = O;
      V.R = Rank::Unknown;
      V.Flags &= ~FlagPlainAttribute;
      if (!O.isTensor())
        V.Kind = ValueKind::Unknown;
      return V;
    }
    return {};
  }
  if (K == "call")
    return call(E);
  if (K == "list" || K == "tuple" || K == "expression_list" || K == "dictionary" || K == "set" ||
      K == "keyword_argument" || K == "pair" || K == "list_splat" || K == "dictionary_splat" ||
      K == "concatenated_string") {
    for (TSNode C : namedChildren(E))
      eval(K == "keyword_argument" ? field(E, "value") : C);
    return {};
  }
  if (K == "true" || K == "false")
    return make(ValueKind::Scalar);
  return {};
}

Value DeviceFlow::Impl::call(TSNode C) {
  auto A = callArgs(C, Text);
  if (!A) {
    return {};
  }
  TSNode Callee = A->Callee;
  ArgNodes &Pos = A->Positional;
  auto &Kw = A->Keywords;
  std::string Q = M.qualifiedName(Callee);
  auto KwArg = [&](std::string_view N) { return A->keyword(N); };

  // Records the loop this call runs in every step of.
  auto noteLoop = [&] {
    if (!F->Loops.empty() && F->LoopIfDepth.back() == F->IfDepth)
      CallLoop[C.id] = F->Loops.back();
  };

  if (!Q.empty()) {
    // A function reached through an import: torch, numpy, torch.nn.functional...
    std::vector<Value> Args;
    for (TSNode P : Pos)
      Args.push_back(eval(P));
    std::string_view Name = lastComponent(Q);
    bool Torch = startsWith(Q, "torch.") && Q.find('.', 6) == std::string::npos;
    if (Torch && isFactory(Name)) {
      for (auto &[N, V] : Kw)
        if (N != "device" && N != "dtype")
          eval(V);
      Value V = make(ValueKind::Tensor);
      V.DevHow = Origin::Factory;
      V.DevAt = mark(C);
      TSNode D = KwArg("device");
      if (!ts_node_is_null(D)) {
        if (auto Dv = deviceArg(D))
          V.Dev = *Dv;
      } else if ((Name == "tensor" || Name == "as_tensor") && !Args.empty() && Args[0].isTensor()) {
        V.Dev = Args[0].Dev;
        V.DevHow = Args[0].DevHow;
        V.DevAt = Args[0].DevAt;
      } else if (!FactoriesUnknown && !F->DefaultsUnknown && !A->HasSplat) {
        V.Dev = Device::cpu();
        V.Flags |= FlagDefaultFactory;
        V.Factory = mark(C);
      }
      // dtype
      TSNode Dt = KwArg("dtype");
      if (!ts_node_is_null(Dt)) {
        V.Type = dtypeArg(Dt);
        V.TypeHow = Origin::Cast;
        V.TypeAt = mark(Dt);
      } else if ((Name == "tensor" || Name == "as_tensor") && !Args.empty() &&
                 (Args[0].Kind == ValueKind::NumpyArray || Args[0].isTensor())) {
        V.Type = Args[0].Type;
        V.TypeHow = Args[0].TypeHow;
        V.TypeAt = Args[0].TypeAt;
        if (Args[0].Kind == ValueKind::NumpyArray) {
          V.R = Args[0].R;
          V.DevHow = Origin::Numpy;
        }
      } else if (oneOf(Name, {"zeros", "ones", "empty", "rand", "randn", "eye", "linspace", "logspace"})) {
        V.Type = DType::Float32;
      }
      // rank
      if (V.R == Rank::Unknown && !Pos.empty() && !A->HasSplat) {
        TSNode P0 = Pos[0];
        bool EmptyShape = (is(P0, "tuple") || is(P0, "list")) && ts_node_named_child_count(P0) == 0;
        if (Name == "tensor" || Name == "as_tensor" || Name == "scalar_tensor") {
          if (Name == "scalar_tensor" || is(P0, "integer") || is(P0, "float") || Args[0].Kind == ValueKind::Scalar)
            V.R = Rank::Zero;
          else if ((is(P0, "list") || is(P0, "tuple")) && ts_node_named_child_count(P0) > 0)
            V.R = Rank::NonZero;
        } else if (Name == "full" || Name == "randint") {
          TSNode Shape = Name == "full" ? P0 : (Pos.size() >= 2 ? Pos.back() : TSNode{});
          if (!ts_node_is_null(Shape) && (is(Shape, "tuple") || is(Shape, "list")))
            V.R = ts_node_named_child_count(Shape) == 0 ? Rank::Zero : Rank::NonZero;
        } else {
          V.R = EmptyShape ? Rank::Zero : Rank::NonZero;
        }
      }
      return V;
    }
    for (auto &[N, V] : Kw)
      eval(V);
    if (Torch && isLikeFactory(Name) && !Args.empty()) {
      Value V = Args[0];
      if (!V.isTensor() && !V.has(FlagInput))
        return {};
      V.Kind = ValueKind::Tensor;
      V.Flags &= FlagInput;
      if (auto Dv = deviceArg(KwArg("device"))) {
        V.Dev = *Dv;
        V.DevHow = Origin::Factory;
        V.DevAt = mark(C);
      }
      if (!ts_node_is_null(KwArg("dtype")))
        V.Type = dtypeArg(KwArg("dtype"));
      return V;
    }
    if (Q == "torch.from_numpy" && !Args.empty()) {
      Value V = make(ValueKind::Tensor, Device::cpu());
      V.DevHow = Origin::Numpy;
      V.DevAt = mark(C);
      if (Args[0].Kind == ValueKind::NumpyArray) {
        V.Type = Args[0].Type;
        V.TypeHow = Origin::Numpy;
        V.TypeAt = Args[0].TypeAt;
        V.R = Args[0].R;
      }
      return V;
    }
    if (Q == "torch.device") {
      Value V = make(ValueKind::Device);
      V.DevHow = Origin::Config;
      V.DevAt = mark(C);
      if (Pos.size() == 1 && ts_node_is_null(KwArg("type"))) {
        if (auto S = stringLiteral(Pos[0], Text))
          V.Dev = parseDevice(*S);
        else if (Args[0].Kind == ValueKind::Device)
          V.Dev = Args[0].Dev;
      } else if (Pos.size() == 2) {
        auto S = stringLiteral(Pos[0], Text);
        auto I = intLiteral(Pos[1], Text);
        if (S && *S == "cuda" && I)
          V.Dev = {DeviceKind::Cuda, static_cast<int32_t>(*I), {}};
      }
      if (!V.Dev.known())
        V.Dev = Device::configured(""); // chosen by an expression: named where it is stored
      return V;
    }
    if (Q == "torch.cat" || Q == "torch.stack" || Q == "torch.concat") {
      Value Out;
      if (!Pos.empty() && (is(Pos[0], "list") || is(Pos[0], "tuple"))) {
        bool First = true;
        for (TSNode El : namedChildren(Pos[0])) {
          auto It = Values.find(El.id);
          Value V = It == Values.end() ? Value() : It->second;
          Out = First ? V : binary(C, Out, V);
          First = false;
        }
        if (Out.isTensor())
          Out.R = Rank::NonZero;
      }
      return Out.isTensor() ? Out : Value();
    }
    if (oneOf(Q, {"torch.matmul", "torch.mm", "torch.bmm", "torch.add", "torch.mul", "torch.sub", "torch.div",
                  "torch.maximum", "torch.minimum"}) &&
        Args.size() >= 2)
      return binary(C, Args[0], Args[1]);
    if (Q == "torch.where" && Args.size() == 3)
      return binary(C, Args[1], Args[2]);
    if (startsWith(Q, "torch.nn.functional.") && !Args.empty()) {
      if (isFunctionalLoss(Name)) {
        Value V = Args.size() >= 2 ? binary(C, Args[0], Args[1]) : Args[0];
        if (V.isTensor())
          V.R = Rank::Zero;
        return V.isTensor() ? V : Value();
      }
      if (Args[0].isTensor()) {
        Value V = Args[0];
        V.R = Rank::Unknown;
        V.Flags &= ~FlagPlainAttribute;
        return V;
      }
      return {};
    }
    if (Q == "torch.utils.data.DataLoader" || Q == "torch.utils.data.dataloader.DataLoader") {
      if (!ts_node_is_null(KwArg("collate_fn")) || A->HasSplat)
        return {};
      Value V = make(ValueKind::DataLoader);
      V.Loader = mark(C);
      TSNode Pin = KwArg("pin_memory");
      if (is(Pin, "true"))
        V.Flags |= FlagPinned;
      else if (!ts_node_is_null(Pin) && !is(Pin, "false"))
        return {}; // pinned or not depending on a variable: say nothing about non_blocking
      return V;
    }
    if (startsWith(Q, "torch.optim.") && capitalized(Name))
      return make(ValueKind::Optimizer);
    if (Q == "torch.load") {
      return make(ValueKind::Checkpoint);
    }
    if (Q == "torch.nn.Parameter" || Q == "torch.nn.parameter.Parameter") {
      if (Args.empty() || !Args[0].isTensor())
        return {};
      Value V = Args[0];
      V.Flags = (V.Flags & ~(FlagDefaultFactory | FlagPlainAttribute)) | FlagInput;
      return V;
    }
    if (startsWith(Q, "torch.nn.") && capitalized(Name) && Q.find('.', 9) == std::string::npos) {
      if (oneOf(Name, {"DataParallel", "Parameter", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"}))
        return Name == "DataParallel" ? make(ValueKind::Module) : Value();
      Value V = make(ValueKind::Module);
      V.DevHow = Origin::Constructed;
      V.DevAt = mark(C);
      if (Name == "Sequential") {
        bool AllCpu = !A->HasSplat;
        for (const Value &Arg : Args)
          AllCpu &= Arg.Kind == ValueKind::Module && Arg.Dev.Kind == DeviceKind::Cpu;
        if (AllCpu)
          V.Dev = Device::cpu();
        V.Type = DType::Float32;
        return V;
      }
      TSNode D = KwArg("device");
      if (!ts_node_is_null(D)) {
        if (auto Dv = deviceArg(D))
          V.Dev = *Dv;
      } else if (!A->HasSplat && !FactoriesUnknown && !F->DefaultsUnknown) {
        V.Dev = Device::cpu();
      }
      V.Type = ts_node_is_null(KwArg("dtype")) ? DType::Float32 : dtypeArg(KwArg("dtype"));
      V.TypeHow = Origin::Constructed;
      V.TypeAt = mark(C);
      if (isParamless(Name))
        V.Flags |= FlagParamless;
      return V;
    }
    if (startsWith(Q, "numpy."))
      return numpyCall(Q.substr(6), C, Pos, Kw);
    if (Name == "tqdm" || Name == "enumerate")
      return Args.empty() ? Value() : Args[0];
    escape(*A);
    return {};
  }

  // Methods: `obj.name(...)`.
  if (is(Callee, "attribute")) {
    Value CalleeV = lookup(Callee);
    if (CalleeV.Kind == ValueKind::Module) { // `self.encoder(x)`, `model.head(x)`
      record(Callee, CalleeV);
      for (TSNode P : Pos)
        eval(P);
      for (auto &[N, V] : Kw)
        eval(V);
      noteLoop();
      return moduleCall(CalleeV, C, Pos);
    }
    TSNode Obj = field(Callee, "object");
    std::string_view Name = Text(field(Callee, "attribute"));
    Value Recv = eval(Obj);
    if (Name == "backward" || Name == "step")
      for (int32_t L : F->Loops)
        TrainingLoop[L] = 1;
    noteLoop();
    if (Recv.Kind == ValueKind::Unknown && !Recv.has(FlagInput))
      escape(*A); // `accelerator.prepare(model)`, `trainer.fit(model)`
    return methodCall(C, Callee, Obj, Name, Recv, Pos, Kw);
  }

  // Plain names: builtins, local functions and classes, module objects.
  for (TSNode P : Pos)
    eval(P);
  for (auto &[N, V] : Kw)
    eval(V);
  if (is(Callee, "identifier")) {
    std::string_view Name = Text(Callee);
    Value CalleeV = lookup(Callee);
    if (CalleeV.Kind == ValueKind::Module) {
      record(Callee, CalleeV);
      return moduleCall(CalleeV, C, Pos);
    }
    if (oneOf(Name, {"float", "int", "len", "bool"})) {
      noteLoop();
      return make(ValueKind::Scalar);
    }
    if (Name == "next" && Pos.size() == 1 && is(Pos[0], "call")) {
      // next(model.parameters()).device
      TSNode Fn = field(Pos[0], "function");
      if (is(Fn, "attribute") && oneOf(Text(field(Fn, "attribute")), {"parameters", "buffers"})) {
        const Value *Mod = nullptr;
        auto It = Values.find(field(Fn, "object").id);
        if (It != Values.end())
          Mod = &It->second;
        if (Mod && Mod->Kind == ValueKind::Module && !Mod->has(FlagParamless)) {
          Value V = *Mod;
          V.Kind = ValueKind::Tensor;
          V.Flags = FlagInput;
          return V;
        }
      }
      return {};
    }
    if (CalleeV.Kind != ValueKind::Unknown || F->S.V.count(Name))
      return {};
    if (const ClassInfo *Cls = M.localClass(Name)) {
      if (!Cls->IsModule)
        return {};
      int32_t CI = static_cast<int32_t>(Cls - M.classes().data());
      Value V = make(ValueKind::Module);
      V.DevHow = Origin::Constructed;
      V.DevAt = mark(C);
      V.Type = DType::Float32;
      V.TypeHow = Origin::Constructed;
      V.TypeAt = mark(C);
      // A module whose constructor is told a device, or moves itself, is not on the CPU.
      bool Told = A->HasSplat;
      for (auto &[N, KV] : Kw)
        Told |= isDeviceName(N) || N == "dtype";
      for (TSNode P : Pos)
        Told |= isDeviceName(Text(P));
      analyseClassInit(CI);
      // Only modules built entirely from torch.nn in this file are known to be on the CPU.
      bool Local = true;
      for (const std::string &B : Cls->Bases)
        Local &= B == "torch.nn.Module" || B == "torch.nn.modules.module.Module";
      if (!Told && Local && !FactoriesUnknown && !F->DefaultsUnknown && !Classes[CI].MovesItself)
        V.Dev = Device::cpu();
      // A forward that moves its inputs (`x = x.to(self.device)`) accepts them anywhere.
      for (const Scope &S : M.scopes())
        if (S.Kind == ScopeKind::Function && S.Class == CI && S.Name == "forward") {
          std::string_view Body = Text(field(S.Node, "body"));
          if (Body.find(".to(") != std::string_view::npos || Body.find(".cuda(") != std::string_view::npos)
            V.Flags |= FlagMovesInputs;
        }
      return V;
    }
    auto Top = TopFunctions.find(Name);
    bool Local = Top != TopFunctions.end() && M.importOf(Name).empty();
    if (!oneOf(Name, {"print", "isinstance", "type", "str", "repr", "id", "hasattr", "range", "zip", "list",
                      "tuple", "enumerate", "next", "iter"}))
      escape(*A, Local && !A->HasSplat ? Top->second : -1);
    if (Top != TopFunctions.end() && M.importOf(Name).empty()) {
      Value R = localCall(Top->second);
      // Only what the helper builds itself is known; parameter-dependent values are not.
      return R;
    }
    return {};
  }
  // Anything else called: a module stored in an attribute or a subscript.
  Value CalleeV = eval(Callee);
  if (CalleeV.Kind == ValueKind::Module)
    return moduleCall(CalleeV, C, Pos);
  escape(*A);
  return {};
}

// Whether a local function may move the module passed as its parameter (by position or by
// keyword): it calls a moving method on it, or hands it on to other code.
bool DeviceFlow::Impl::mayMove(int32_t Scope, size_t Position, std::string_view Keyword) const {
  // A helper called from many places would have its body searched at each: answer once.
  auto Key = std::make_tuple(Scope, Keyword.empty() ? Position : 0, std::string(Keyword));
  auto [It, New] = MayMove.try_emplace(std::move(Key), false);
  if (New)
    It->second = mayMoveUncached(Scope, Position, Keyword);
  return It->second;
}

bool DeviceFlow::Impl::mayMoveUncached(int32_t Scope, size_t Position, std::string_view Keyword) const {
  TSNode Fn = M.scope(Scope).Node;
  std::string_view Param;
  size_t I = 0;
  for (TSNode P : namedChildren(field(Fn, "parameters"))) {
    TSNode Name = is(P, "identifier") ? P : field(P, "name");
    if (is(P, "typed_parameter"))
      Name = ts_node_named_child(P, 0);
    if (!is(Name, "identifier"))
      return true; // *args, **kwargs: anything may happen
    std::string_view N = Text(Name);
    if ((Keyword.empty() && I == Position) || (!Keyword.empty() && N == Keyword)) {
      Param = N;
      break;
    }
    ++I;
  }
  if (Param.empty())
    return true;
  std::string_view Body = Text(field(Fn, "body"));
  if (Body.find("global ") != std::string_view::npos)
    return true;
  // Each place the name occurs: `P.to(` and the other moves, or P handed on as an argument
  // (`(P)`, `(P,`, `, P)`, `, P,`, `=P)`, `=P,`). One search for the name, not one per pattern.
  for (size_t At = Body.find(Param); At != std::string_view::npos; At = Body.find(Param, At + 1)) {
    std::string_view After = Body.substr(At + Param.size());
    for (std::string_view Move : {".to(", ".cuda(", ".cpu(", ".apply(", ".half(", ".double(", ".float("})
      if (startsWith(After, Move))
        return true;
    if (After.empty() || (After[0] != ')' && After[0] != ','))
      continue;
    std::string_view Before = Body.substr(0, At);
    if (endsWith(Before, "(") || endsWith(Before, ", ") || endsWith(Before, "="))
      return true;
  }
  return false;
}

// A module handed to code we do not follow may be moved there: forget its device.
void DeviceFlow::Impl::escape(const CallArgs &A, int32_t Callee) {
  size_t Position = 0;
  std::string_view Keyword;
  auto Forget = [&](TSNode Arg) {
    std::string_view Key = pathKey(Arg);
    if (Key.empty())
      return;
    auto It = F->S.V.find(Key);
    if (It == F->S.V.end() || It->second.Kind != ValueKind::Module)
      return;
    // (Asked last: reading the helper's body costs more than the look-up.)
    if (Callee >= 0 && !mayMove(Callee, Position, Keyword))
      return;
    It->second.Dev = Device();
    It->second.DevHow = Origin::None;
    It->second.DevAt = NodeMark{};
  };
  for (TSNode P : A.Positional) {
    Forget(P);
    ++Position;
  }
  for (auto &[N, V] : A.Keywords) {
    Keyword = N;
    Forget(V);
  }
}

Value DeviceFlow::Impl::moduleCall(const Value &Mod, TSNode C, const ArgNodes &Pos) {
  Value V = make(ValueKind::Tensor);
  if (Mod.has(FlagParamless)) {
    Value Out;
    bool First = true;
    for (TSNode P : Pos) {
      auto It = Values.find(P.id);
      Value A = It == Values.end() ? Value() : It->second;
      Out = First ? A : binary(C, Out, A);
      First = false;
    }
    if (!Out.isTensor())
      return {};
    Out.R = Rank::Unknown;
    return Out;
  }
  V.Dev = Mod.Dev;
  V.DevHow = Origin::ModuleOutput;
  V.DevAt = Mod.DevAt ? Mod.DevAt : mark(C); // where the module got its device
  V.Type = Mod.Type;
  V.TypeHow = Mod.TypeHow;
  V.TypeAt = Mod.TypeAt;
  if (Mod.Dev.Kind == DeviceKind::Configured && Mod.Dev.Name == "self")
    V.Flags |= FlagInput; // computed by a submodule inside the module: on the module's device
  return V;
}

Value DeviceFlow::Impl::numpyCall(std::string_view Name, TSNode C, const ArgNodes &Pos,
                                  const KeywordArgs &Kw) {
  Value V = make(ValueKind::NumpyArray);
  V.TypeAt = mark(C);
  V.TypeHow = Origin::Numpy;
  TSNode Dt{};
  for (auto &[N, Val] : Kw)
    if (N == "dtype")
      Dt = Val;
  bool Float = oneOf(Name, {"zeros", "ones", "empty", "full", "eye", "identity", "linspace", "random.rand",
                            "random.randn", "random.random", "random.uniform", "random.normal",
                            "random.standard_normal", "random.random_sample"});
  if (!ts_node_is_null(Dt)) {
    V.Type = dtypeArg(Dt);
  } else if (Float && Name != "full") {
    V.Type = DType::Float64;
  } else if ((Name == "array" || Name == "asarray") && !Pos.empty() && is(Pos[0], "list")) {
    // A list literal with a float in it is float64.
    bool AnyFloat = false, AllNumbers = true;
    for (TSNode El : namedChildren(Pos[0])) {
      AnyFloat |= is(El, "float");
      AllNumbers &= is(El, "float") || is(El, "integer") || is(El, "unary_operator");
    }
    if (AnyFloat && AllNumbers)
      V.Type = DType::Float64;
  }
  if (V.Type != DType::Unknown && !Pos.empty())
    V.R = Rank::NonZero;
  return V;
}

Value DeviceFlow::Impl::methodCall(TSNode C, TSNode /*Callee*/, TSNode Obj, std::string_view Name, const Value &Recv,
                                   const ArgNodes &Pos,
                                   const KeywordArgs &Kw) {
  auto KwArg = [&](std::string_view N) {
    for (auto &[K, V] : Kw)
      if (K == N)
        return V;
    return TSNode{};
  };
  // Arguments of `.to(...)` are read as devices and dtypes; evaluate the others.
  bool IsTo = Name == "to";
  std::vector<Value> Args;
  for (TSNode P : Pos)
    Args.push_back(IsTo ? Value() : eval(P));
  for (auto &[N, V] : Kw)
    if (!IsTo)
      eval(V);

  // Where `.to(...)` sends a value: device and dtype.
  std::optional<Device> ToDev;
  DType ToType = DType::Unknown;
  bool ToKnown = true;
  TSNode ToAt = C;
  if (IsTo) {
    TSNode D = KwArg("device"), T = KwArg("dtype");
    for (auto &[N, V] : Kw)
      if (N != "device" && N != "dtype")
        eval(V);
    size_t I = 0;
    if (ts_node_is_null(D) && !Pos.empty()) {
      DType PT = dtypeArg(Pos[0]);
      if (PT != DType::Unknown) {
        ToType = PT;
        I = 1;
      } else {
        Value Other = eval(Pos[0]);
        if (Other.isTensor()) { // x.to(other): other's device and dtype
          ToDev = Other.Dev.known() ? std::optional<Device>(Other.Dev) : std::nullopt;
          ToKnown = Other.Dev.known();
          ToType = Other.Type;
          I = Pos.size();
        } else {
          D = Pos[0];
          I = 1;
        }
      }
    }
    if (!ts_node_is_null(D)) {
      if (!is(D, "none")) {
        ToDev = deviceArg(D);
        ToKnown = ToDev.has_value();
      }
    }
    if (I < Pos.size() && ts_node_is_null(T))
      T = Pos[I];
    if (!ts_node_is_null(T))
      ToType = dtypeArg(T);
  } else if (Name == "cuda") {
    TSNode D = Pos.empty() ? KwArg("device") : Pos[0];
    ToDev = Device{DeviceKind::Cuda, -1, {}};
    if (!ts_node_is_null(D)) {
      if (auto I = intLiteral(D, Text))
        ToDev->Index = static_cast<int32_t>(*I);
      else
        ToDev = deviceArg(D);
      ToKnown = ToDev.has_value();
    }
  } else if (Name == "cpu") {
    ToDev = Device::cpu();
  } else if (Name == "float") {
    ToType = DType::Float32;
  } else if (Name == "double") {
    ToType = DType::Float64;
  } else if (Name == "half") {
    ToType = DType::Half;
  } else if (Name == "bfloat16") {
    ToType = DType::BFloat16;
  } else if (Name == "long" || Name == "int") {
    ToType = DType::Integer;
  }
  bool Moves = IsTo || Name == "cuda" || Name == "cpu";
  bool Casts = oneOf(Name, {"float", "double", "half", "bfloat16", "long", "int"});

  auto applyMove = [&](Value V) {
    if (Moves) {
      if (ToDev && ToKnown) {
        V.Dev = *ToDev;
        V.DevHow = Origin::Moved;
        V.DevAt = mark(ToAt);
        V.Flags &= ~(FlagDefaultFactory | FlagPinned | FlagPlainAttribute);
      } else if (!ToKnown || ToDev) {
        V.Dev = Device();
        V.DevHow = Origin::None;
        V.DevAt = NodeMark{};
        V.Flags &= ~(FlagDefaultFactory | FlagPinned | FlagPlainAttribute);
      }
    }
    if (ToType != DType::Unknown) {
      V.Type = ToType;
      V.TypeHow = Origin::Cast;
      V.TypeAt = mark(C);
    }
    return V;
  };

  if (Recv.Kind == ValueKind::Module) {
    std::string_view Key = pathKey(Obj);
    bool Self = Text(Obj) == "self" && F->Class >= 0;
    if (Self && (Moves || Casts)) {
      if (F->InInit)
        Classes[F->Class].MovesItself = true;
      return Recv;
    }
    // `self.register_buffer("pe", pe)` in `__init__`: a buffer, which follows the module.
    if (Self && Name == "register_buffer" && Pos.size() >= 2) {
      if (auto S = stringLiteral(Pos[0], Text)) {
        Value V = Args[1];
        BufferNames.push_back("self." + std::string(*S));
        if (V.isTensor()) {
          V.Flags = (V.Flags & ~FlagDefaultFactory) | FlagInput;
          F->S.V[BufferNames.back()] = V;
          F->Parents.insert("self");
        } else {
          F->S.V.erase(BufferNames.back());
        }
      }
      return {};
    }
    if (Self)
      return {}; // a method of the module itself: it does not move it
    if (Moves || Casts) {
      // Modules move in place and return themselves.
      Value V = applyMove(Recv);
      if (!Key.empty())
        set(Key, V);
      return V;
    }
    if (oneOf(Name, {"train", "eval", "requires_grad_", "share_memory"}))
      return Recv;
    if (oneOf(Name, {"parameters", "named_parameters", "state_dict", "buffers", "named_buffers", "modules",
                     "children", "named_modules", "named_children", "zero_grad", "load_state_dict",
                     "register_buffer", "register_parameter", "add_module", "forward", "extra_repr"})) {
      if (Name == "forward")
        return moduleCall(Recv, C, Pos);
      return {};
    }
    // An unknown method may move the module: forget where it is.
    if (!Key.empty()) {
      auto It = F->S.V.find(Key);
      if (It != F->S.V.end()) {
        It->second.Dev = Device();
        It->second.DevHow = Origin::None;
        It->second.DevAt = NodeMark{};
      }
    }
    return {};
  }
  if (Recv.Kind == ValueKind::Device || Recv.Kind == ValueKind::Optimizer || Recv.Kind == ValueKind::DataLoader)
    return {};
  if (Recv.Kind == ValueKind::Unknown && !Recv.has(FlagInput)) {
    return {};
  }
  if (Recv.Kind == ValueKind::NumpyArray) {
    if (Name == "astype" && !Pos.empty()) {
      Value V = Recv;
      V.Type = dtypeArg(Pos[0]);
      V.TypeAt = mark(C);
      return V;
    }
    return {};
  }
  // Tensors (or inputs of forward, whose kind we do not know).
  bool Tensor = Recv.isTensor();
  if (Moves || Casts) {
    Value V = applyMove(Recv);
    if (!Tensor)
      V.Kind = ValueKind::Unknown;
    return V;
  }
  if (!Tensor)
    return {};
  if (oneOf(Name, {"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"})) {
    Value V = Recv;
    V.Flags &= FlagInput;
    V.R = Name == "new_tensor" ? Rank::Unknown : Rank::NonZero;
    return V;
  }
  if (Name == "pin_memory") {
    Value V = Recv;
    V.Flags |= FlagPinned;
    return V;
  }
  if (keepsShape(Name) || keepsDevice(Name)) {
    Value V = Recv;
    V.Flags &= ~FlagPlainAttribute;
    if (!keepsShape(Name))
      V.R = Rank::Unknown;
    if (oneOf(Name, {"matmul", "mm", "bmm", "add", "sub", "mul", "div", "type_as"}) && !Args.empty()) {
      if (Name == "type_as") {
        V.Type = Args[0].Type;
        return V;
      }
      return binary(C, Recv, Args[0]);
    }
    return V;
  }
  if (Name == "item")
    return make(ValueKind::Scalar);
  if (Name == "numpy") {
    Value V = make(ValueKind::NumpyArray);
    V.Type = Recv.Type;
    return V;
  }
  return {};
}

} // namespace torchlint::flow
