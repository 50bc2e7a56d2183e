// Guards read from the tree: conditions, asserts and test markers about the accelerator.
#include "semantic/Guards.h"

#include "semantic/SemanticModel.h"
#include "source/Strings.h"
#include "torch/Api.h"

#include <llvm/ADT/SmallVector.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <tuple>
#include <vector>

namespace torchlint {

namespace {

GuardSense flip(GuardSense S) {
  return S == GuardSense::Present ? GuardSense::Absent : S == GuardSense::Absent ? GuardSense::Present : S;
}

/// Two conditions joined by `and` or `or`: one that says nothing leaves the other's sense;
/// `not torch.cuda.is_available() or x.is_cuda` says nothing in one direction.
GuardSense join(GuardSense A, GuardSense B) {
  if (A == GuardSense::None)
    return B;
  if (B == GuardSense::None || A == B)
    return A;
  return GuardSense::Either;
}

bool upperAscii(char C) { return C >= 'A' && C <= 'Z'; }
bool lowerLetter(char C) { return C >= 'a' && C <= 'z'; }
bool letter(char C) { return upperAscii(C) || lowerLetter(C); }

/// Where in \p Name a word about an accelerator starts, or npos. `cuda`, `gpu` and `nccl` may
/// sit anywhere (`ngpu`, `TEST_MULTIGPU`, `iscuda`); `mps` must be a word of its own (`is_mps`,
/// `hasMPS`, not `timestamps`).
constexpr std::string_view AnywhereWords[] = {"cuda", "cudnn", "gpu", "nccl", "accelerat", "device_ids"};
// Short names only as words of their own: `use_mps`, `RunIf(tpu=True)`, `on_xla`; not
// `output` or `xlarge`. A test that runs only on a TPU runs where its devices exist too.
constexpr std::string_view ShortWords[] = {"mps", "tpu", "xla"};

size_t acceleratorWord(std::string_view Name) {
  // Most names hold none of the words: one pass says so before a search per word (its set
  // holds "cpu" too, which only lets a few more names through to the search).
  if (!mayMentionAccelerator(Name))
    return std::string_view::npos;
  size_t Best = std::string_view::npos;
  for (std::string_view W : AnywhereWords)
    Best = std::min(Best, findNoCase(Name, W));
  for (std::string_view W : ShortWords)
    for (size_t I = 0; (I = findNoCase(Name, W, I)) != std::string_view::npos; ++I) {
      bool Start = I == 0 || !letter(Name[I - 1]) || (upperAscii(Name[I]) && lowerLetter(Name[I - 1]));
      size_t E = I + 3;
      bool End = E == Name.size() || !lowerLetter(Name[E]) || upperAscii(Name[E - 1]);
      if (Start && End) {
        Best = std::min(Best, I);
        break;
      }
    }
  return Best;
}

/// Whether the words of \p Prefix (split at `_`, digits and lower-to-upper case changes)
/// include a negation: `no_cuda`, `disableGpu`, `skipIfNoCuda`.
bool negated(std::string_view Prefix) {
  for (size_t I = 0; I < Prefix.size();) {
    if (!letter(Prefix[I])) {
      ++I;
      continue;
    }
    size_t Begin = I++;
    while (I < Prefix.size() && letter(Prefix[I]) && !(upperAscii(Prefix[I]) && lowerLetter(Prefix[I - 1])))
      ++I;
    std::string_view W = Prefix.substr(Begin, I - Begin);
    for (std::string_view N : {"no", "not", "non", "disable", "disabled", "without", "skip"})
      if (W.size() == N.size() && findNoCase(W, N) == 0)
        return true;
  }
  return false;
}

/// A device string's sense: `"cuda"`, `"cuda:1"`, `"gpu"`, `"mps"`, `"nccl"` say Present,
/// `"cpu"` Absent; other strings (`"xla"`, error messages) nothing.
GuardSense deviceString(std::string_view S) {
  auto Starts = [&](std::string_view P) { return findNoCase(S.substr(0, P.size()), P) == 0; };
  auto Is = [&](std::string_view P) { return S.size() == P.size() && Starts(P); };
  if (Starts("cuda") || Is("gpu") || Is("mps") || Starts("mps:") || Is("nccl"))
    return GuardSense::Present;
  if (Is("cpu") || Starts("cpu:"))
    return GuardSense::Absent;
  return GuardSense::None;
}

/// Conditions nest as deep as their author likes; past this depth the reader says nothing
/// rather than risk the stack.
constexpr unsigned MaxDepth = 48;

/// The builtins whose value is about their argument's: `len(args.gpus) > 0`, `any(t.is_cuda
/// for t in ts)`, `bool(use_cuda)`.
bool passesThrough(std::string_view Callee) {
  for (std::string_view B : {"len", "bool", "any", "all", "int", "sum", "max", "min", "list", "tuple", "set"})
    if (Callee == B)
      return true;
  return false;
}

/// The first named child that is not a comment.
TSNode firstNamed(TSNode N) {
  for (uint32_t I = 0, E = ts_node_named_child_count(N); I < E; ++I) {
    TSNode C = ts_node_named_child(N, I);
    if (!is(C, "comment"))
      return C;
  }
  return TSNode{};
}

class Reader {
public:
  explicit Reader(const SemanticModel &M) : M(M), Text(M.text()) {}

