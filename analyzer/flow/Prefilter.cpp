// The text prefilter: the words without which no flow rule can report, found in one pass
// over the file, so that the functions that hold none are never interpreted (most of a
// library has no device code at all).
#include "flow/Interpreter.h"

#include "source/Strings.h"

#include <algorithm>
#include <array>
#include <utility>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#ifdef TORCHLINT_AVX2_SCAN
#include <immintrin.h>
#endif

namespace torchlint::flow {

namespace {

/// Whether a name written before `(` may call a tensor factory (`zeros(`, `torch.arange(`);
/// Python's own `range(` is no `torch.range`.
bool factoryWord(std::string_view Name) {
  return Name != "range" && torch::classifyTorch(Name).Kind == torch::Api::Factory;
}

/// The byte pairs a trigger can start with (findTriggers()).
constexpr std::string_view PairList[] = {".t", ".c", ".f", ".d", ".h", ".b", ".l", ".i",
                                         ".n", "de", "Da", "nu", "np", "no", "fl", "mp"};

#ifdef TORCHLINT_AVX2_SCAN
/// findTriggers()'s scan, thirty-two positions a step, where the processor has AVX2 (the same
/// compares as the SSE2 loop, twice as wide): \p Check is called on every position from \p I
/// whose two bytes are a pair of PairList. Returns where it stopped (fewer than 32 left).
template <class F>
[[gnu::target("avx2")]] size_t scanPairsAvx2(const unsigned char *Bytes, size_t I, size_t To, size_t N, F &Check) {
  for (; I + 32 <= To && I + 33 <= N; I += 32) {
    __m256i First = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Bytes + I));
    __m256i Second = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(Bytes + I + 1));
    __m256i Any = _mm256_setzero_si256();
#pragma GCC unroll 16
    for (std::string_view P : PairList)
      Any = _mm256_or_si256(Any, _mm256_and_si256(_mm256_cmpeq_epi8(First, _mm256_set1_epi8(P[0])),
                                                  _mm256_cmpeq_epi8(Second, _mm256_set1_epi8(P[1]))));
    for (auto Mask = static_cast<uint32_t>(_mm256_movemask_epi8(Any)); Mask; Mask &= Mask - 1)
      Check(I + static_cast<unsigned>(__builtin_ctz(Mask)));
  }
  return I;
}

#endif

} // namespace

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

// A function outside `forward` (a library function, a method of a plain class, a module's
// other methods but `__init__`) receives tensors from callers that may have put them on any
// device: a factory there without `device=` that meets one is the same bug as in `forward`.
// Tests and DataLoader workers run on the CPU by design.
bool DeviceFlow::Impl::libraryFunction(int32_t Scope) const {
  const torchlint::Scope &S = M.scope(Scope);
  return S.Kind == ScopeKind::Function && !M.inRole(Scope, static_cast<FunctionRole>(RoleForward | RoleDataWorker)) && S.Name != "__init__" &&
         !startsWith(S.Name, "test");
}

// Whether a function, \p Code its text from its parameters on (afterName()), reads its parameter
// \p Name as only a tensor is read: its device, or methods that NumPy arrays and Python sequences
// do not have.
bool DeviceFlow::Impl::usedAsTensor(std::string_view Code, std::string_view Name) const {
  static constexpr std::string_view Uses[] = {".device", ".is_cuda", ".dim()", ".size(", ".numel()", ".new_zeros(",
                                              ".new_ones(", ".new_full(", ".new_empty(", ".new_tensor(",
                                              ".unsqueeze(", ".masked_fill", ".index_select(", ".permute(",
                                              ".contiguous()", ".float()", ".detach()"};
  for (size_t At = findBytes(Code, Name); At != std::string_view::npos; At = findBytes(Code, Name, At + 1)) {
    if (At > 0 && nameByte(Code[At - 1]))
      continue;
    std::string_view Rest = Code.substr(At + Name.size());
    if (!Rest.empty() && nameByte(Rest[0]))
      continue;
    if (!Rest.empty() && Rest[0] == '.') // every use in the list starts with one
      for (std::string_view U : Uses)
        if (startsWith(Rest, U))
          return true;
    // The first argument of a `torch` function (`torch.cumsum(x, 0)`): NumPy arrays and lists
    // are refused there.
    if (At > 0 && Code[At - 1] == '(' && (startsWith(Rest, ",") || startsWith(Rest, ")"))) {
      size_t B = At - 1;
      while (B > 0 && (nameByte(Code[B - 1]) || Code[B - 1] == '.'))
        --B;
      std::string_view Callee = Code.substr(B, At - 1 - B);
      size_t Dot = Callee.find('.');
      // A factory's first argument is a size or a bound (`torch.arange(n)`, `torch.zeros(n)`): a
      // Python number. Only one that reads it as data (`torch.tensor(x)`) takes a tensor there.
      if (Dot != std::string_view::npos && M.importOf(Callee.substr(0, Dot)) == "torch") {
        torch::ApiFacts Facts = torch::classify("torch" + std::string(Callee.substr(Dot)));
        if (Facts.returnsTensor() && !(Facts.Kind == torch::Api::Factory && !Facts.has(torch::DataDevice)))
          return true;
      }
    }
  }
  return false;
}

