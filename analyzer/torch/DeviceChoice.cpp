// The evidence that a program's device varies (see DeviceChoice.h). Found by searching the
// source text for what each form must spell (`cpu` in quotes, `--` in quotes) and reading the
// few nodes there, once per file and only when a rule asks.
#include "torch/DeviceChoice.h"

#include "semantic/Guards.h"
#include "source/Strings.h"
#include "torch/Api.h"
#include "torch/Read.h"

#include <array>

namespace torchlint::torch {

namespace {

/// Whether \p E, a part of a condition, is what a run can change: a flag (`use_cuda`,
/// `args.no_cuda`, `not cfg.cpu`), a comparison of a setting with a literal (`args.device ==
/// "cpu"`), or a question to the machine (`torch.cuda.is_available()`, `device_count() > 0`).
/// A condition about a backend (`get_backend(g) == "nccl"`), a tensor (`x.is_cuda`) or a type
/// (`cls.__module__ == "torch.cuda"`) derives the device from elsewhere: no choice.
bool runChangeable(TSNode E, const NodeText &T, int Depth = 0) {
  if (ts_node_is_null(E) || Depth > 8)
    return false;
  std::string_view Text = T(E);
  if (containsBytes(Text, "is_available") || containsBytes(Text, "device_count"))
    return true;
  if (is(E, "not_operator") || is(E, "parenthesized_expression"))
    return runChangeable(ts_node_named_child(E, ts_node_named_child_count(E) - 1), T, Depth + 1);
  if (is(E, "boolean_operator"))
    return runChangeable(field(E, "left"), T, Depth + 1) || runChangeable(field(E, "right"), T, Depth + 1);
  auto flag = [&](TSNode N) {
    if (!is(N, "identifier") && !is(N, "attribute"))
      return false;
    std::string_view Name = lastComponent(T(N));
    return nameSense(Name) != GuardSense::None || namesDevice(Name) || Name == "cpu";
  };
  if (is(E, "comparison_operator")) {
    TSNode L = ts_node_named_child(E, 0), R = ts_node_named_child(E, 1);
    return (flag(L) && is(R, "string")) || (flag(R) && is(L, "string"));
  }
  return flag(E);
}

/// Whether \p Cond chooses between devices from one run to the next: it is about the
/// accelerator, and runChangeable().
bool choiceCondition(TSNode Cond, const SemanticModel &M) {
  return !ts_node_is_null(Cond) && conditionSense(Cond, M) != GuardSense::None && runChangeable(Cond, M.text());
}

/// Whether \p If (an `if_statement`) or one of its `elif`s chooses between devices.
bool ifAboutAccelerator(TSNode If, const SemanticModel &M) {
  if (!is(If, "if_statement"))
    return false;
  if (choiceCondition(field(If, "condition"), M))
    return true;
  for (TSNode Clause : namedChildren(If))
    if (is(Clause, "elif_clause") && choiceCondition(field(Clause, "condition"), M))
      return true;
  return false;
}

/// Whether \p Branch, a branch of a conditional expression, is the `"cpu"` string \p S itself
/// or `torch.device("cpu")` (not a list of device names, not a call that takes it).
bool branchIs(TSNode Branch, TSNode S, const SemanticModel &M) {
  while (is(Branch, "parenthesized_expression") && ts_node_named_child_count(Branch) == 1)
    Branch = ts_node_named_child(Branch, 0);
  if (ts_node_eq(Branch, S))
    return true;
  if (!is(Branch, "call") || !ts_node_eq(ts_node_parent(ts_node_parent(S)), Branch))
    return false;
  return lastComponent(M.qualifiedName(field(Branch, "function"))) == "device";
}

/// Whether the statement \p Stmt gives the device a value: an assignment to a device-named
/// target (`device = "cpu"`, `self.device = torch.device("cpu")`), or a `return` in a function
/// whose name says it picks the device (`def get_device():`).
bool choosesWith(TSNode Stmt, const SemanticModel &M) {
  const NodeText &T = M.text();
  if (is(Stmt, "expression_statement") && ts_node_named_child_count(Stmt) == 1)
    Stmt = ts_node_named_child(Stmt, 0);
  if (is(Stmt, "assignment")) {
    TSNode Left = field(Stmt, "left");
    return (is(Left, "identifier") || is(Left, "attribute")) && namesDevice(T(Left));
  }
  if (!is(Stmt, "return_statement"))
    return false;
  for (TSNode A = ts_node_parent(Stmt); !ts_node_is_null(A); A = ts_node_parent(A))
    if (is(A, "function_definition"))
      return mentionsDeviceWord(T(field(A, "name")));
  return false;
}

/// The `if` next to \p Stmt in its block that tests the accelerator, where \p Stmt chooses the
/// device: `device = "cpu"` before `if torch.cuda.is_available(): device = "cuda"`, or `return
/// "cpu"` after `if torch.cuda.is_available(): return "cuda"`. Null where there is none.
TSNode ifBeside(TSNode Stmt, const SemanticModel &M) {
  if (!choosesWith(Stmt, M))
    return TSNode{};
  TSNode Before = Stmt, After = Stmt;
  for (int I = 0; I < 2; ++I) {
    Before = ts_node_is_null(Before) ? Before : ts_node_prev_named_sibling(Before);
    After = ts_node_is_null(After) ? After : ts_node_next_named_sibling(After);
    for (TSNode S : {Before, After})
      if (!ts_node_is_null(S) && ifAboutAccelerator(S, M))
        return S;
  }
  return TSNode{};
}

/// The construct that makes the string \p S (spelling `"cpu"`) a CPU fallback of a device
/// choice, or null: a conditional expression whose condition tests the accelerator
/// (`"cuda" if torch.cuda.is_available() else "cpu"`, `torch.device("cpu" if args.cpu else
/// "cuda")`), or an `if` about the accelerator whose branch, or whose neighbour, chooses the
/// device as `"cpu"`.
TSNode fallbackAt(TSNode S, const SemanticModel &M) {
  TSNode Prev = S;
  for (TSNode A = ts_node_parent(S); !ts_node_is_null(A); Prev = A, A = ts_node_parent(A)) {
    if (is(A, "conditional_expression")) {
      TSNode Cond = ts_node_named_child(A, 1);
      if (!ts_node_eq(Prev, Cond) && branchIs(Prev, S, M) && choiceCondition(Cond, M))
        return A;
      if (!branchIs(Prev, S, M))
        return TSNode{};
      Prev = A; // a nested conditional: `"cuda" if a else "mps" if b else "cpu"`
      continue;
    }
    if (is(A, "block") || is(A, "module")) {
      // Prev is the statement that holds the string.
      TSNode Owner = ts_node_parent(A);
      TSNode If = is(Owner, "if_statement")                                ? Owner
                  : is(Owner, "elif_clause") || is(Owner, "else_clause") ? ts_node_parent(Owner)
                                                                           : TSNode{};
      if (!ts_node_is_null(If) && choosesWith(Prev, M) && ifAboutAccelerator(If, M))
        return If;
      return ifBeside(Prev, M);
    }
    if (is(A, "function_definition") || is(A, "class_definition") || is(A, "lambda"))
      return TSNode{};
  }
  return TSNode{};
}

/// Whether \p Spelled (an option's name as written, `--no-cuda`) selects the device.
bool deviceOption(std::string_view Spelled) {
  while (!Spelled.empty() && Spelled.front() == '-')
    Spelled.remove_prefix(1);
  std::string Name;
  for (char C : Spelled)
    Name += C == '-' ? '_' : lowerAscii(C);
  static constexpr std::array<std::string_view, 13> Names = {
      "cpu",     "no_cuda", "nocuda",  "cuda",      "use_cuda", "device",       "use_gpu",
      "no_gpu",  "use_cpu", "cpu_only", "accelerator", "disable_cuda", "disable_gpu"};
  for (std::string_view N : Names)
    if (Name == N)
      return true;
  return false;
}

/// Calls every \p Fn with the string node spelling one of \p Needles' occurrences in the file
/// (a needle is searched with both quotes), until \p Fn returns true; the node it stopped at.
template <class F> TSNode eachString(const FileContext &File, std::string_view Needle, bool Prefix, F &&Fn) {
  TSNode Root = File.root();
  std::string_view Text = File.text()(Root);
  uint32_t Base = ts_node_start_byte(Root);
  for (char Quote : {'"', '\''}) {
    std::string Q = Quote + std::string(Needle) + (Prefix ? "" : std::string(1, Quote));
    for (size_t I = findBytes(Text, Q); I != std::string_view::npos; I = findBytes(Text, Q, I + 1)) {
      uint32_t B = Base + static_cast<uint32_t>(I);
      TSNode S = ts_node_descendant_for_byte_range(Root, B, B + static_cast<uint32_t>(Q.size()));
      while (!ts_node_is_null(S) && !is(S, "string") && ts_node_start_byte(S) == B)
        S = ts_node_parent(S);
      if (is(S, "string") && ts_node_start_byte(S) == B && Fn(S))
        return S;
    }
  }
  return TSNode{};
}

} // namespace

std::string DeviceEvidence::describe() const {
  std::string L = std::to_string(Line);
  switch (What) {
  case Kind::CpuFallback:
    return "this program falls back to the CPU at line " + L;
  case Kind::Option:
    return "its `" + std::string(Name) + "` option (line " + L + ") selects the device";
  case Kind::DeviceParameter:
    return "this function receives its `" + std::string(Name) + "` (line " + L + ")";
  case Kind::None:
    break;
  }
  return {};
}

DeviceChoice::DeviceChoice(const FileContext &File) : File(File) {
  Program = fallback();
  if (!Program)
    Program = option();
}

DeviceEvidence DeviceChoice::fallback() const {
  const SemanticModel &M = File.model();
  DeviceEvidence E;
  eachString(File, "cpu", false, [&](TSNode S) {
    TSNode At = fallbackAt(S, M);
    if (ts_node_is_null(At))
      return false;
    // The earliest in the file: the search runs once per quote character.
    uint32_t Line = File.source().lineOf(ts_node_start_byte(At)) + 1;
    if (!E || Line < E.Line)
      E = DeviceEvidence{DeviceEvidence::Kind::CpuFallback, At, {}, Line};
    return false;
  });
  return E;
}

DeviceEvidence DeviceChoice::option() const {
  const NodeText &T = File.text();
  DeviceEvidence E;
  eachString(File, "--", true, [&](TSNode S) {
    TSNode Args = ts_node_parent(S);
    if (!is(Args, "argument_list"))
      return false;
    TSNode Call = ts_node_parent(Args);
    if (!is(Call, "call"))
      return false;
    std::string_view Callee = lastComponent(T(field(Call, "function")));
    if (Callee != "add_argument" && Callee != "option" && Callee != "add_option")
      return false;
    auto Spelled = stringLiteral(S, T);
    if (!Spelled || !deviceOption(*Spelled))
      return false;
    uint32_t Line = File.source().lineOf(ts_node_start_byte(S)) + 1;
    if (!E || Line < E.Line)
      E = DeviceEvidence{DeviceEvidence::Kind::Option, S, *Spelled, Line};
    return false;
  });
  return E;
}

namespace {

/// Whether parameter \p P is a flag, not a device: annotated `bool`, or defaulting to `True` or
/// `False` (`single_device: bool = False`).
bool flag(const Parameter &P, const NodeText &T) {
  TSNode Type = field(P.Node, "type");
  return (!ts_node_is_null(Type) && T(Type) == "bool") || is(P.Default, "true") || is(P.Default, "false");
}

} // namespace

DeviceEvidence DeviceChoice::around(int32_t Scope) const {
  if (Program)
    return Program;
  const SemanticModel &M = File.model();
  // A parameter that holds a device (`device`, `dev`, `map_device`, `device_type`), not one
  // that only mentions CUDA or GPUs (`use_gpu`, `cuda_init_mode`).
  auto holdsDevice = [](std::string_view Name) {
    return namesDevice(Name) && (containsNoCase(Name, "device") || Name == "dev" || endsWith(Name, "_dev") ||
                                 startsWith(Name, "dev_"));
  };
  for (int32_t S = Scope; S >= 0; S = M.scope(S).Parent) {
    const struct Scope &Sc = M.scope(S);
    if (Sc.Kind != ScopeKind::Function)
      continue;
    for (const Parameter &P : M.parameters(Sc.Node))
      if (!ts_node_is_null(P.Name) && holdsDevice(M.text()(P.Name)) && !flag(P, M.text()))
        return DeviceEvidence{DeviceEvidence::Kind::DeviceParameter, P.Name, M.text()(P.Name),
                              File.source().lineOf(ts_node_start_byte(P.Name)) + 1};
  }
  return {};
}

bool DeviceChoice::choosesOtherThanCuda() const {
  if (OtherThanCuda)
    return *OtherThanCuda;
  const SemanticModel &M = File.model();
  const NodeText &T = M.text();
  // A value that spells CUDA chooses CUDA: a string or `torch.device(...)` of type `cuda`, or a
  // conditional between two such.
  auto cudaOnly = [&](TSNode V) {
    auto D = spelledDevice(V, M);
    return D && D->type() == "cuda";
  };
  bool Found = !M.choosesDevice() ? false : [&] {
    bool Other = false;
    forEachNode(File.root(), [&](TSNode N) {
      if (Other)
        return false;
      TSNode Name{}, Value{};
      if (is(N, "assignment")) {
        Name = field(N, "left");
        Value = field(N, "right");
      } else if (is(N, "default_parameter") || is(N, "typed_default_parameter")) {
        Name = field(N, "name");
        Value = field(N, "value");
      } else if (is(N, "function_definition")) {
        Other = containsNoCase(T(field(N, "name")), "device");
        return !Other;
      } else {
        return true;
      }
      if ((is(Name, "identifier") || is(Name, "attribute")) && namesDevice(T(Name)) &&
          !ts_node_is_null(Value) && !cudaOnly(Value))
        Other = true;
      return !Other;
    });
    return Other;
  }();
  OtherThanCuda = Found;
  return Found;
}

FileWide DeviceChoice::fileWide() {
  // A fallback spells `"cpu"` in the definition that holds it; an option is declared by a
  // parser's method.
  static constexpr std::string_view Words[] = {"\"cpu\"", "'cpu'", "add_argument", "add_option", ".option("};
  return {Words, {}};
}

} // namespace torchlint::torch