  GuardSense condition(TSNode N, unsigned Depth) {
    if (ts_node_is_null(N) || Depth > MaxDepth)
      return GuardSense::None;
    std::string_view K = kind(N);
    if (K == "parenthesized_expression")
      return condition(firstNamed(N), Depth + 1);
    if (K == "not_operator")
      return flip(condition(field(N, "argument"), Depth + 1));
    if (K == "boolean_operator")
      return join(condition(field(N, "left"), Depth + 1), condition(field(N, "right"), Depth + 1));
    if (K == "comparison_operator")
      return comparison(N, Depth);
    if (K == "call")
      return call(N, Depth);
    if (K == "identifier" || K == "attribute")
      return dotted(N);
    if (K == "subscript") {
      // `os.environ["CUDA_VISIBLE_DEVICES"]`, `args.gpus[0]`; not `timings["cpu"]`
      TSNode Key = field(N, "subscript");
      GuardSense S = literalDevice(Key) == GuardSense::Absent ? GuardSense::None : tokenString(Key);
      return S != GuardSense::None ? S : condition(field(N, "value"), Depth + 1);
    }
    if (K == "named_expression")
      return condition(field(N, "value"), Depth + 1);
    if (K == "generator_expression" || K == "list_comprehension")
      return condition(field(N, "body"), Depth + 1);
    if (K == "conditional_expression") {
      GuardSense S = GuardSense::None;
      for (TSNode C : namedChildren(N))
        S = join(S, condition(C, Depth + 1));
      return S;
    }
    return GuardSense::None;
  }