// A library function matters when it calls a factory (or a function of this file) and takes a
// tensor argument.
bool DeviceFlow::Impl::libraryMayMatter(int32_t Scope) {
  if (!libraryFunction(Scope))
    return false;
  TSNode Fn = M.scope(Scope).Node;
  std::string_view Code = afterName(Fn);
  if (!callsSource(Code, /*Constructors=*/false))
    return false;
  bool First = true;
  for (const Parameter &P : M.parameters(Fn)) {
    bool IsFirst = std::exchange(First, false);
    if (ts_node_is_null(P.Name) || (P.How != Parameter::Form::Plain && P.How != Parameter::Form::Default))
      continue;
    std::string_view Name = Text(P.Name);
    // A method's `self` or `cls` is no tensor argument (setupParameters() never makes it an
    // input), and reading a method's every use of it would cost more than the rest.
    if (IsFirst && (Name == "self" || Name == "cls"))
      continue;
    std::string_view Ann = ts_node_is_null(P.Annotation) ? std::string_view() : Text(P.Annotation);
    if (endsWith(Ann, "Tensor") || usedAsTensor(Code, Name))
      return true;
  }
  return false;
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

// Whether the project's name \p Q is a function or class whose summary gives a value (or loads
// a state): only those make a caller worth interpreting. (A function exported for what it does
// to its arguments alone does not.)
bool DeviceFlow::Impl::projectSource(std::string_view Q) {
  const Export *E = projectName(Q, /*Decides=*/false).second;
  return E && (E->Result.Kind != ValueKind::Unknown || E->LoadsState || E->What != Export::Kind::Function);
}

// projectSource() of a dotted name the prefilter spelt itself, remembered per name.
bool DeviceFlow::Impl::projectCallee(std::string Q) {
  auto [It, New] = ProjectCallees.try_emplace(std::move(Q), false);
  if (New)
    It->second = projectSource(It->first);
  return It->second;
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
    // Nested helpers count where their own text holds what a flow rule needs: decorators' and
    // callbacks' `wrapper`s and `inner`s, which only pass calls on, would make every caller of
    // one a function to interpret. (A nested helper is still followed from a caller that is
    // interpreted for other reasons.)
    auto CallsFactory = [&](std::string_view Code) {
      for (size_t Open = Code.find('('); Open != std::string_view::npos; Open = Code.find('(', Open + 1)) {
        size_t Begin = Open;
        while (Begin > 0 && nameByte(Code[Begin - 1]))
          --Begin;
        std::string_view Name = Code.substr(Begin, Open - Begin);
        if (!Name.empty() && (factoryWord(Name) || factoryWord(lastComponent(M.importOf(Name)))))
          return true;
      }
      return false;
    };
    for (const Scope &S : M.scopes())
      if (S.Kind == ScopeKind::Function && S.Parent > 0 && M.scope(S.Parent).Kind == ScopeKind::Function &&
          (mayMatter(S.Node) || CallsFactory(afterName(S.Node))))
        LocalNames.insert(S.Name);
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
    auto [It, New] = CalleeWords.try_emplace(llvm::StringRef(Name.data(), Name.size()));
    CalleeWord &W = It->second;
    if (New) {
      W.Factory = factoryWord(Name);
      W.Local = LocalNames.count(Name) > 0;
      // Exceptions raised there are no modules.
      W.Constructor = capitalized(Name) && !endsWith(Name, "Error") && !endsWith(Name, "Exception") &&
                      !endsWith(Name, "Warning");
      W.Imported = M.importOf(Name);
      if (startsWith(W.Imported, "torch.")) {
        W.TorchFactory = factoryWord(lastComponent(W.Imported));
        W.TorchClass = capitalized(lastComponent(W.Imported));
      }
    }
    // Only a bare name calls this file's function or class (methods have no summaries).
    bool Bare = Begin == 0 || Code[Begin - 1] != '.';
    if (W.Factory || (Bare && W.Local) || W.TorchFactory || (Constructors && (W.Constructor || W.TorchClass)))
      return true;
    // A function of another module of the project whose summary says what it returns (a
    // summary reads no other module's: KeepModule, which may be set after the lint asked).
    if (Bare && !W.Imported.empty() && M.project() && !KeepModule) {
      if (W.Project < 0)
        W.Project = projectSource(W.Imported);
      if (W.Project)
        return true;
    }
    // A function a star import brought (`from helpers import *`).
    if (Bare && W.Imported.empty() && !W.Local && !M.starImports().empty() && M.project() && !KeepModule)
      for (const std::string &Star : M.starImports())
        if (projectCallee(Star + "." + std::string(Name)))
          return true;
    // The same function called through its module (`import helpers`, `helpers.make_mask(4)`).
    if (!Bare && M.project() && !KeepModule) {
      size_t Dot = Begin - 1, ModBegin = Dot;
      while (ModBegin > 0 && nameByte(Code[ModBegin - 1]))
        --ModBegin;
      bool Plain = ModBegin == 0 || Code[ModBegin - 1] != '.';
      std::string_view Module = M.importOf(Code.substr(ModBegin, Dot - ModBegin));
      if (Plain && !Module.empty() && !startsWith(Module, "torch") &&
          projectCallee(std::string(Module) + "." + std::string(Name)))
        return true;
    }
  }
  return false;
}