  bool marker(TSNode N, unsigned Depth) {
    if (ts_node_is_null(N) || Depth > MaxDepth)
      return false;
    std::string_view K = kind(N);
    if (K == "list" || K == "tuple" || K == "parenthesized_expression" || K == "expression_list") {
      for (TSNode C : namedChildren(N))
        if (marker(C, Depth + 1))
          return true;
      return false;
    }
    if (K == "identifier" || K == "attribute")
      return !torchApi(N) && nameSense(lastName(N)) != GuardSense::None; // `@requires_cuda`, `@pytest.mark.gpu`
    if (K != "call")
      return false;
    TSNode Callee = field(N, "function");
    std::string_view Name = lastName(Callee);
    // PyTorch's own decorators (`@torch.autocast(device_type="cuda")`, `@torch.cuda.amp.custom_fwd`)
    // change how code runs, not whether it runs; its test suite's markers are markers.
    if (torchApi(Callee))
      return false;
    if (nameSense(Name) != GuardSense::None)
      return true; // `@skip_if_lt_x_gpu(2)`, `@requires_nccl()`
    if (findNoCase(Name, "xfail") != std::string_view::npos)
      return false; // an expected failure still runs
    TSNode Args = field(N, "arguments");
    if (!is(Args, "argument_list"))
      return false;
    NodeList List = namedChildren(Args);
    bool SkipIf = Name.size() == 6 && findNoCase(Name, "skipif") == 0;
    bool SkipUnless = Name.size() == 10 && findNoCase(Name, "skipunless") == 0;
    if (SkipIf || SkipUnless) {
      // The condition is the first argument or `condition=`.
      TSNode Cond{};
      for (TSNode A : List) {
        if (is(A, "list_splat") || is(A, "dictionary_splat")) {
          if (nameSense(Text(firstNamed(A))) != GuardSense::None)
            return true; // `skipif(**_SKIP_IF_NO_GPU)`
        } else if (is(A, "keyword_argument")) {
          if (Text(field(A, "name")) == "condition")
            Cond = field(A, "value");
        } else if (ts_node_is_null(Cond) && !is(A, "comment")) {
          Cond = A;
        }
      }
      GuardSense S = condition(Cond, Depth + 1);
      return SkipIf ? exitLeavesAccelerator(S) : assertHoldsAccelerator(S);
    }
    // Any other marker (`@RunIf(min_cuda_gpus=1)`, `@largeTensorTest("10GB", "cuda")`): an
    // argument about the accelerator, or a keyword named after it that is not turned off.
    for (TSNode A : List) {
      if (is(A, "keyword_argument")) {
        TSNode V = field(A, "value");
        if (nameSense(Text(field(A, "name"))) != GuardSense::None && !turnedOff(V))
          return true;
        if (literalDevice(V) == GuardSense::Present || condition(V, Depth + 1) != GuardSense::None)
          return true;
      } else if (is(A, "list_splat") || is(A, "dictionary_splat")) {
        if (nameSense(Text(firstNamed(A))) != GuardSense::None)
          return true;
      } else if (literalDevice(A) == GuardSense::Present || condition(A, Depth + 1) != GuardSense::None) {
        return true;
      }
    }
    return false;
  }

private:
  /// The names of a dotted expression, root first (`T`, `cuda`, `is_available`); empty when
  /// its root is no name (`x.cuda().is_contiguous`).
  llvm::SmallVector<std::string_view, 6> dottedNames(TSNode N) {
    llvm::SmallVector<std::string_view, 6> Names;
    while (is(N, "attribute")) {
      // `object . attribute`, read by position (a field look-up walks the children and the
      // field map); a comment inside moves them.
      if (ts_node_child_count(N) == 3) {
        Names.push_back(Text(ts_node_child(N, 2)));
        N = ts_node_child(N, 0);
      } else {
        Names.push_back(Text(field(N, "attribute")));
        N = field(N, "object");
      }
    }
    if (!is(N, "identifier"))
      return {};
    Names.push_back(Text(N));
    std::reverse(Names.begin(), Names.end());
    return Names;
  }

  /// What a dotted expression's root stands for: its import (`T` -> `torch`), else `torch` itself
  /// when that is the root's name (a file that star-imports it, a snippet), else empty.
  std::string_view importedRoot(std::string_view Root) const {
    std::string_view Q = M.importOf(Root);
    if (Q.empty() && Root == "torch")
      return Root;
    return Q;
  }

  /// Whether a dotted expression names something of PyTorch outside its test suite.
  bool torchApi(TSNode N) {
    auto Names = dottedNames(N);
    if (Names.empty())
      return false;
    std::string_view Q = importedRoot(Names.front());
    return (Q == "torch" || startsWith(Q, "torch.")) && !startsWith(Q, "torch.testing") &&
           !(Names.size() > 1 && Names[1] == "testing");
  }

  /// The last name of a dotted expression (`is_available` of `torch.cuda.is_available`).
  std::string_view lastName(TSNode N) const {
    if (is(N, "attribute"))
      return Text(field(N, "attribute"));
    return is(N, "identifier") ? Text(N) : std::string_view();
  }

  /// A name or attribute chain: one that resolves through an import speaks of the accelerator
  /// when any part of its qualified name does (`torch.cuda.is_available`, `torch.backends.mps`,
  /// `torch.version.cuda`, `from torch.cuda import device_count`); any other by its own last
  /// name (`use_cuda`, `args.no_cuda`, `self.on_gpu`, `x.is_cuda`).
  GuardSense dotted(TSNode N) {
    auto Names = dottedNames(N);
    if (Names.empty())
      return nameSense(lastName(N));
    std::string_view Q = importedRoot(Names.front());
    if (Q.empty())
      return nameSense(Names.back());
    GuardSense S = GuardSense::None;
    // The import's own parts after its package (`torch.cuda` of `from torch import cuda`).
    for (size_t Dot = Q.find('.'); Dot != std::string_view::npos;) {
      size_t Next = Q.find('.', Dot + 1);
      std::string_view Part = Q.substr(Dot + 1, Next == std::string_view::npos ? std::string_view::npos : Next - Dot - 1);
      S = join(S, nameSense(Part));
      Dot = Next;
    }
    for (size_t I = 1; I < Names.size(); ++I)
      S = join(S, nameSense(Names[I]));
    return S == GuardSense::Either ? GuardSense::Present : S;
  }

  /// A string literal that is a single name (`"CUDA_VISIBLE_DEVICES"`, `"no_cuda"`, `"cuda:0"`)
  /// by the words it holds; prose (a message with spaces) and other expressions say nothing.
  GuardSense tokenString(TSNode N) {
    std::optional<std::string_view> S = stringLiteral(N, Text);
    if (!S || S->empty() || S->find_first_of(" \t\r\n") != std::string_view::npos)
      return GuardSense::None;
    GuardSense D = deviceString(*S);
    return D != GuardSense::None ? D : nameSense(*S);
  }

  /// A device spelled as a literal: `"cuda"`, `"cpu"`, `torch.device("cuda", 0)`.
  GuardSense literalDevice(TSNode N) {
    if (std::optional<std::string_view> S = stringLiteral(N, Text))
      return deviceString(*S);
    if (!is(N, "call"))
      return GuardSense::None;
    auto Names = dottedNames(field(N, "function"));
    if (Names.size() != 2 || Names[1] != "device" || importedRoot(Names[0]) != "torch")
      return GuardSense::None;
    TSNode Args = field(N, "arguments");
    TSNode First = is(Args, "argument_list") ? firstNamed(Args) : TSNode{};
    std::optional<std::string_view> S = stringLiteral(First, Text);
    return S ? deviceString(*S) : GuardSense::None;
  }

  /// An expression that holds a device or its type: `device`, `args.dev`, `x.device`,
  /// `t.device.type`, `str(device)`, `torch.device(name)`.
  bool deviceLike(TSNode N, unsigned Depth) {
    if (Depth > MaxDepth)
      return false;
    if (is(N, "identifier"))
      return torch::mentionsDeviceWord(Text(N));
    if (is(N, "attribute")) {
      std::string_view Name = Text(field(N, "attribute"));
      return Name == "type" || torch::mentionsDeviceWord(Name);
    }
    if (is(N, "call")) {
      TSNode Callee = field(N, "function");
      TSNode Args = field(N, "arguments");
      std::string_view Name = lastName(Callee);
      if (Name == "str" && is(Args, "argument_list"))
        return deviceLike(firstNamed(Args), Depth + 1);
      return Name == "device";
    }
    return false;
  }

  GuardSense comparison(TSNode N, unsigned Depth) {
    // Operands are the named children, operators the tokens between them. (By index: nearly
    // every comparison has three children, and a cursor's steps cost more than three look-ups;
    // each look-up walks from the first child, so a chain is read no further than its start.)
    llvm::SmallVector<TSNode, 3> Operands;
    llvm::SmallVector<std::string_view, 2> Operators;
    for (uint32_t I = 0, E = std::min(ts_node_child_count(N), 9u); I < E; ++I) {
      TSNode X = ts_node_child(N, I);
      if (!ts_node_is_named(X))
        Operators.push_back(kind(X));
      else if (!is(X, "comment"))
        Operands.push_back(X);
    }
    GuardSense S = GuardSense::None;
    for (size_t I = 0; I < Operators.size() && I + 1 < Operands.size(); ++I)
      S = join(S, pair(Operands[I], Operators[I], Operands[I + 1], Depth + 1));
    return S;
  }