// One pass over the file for the words without which no flow rule can report: device moves
// and casts (the table's Move and Cast methods), devices, DataLoaders, NumPy, float64, MPS,
// `non_blocking`; host reads apart (HostReads: they count only beside `backward` or `step`),
// and optimizer state loads (StateLoads: only beside `parameters(`).
void DeviceFlow::Impl::findTriggers(std::string_view Src) {
  auto At = [&](size_t I, std::string_view W) { return Src.compare(I, W.size(), W) == 0; };
  // The byte pairs a trigger can start with (PairList): AVX2 or SSE2 compares rule out
  // thirty-two or sixteen positions at a time, and a 64K-bit set each position of the tail (a
  // set of first bytes alone let through one byte in eight, each a mispredicted branch).
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
    bool Hit = false, HostRead = false, StateLoad = false;
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
        StateLoad = At(I + 1, "load_state_dict(");
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
    else if (StateLoad)
      StateLoads.push_back(static_cast<uint32_t>(I));
  };
  auto Scan = [&](size_t From, size_t To) {
    size_t I = From, N = Src.size();
#ifdef TORCHLINT_AVX2_SCAN
    if (hasAvx2())
      I = scanPairsAvx2(Bytes, I, To, N, Check);
#endif
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
  // Collectives matter only in a file whose process group is NCCL's (TL403): rare words, so
  // one search each, and only there.
  if (M.textHas("nccl")) {
    size_t Before = Triggers.size();
    for (std::string_view Name : torch::lastNamesOf(torch::Api::Collective)) {
      std::string Call = "." + std::string(Name) + "(";
      for (size_t I = findBytes(Src, Call); I != std::string_view::npos; I = findBytes(Src, Call, I + 1))
        Triggers.push_back(static_cast<uint32_t>(I));
    }
    if (Triggers.size() != Before)
      std::sort(Triggers.begin(), Triggers.end());
  }
}

bool DeviceFlow::Impl::mayMatter(uint32_t Begin, uint32_t End) const {
  auto Within = [&](const std::vector<uint32_t> &Offsets) {
    auto It = std::lower_bound(Offsets.begin(), Offsets.end(), Begin);
    return It != Offsets.end() && *It < End;
  };
  if (Within(Triggers))
    return true;
  std::string_view Code = Text.source().substr(Begin, End - Begin);
  // An optimizer's state matters only where an optimizer is built over a model's parameters.
  if (Within(StateLoads) && containsBytes(Code, "parameters("))
    return true;
  if (!Within(HostReads))
    return false;
  // A training loop is one whose body calls `backward()` or `step()` (see call()).
  return containsBytes(Code, "backward") || containsBytes(Code, "step");
}

} // namespace torchlint::flow