  /// The sense of one comparison `L Op R`.
  GuardSense pair(TSNode L, std::string_view Op, TSNode R, unsigned Depth) {
    // Each operand's own sense, read once: several forms below ask for it.
    std::optional<GuardSense> SenseL, SenseR;
    auto condition = [&](TSNode N, unsigned D) {
      std::optional<GuardSense> &Memo = ts_node_eq(N, L) ? SenseL : SenseR;
      if (!Memo)
        Memo = this->condition(N, D);
      return *Memo;
    };
    if (Op == "in" || Op == "not in") {
      bool Not = Op == "not in";
      // `"cuda" in str(device)`, `"CUDA_VISIBLE_DEVICES" in os.environ`
      if (GuardSense S = tokenString(L); S != GuardSense::None)
        return Not ? flip(S) : S;
      // `device.type in ("cuda", "mps")` chooses the accelerator; `map_location not in ["cpu",
      // "cuda"]` only checks that the value is a device: it chooses nothing.
      if (is(R, "list") || is(R, "tuple") || is(R, "set")) {
        std::optional<GuardSense> All;
        bool Strings = true;
        for (TSNode E : namedChildren(R)) {
          if (!is(E, "string")) {
            Strings = false;
            break;
          }
          GuardSense D = deviceString(stringLiteral(E, Text).value_or(""));
          All = !All || *All == D ? D : GuardSense::None;
        }
        if (Strings) {
          GuardSense S = All.value_or(GuardSense::None);
          if (S == GuardSense::Absent && !deviceLike(L, Depth))
            S = GuardSense::None;
          return Not ? flip(S) : S;
        }
      }
      return either(condition(L, Depth), condition(R, Depth));
    }
    if (Op == "is" || Op == "is not") {
      // `args.gpu is not None`, `x.is_cuda is True`
      bool Not = Op == "is not";
      TSNode Other = is(R, "none") || is(R, "true") || is(R, "false") ? L : R;
      TSNode Lit = ts_node_eq(Other, L) ? R : L;
      GuardSense S = condition(Other, Depth);
      if (is(Lit, "none"))
        return Not ? S : flip(S);
      if (std::optional<bool> B = boolLiteral(Lit))
        return *B != Not ? S : flip(S);
      return either(S, condition(Lit, Depth));
    }
    bool Eq = Op == "==", Ne = Op == "!=" || Op == "<>";
    if (Eq || Ne) {
      // `device.type == "cuda"`, `backend == "nccl"`, `args.accelerator == "gpu"`: whatever is
      // compared with an accelerator's name is about it; with "cpu", a device (`device !=
      // "cpu"`, `x.device.type == "cpu"`) or something about the accelerator.
      for (auto [Lit, Other] : {std::pair{R, L}, std::pair{L, R}}) {
        GuardSense D = literalDevice(Lit);
        if (D == GuardSense::Present || (D == GuardSense::Absent && (deviceLike(Other, Depth) ||
                                                                     condition(Other, Depth) != GuardSense::None)))
          return Eq ? D : flip(D);
        if (std::optional<bool> B = boolLiteral(Lit)) {
          GuardSense S = condition(Other, Depth);
          return *B == Eq ? S : flip(S);
        }
      }
      // `t.type() == "torch.cuda.HalfTensor"`, `args.mode == "no_gpu"` (device strings are read
      // above: "cpu" only against a device)
      for (TSNode Lit : {R, L})
        if (GuardSense S = tokenString(Lit); S != GuardSense::None && literalDevice(Lit) == GuardSense::None)
          return Eq ? S : flip(S);
    }
    // Counts: `torch.cuda.device_count() > 1`, `num_gpus == 0`, `len(device_ids) < 2`.
    for (auto [Num, Other, Mirrored] : {std::tuple{R, L, false}, std::tuple{L, R, true}}) {
      std::optional<long> V = intLiteral(Num, Text);
      if (!V)
        continue;
      GuardSense S = condition(Other, Depth);
      if (S == GuardSense::None || S == GuardSense::Either)
        return S;
      std::string_view O = Mirrored ? mirror(Op) : Op;
      GuardSense More = countSense(O, *V);
      return S == GuardSense::Present ? More : flip(More);
    }
    return either(condition(L, Depth), condition(R, Depth));
  }

  /// Two operands compared with each other: about the accelerator in no one direction when
  /// either is (`torch.cuda.current_device() == rank`, `rank in device_ids`).
  static GuardSense either(GuardSense A, GuardSense B) {
    return A == GuardSense::None && B == GuardSense::None ? GuardSense::None : GuardSense::Either;
  }

  static std::string_view mirror(std::string_view Op) {
    if (Op == "<")
      return ">";
    if (Op == ">")
      return "<";
    if (Op == "<=")
      return ">=";
    if (Op == ">=")
      return "<=";
    return Op;
  }

  /// What `count Op N` says of how many accelerators there are: more than none (Present),
  /// none or too few (Absent: `device_count() < 2` before `return` leaves two or more).
  static GuardSense countSense(std::string_view Op, long N) {
    if (Op == ">")
      return GuardSense::Present;
    if (Op == ">=")
      return N >= 1 ? GuardSense::Present : GuardSense::Either;
    if (Op == "<")
      return N >= 1 ? GuardSense::Absent : GuardSense::Either;
    if (Op == "<=")
      return N >= 0 ? GuardSense::Absent : GuardSense::Either;
    if (Op == "==")
      return N == 0 ? GuardSense::Absent : GuardSense::Present;
    if (Op == "!=" || Op == "<>")
      return N == 0 ? GuardSense::Present : GuardSense::Either;
    return GuardSense::Either;
  }

  GuardSense call(TSNode N, unsigned Depth) {
    bool Plain = ts_node_child_count(N) == 2; // callee and arguments, no comment between
    TSNode Callee = Plain ? ts_node_child(N, 0) : field(N, "function");
    TSNode Args = Plain ? ts_node_child(N, 1) : field(N, "arguments");
    // `torch.cuda.is_available()`, `is_cuda_available()`, `has_gpu()`
    if (GuardSense S = dotted(Callee); S != GuardSense::None)
      return S;
    if (is(Args, "generator_expression"))
      return passesThrough(lastName(Callee)) ? condition(Args, Depth + 1) : GuardSense::None;
    if (!is(Args, "argument_list"))
      return GuardSense::None;
    bool Through = is(Callee, "identifier") && passesThrough(Text(Callee));
    GuardSense S = GuardSense::None;
    for (TSNode A : namedChildren(Args)) {
      if (Through) {
        S = join(S, condition(A, Depth + 1));
        continue;
      }
      // `getattr(args, "no_cuda", False)`, `os.environ.get("CUDA_VISIBLE_DEVICES")`,
      // `device.startswith("cuda")`, `hasattr(torch.backends, "mps")`; "cpu" only of a device
      // (`str(device).startswith("cpu")`, not `timer.report("cpu")`)
      TSNode V = is(A, "keyword_argument") ? field(A, "value") : A;
      GuardSense T = tokenString(V);
      if (T == GuardSense::Absent && literalDevice(V) == GuardSense::Absent &&
          !(is(Callee, "attribute") && deviceLike(field(Callee, "object"), Depth + 1)))
        T = GuardSense::None;
      if (T != GuardSense::None)
        return T;
    }
    return S;
  }

  /// `False`, `None` or `0`: a marker's keyword that asks for nothing (`RunIf(mps=False)`).
  bool turnedOff(TSNode V) {
    if (is(V, "none") || is(V, "false"))
      return true;
    std::optional<long> I = intLiteral(V, Text);
    return I && *I == 0;
  }

  const SemanticModel &M;
  const NodeText &Text;
};

} // namespace

GuardSense nameSense(std::string_view Name) {
  size_t At = acceleratorWord(Name);
  if (At == std::string_view::npos)
    return GuardSense::None;
  return negated(Name.substr(0, At)) ? GuardSense::Absent : GuardSense::Present;
}

bool mayMentionAccelerator(std::string_view Text) {
  // The words acceleratorWord reads, and "cpu", the one more deviceString reads: every sense
  // above starts from one. (It runs on every condition and import of every file.)
  static const WordSet Words = [] {
    WordSet W{"cpu"};
    W.addAll(AnywhereWords);
    W.addAll(ShortWords);
    return W;
  }();
  return Words.anyIn(Text);
}

GuardSense conditionSense(TSNode Cond, const SemanticModel &M) {
  // Most conditions (`if x is None`, `if i % 10 == 0`) say nothing of the accelerator: a scan of
  // their text is cheaper than reading their tree.
  if (!M.importHidesAccelerator() && !ts_node_is_null(Cond) && !mayMentionAccelerator(M.text()(Cond)))
    return GuardSense::None;
  return Reader(M).condition(Cond, 0);
}

bool acceleratorMarker(TSNode Expr, const SemanticModel &M) {
  // As for conditions: a marker says something of the accelerator only through a word of its
  // text, or an import that hides one.
  if (!M.importHidesAccelerator() && !ts_node_is_null(Expr) && !mayMentionAccelerator(M.text()(Expr)))
    return false;
  return Reader(M).marker(Expr, 0);
}

static bool blockExits(TSNode Block, const NodeText &Text, unsigned Depth, bool InLoop);

/// Whether the statement \p S never lets control reach the statement after it: a `return`,
/// `raise`, `continue` or `break`, a call that ends the run or the test, or a compound statement
/// all of whose ways through end so (`with` and `if True:` run their body; `if`/`else` both).
static bool alwaysExits(TSNode S, const NodeText &Text, unsigned Depth, bool InLoop) {
  std::string_view K = kind(S);
  if (K == "return_statement" || K == "raise_statement")
    return true;
  if (K == "continue_statement" || K == "break_statement")
    return !InLoop; // in a loop of the block's own, they leave only that loop
  if (K == "expression_statement" && ts_node_named_child_count(S) == 1) {
    TSNode E = ts_node_named_child(S, 0);
    if (is(E, "assignment")) // `_ = pytest.skip(...)`: the call still does not come back
      E = field(E, "right");
    if (is(E, "call")) {
      std::string_view Callee = lastComponent(Text(field(E, "function")));
      return Callee == "exit" || Callee == "_exit" || Callee == "quit" || Callee == "skip" ||
             Callee == "skipTest" || Callee == "abort";
    }
    return false;
  }
  if (Depth > 32)
    return false;
  auto Ends = [&](TSNode Block, bool Loop) { return blockExits(Block, Text, Depth + 1, Loop); };
  if (K == "with_statement")
    return Ends(field(S, "body"), InLoop);
  if (K == "for_statement")
    return runsAtLeastOnce(field(S, "right"), Text) && Ends(field(S, "body"), true);
  if (K == "if_statement") {
    if (!Ends(field(S, "consequence"), InLoop))
      return false;
    if (boolLiteral(field(S, "condition")) == true)
      return true;
    bool Else = false;
    for (TSNode C : namedChildren(S)) {
      if (is(C, "elif_clause") && !Ends(field(C, "consequence"), InLoop))
        return false;
      if (is(C, "else_clause")) {
        if (!Ends(field(C, "body"), InLoop))
          return false;
        Else = true;
      }
    }
    return Else;
  }
  return false;
}

static bool blockExits(TSNode Block, const NodeText &Text, unsigned Depth, bool InLoop) {
  if (ts_node_is_null(Block))
    return false;
  // A comment after the exit (`raise ValueError(x)  # why`) is the block's last named child.
  uint32_t N = ts_node_named_child_count(Block);
  TSNode Last{};
  while (N > 0 && (ts_node_is_null(Last) || is(Last, "comment")))
    Last = ts_node_named_child(Block, --N);
  return !ts_node_is_null(Last) && alwaysExits(Last, Text, Depth, InLoop);
}

bool endsInExit(TSNode Block, const NodeText &Text) { return blockExits(Block, Text, 0, false); }

bool runsAtLeastOnce(TSNode Iter, const NodeText &Text) {
  if (is(Iter, "list") || is(Iter, "tuple")) {
    NodeList Items = namedChildren(Iter);
    return !Items.empty() && std::none_of(Items.begin(), Items.end(), [&](TSNode C) {
      return is(C, "list_splat") || is(C, "parenthesized_list_splat");
    });
  }
  if (!is(Iter, "call") || Text(field(Iter, "function")) != "range")
    return false;
  NodeList Args = namedChildren(field(Iter, "arguments"));
  std::optional<long> A = Args.size() == 2 ? intLiteral(Args[0], Text) : std::optional<long>(0);
  std::optional<long> B = Args.size() == 1 || Args.size() == 2 ? intLiteral(Args.back(), Text) : std::nullopt;
  return A && B && *B > *A;
}

bool ifGuardsFollowing(TSNode If, GuardSense S, const NodeText &Text) {
  if (S == GuardSense::None)
    return false;
  if (exitLeavesAccelerator(S)) {
    TSNode Body = field(If, "consequence");
    if (!ts_node_is_null(Body) && endsInExit(Body, Text))
      return true;
  }
  if (!assertHoldsAccelerator(S))
    return false;
  // `if torch.cuda.is_available(): ... else: sys.exit(...)`: only the accelerator gets past.
  // With an `elif` between, other conditions decide.
  TSNode Else{};
  for (TSNode C : namedChildren(If)) {
    if (is(C, "elif_clause"))
      return false;
    if (is(C, "else_clause"))
      Else = field(C, "body");
  }
  return !ts_node_is_null(Else) && endsInExit(Else, Text);
}

} // namespace torchlint
