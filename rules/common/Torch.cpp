// Shared PyTorch facts for rules.
#include "common/Torch.h"

#include "source/Strings.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace torchlint::rules {

namespace {
// Device types torch.device accepts (c10/core/DeviceType.cpp), lower case only.
constexpr std::array<std::string_view, 22> DeviceTypes = {
    "cpu", "cuda", "mps", "xpu", "meta", "hip", "xla", "lazy", "vulkan", "mkldnn", "opengl",
    "opencl", "ideep", "ve", "fpga", "ort", "ipu", "hpu", "mtia", "privateuseone", "maia", "msnpu"};

bool knownType(std::string_view T) {
  return std::find(DeviceTypes.begin(), DeviceTypes.end(), T) != DeviceTypes.end();
}

std::string lower(std::string_view S) {
  std::string Out(S);
  for (char &C : Out)
    C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return Out;
}

bool allDigits(std::string_view S) {
  return !S.empty() && std::all_of(S.begin(), S.end(), [](char C) { return C >= '0' && C <= '9'; });
}
} // namespace

DeviceString parseDeviceString(std::string_view S) {
  DeviceString D;
  size_t Colon = S.find(':');
  std::string_view Type = S.substr(0, Colon);
  std::string_view Idx = Colon == std::string_view::npos ? std::string_view() : S.substr(Colon + 1);
  if (knownType(Type) && (Colon == std::string_view::npos || (allDigits(Idx) && Idx.size() < 6))) {
    D.Valid = true;
    D.Type = Type;
    if (Colon != std::string_view::npos)
      D.Index = std::stol(std::string(Idx));
    return D;
  }
  // Invalid: is it a device string gone wrong, and can we say what was meant?
  std::string L = lower(S);
  std::string Compact;
  for (char C : L)
    if (C != ' ' && C != '\t')
      Compact += C;
  std::string_view CT = Compact;
  size_t CC = CT.find(':');
  std::string_view T2 = CT.substr(0, CC);
  std::string_view I2 = CC == std::string_view::npos ? std::string_view() : CT.substr(CC + 1);
  // "cuda0" -> "cuda:0"
  if (CC == std::string_view::npos) {
    size_t K = T2.find_first_of("0123456789");
    if (K != std::string_view::npos && K > 0 && allDigits(T2.substr(K))) {
      I2 = T2.substr(K);
      T2 = T2.substr(0, K);
      CC = K;
    }
  }
  bool Gpu = T2 == "gpu";
  if (knownType(T2) || Gpu) {
    D.LooksLikeDevice = true;
    bool IndexOk = CC == std::string_view::npos || allDigits(I2);
    if (!Gpu && IndexOk)
      D.Suggestion = std::string(T2) + (CC == std::string_view::npos ? "" : ":" + std::string(I2));
    // Nothing to correct ("cuda:" followed by a huge index): not a misspelt device.
    if (D.Suggestion == S) {
      D.Suggestion.clear();
      D.LooksLikeDevice = false;
    }
  }
  return D;
}

bool isTensorFactory(std::string_view Q) {
  static constexpr std::string_view Names[] = {
      "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "range",
      "linspace", "logspace", "eye", "tensor", "as_tensor", "empty_strided", "normal", "bartlett_window",
      "hann_window", "hamming_window", "blackman_window", "kaiser_window", "tril_indices", "triu_indices",
      "sparse_coo_tensor", "scalar_tensor"};
  if (Q.substr(0, 6) != "torch.")
    return false;
  std::string_view N = Q.substr(6);
  return std::find(std::begin(Names), std::end(Names), N) != std::end(Names);
}

std::string calleeName(TSNode Call, const SemanticModel &M) {
  if (!is(Call, "call"))
    return {};
  return M.qualifiedName(field(Call, "function"));
}

std::optional<std::string_view> literalDevice(TSNode N, const SemanticModel &M, std::optional<long> *Index) {
  const NodeText &T = M.text();
  if (auto S = stringLiteral(N, T))
    return S;
  if (!is(N, "call") || !M.refersTo(field(N, "function"), "torch.device"))
    return std::nullopt;
  auto A = callArgs(N, T);
  if (!A || A->HasSplat)
    return std::nullopt;
  TSNode First = A->arg("type", 0);
  if (ts_node_is_null(First))
    return std::nullopt;
  auto S = stringLiteral(First, T);
  if (S && Index) {
    TSNode I = A->arg("index", 1);
    if (!ts_node_is_null(I))
      *Index = intLiteral(I, T);
  }
  return S;
}

TSNode methodReceiver(const CallFacts &Call, const SemanticModel &M, std::string_view Name) {
  std::string_view Callee = Call.CalleeText;
  // An attribute ends with its name, a whole identifier: most calls are ruled out by their
  // text alone (`x.to` passes, `x.proto` and `goto` do not).
  if (Callee.size() <= Name.size() || Callee.substr(Callee.size() - Name.size()) != Name)
    return TSNode{};
  char Before = Callee[Callee.size() - Name.size() - 1];
  if (std::isalnum(static_cast<unsigned char>(Before)) || Before == '_')
    return TSNode{};
  auto P = attributeParts(Call.Callee, M.text());
  if (!P || P->Name != Name)
    return TSNode{};
  std::string Q = M.qualifiedName(P->Object);
  if (Q == "torch" || Q.rfind("torch.", 0) == 0)
    return TSNode{};
  return P->Object;
}

std::optional<SpelledDevice> spelledDevice(TSNode N, const SemanticModel &M) {
  const NodeText &T = M.text();
  if (auto S = stringLiteral(N, T)) {
    DeviceString D = parseDeviceString(*S);
    if (!D.Valid)
      return std::nullopt;
    return SpelledDevice{D.Type, D.Index, false, false};
  }
  if (auto I = intLiteral(N, T))
    return SpelledDevice{"cuda", *I, false, false};
  if (!is(N, "call") || !M.refersTo(field(N, "function"), "torch.device"))
    return std::nullopt;
  auto A = callArgs(N, T);
  if (!A || A->HasSplat || A->Positional.size() + A->Keywords.size() > 2)
    return std::nullopt;
  TSNode First = A->arg("type", 0);
  if (ts_node_is_null(First))
    return std::nullopt;
  TSNode Idx = A->arg("index", 1);
  if (auto I = intLiteral(First, T)) {
    if (!ts_node_is_null(Idx))
      return std::nullopt;
    return SpelledDevice{"cuda", *I, false, true};
  }
  auto S = stringLiteral(First, T);
  if (!S)
    return std::nullopt;
  DeviceString D = parseDeviceString(*S);
  if (!D.Valid)
    return std::nullopt;
  SpelledDevice R{D.Type, D.Index, false, true};
  if (!ts_node_is_null(Idx) && !is(Idx, "none")) {
    if (D.Index)
      return std::nullopt; // torch.device("cuda:0", 1) raises
    if (auto I = intLiteral(Idx, T))
      R.Index = *I;
    else
      R.VariableIndex = true;
  }
  return R;
}

bool inMapLocation(TSNode N, const SemanticModel &M) {
  TSNode Cur = N;
  for (int Hops = 0; Hops < 8; ++Hops) {
    TSNode P = ts_node_parent(Cur);
    if (ts_node_is_null(P))
      return false;
    std::string_view K = kind(P);
    if (K == "keyword_argument")
      return ts_node_eq(field(P, "value"), Cur) && M.text()(field(P, "name")) == "map_location";
    if (K == "argument_list") {
      TSNode Call = ts_node_parent(P);
      if (!is(Call, "call") || !M.refersTo(field(Call, "function"), "torch.load"))
        return false;
      auto A = callArgs(Call, M.text());
      return A && A->Positional.size() > 1 && ts_node_eq(A->Positional[1], Cur);
    }
    // A device inside a choice, a lambda or a remapping table is still the map_location.
    if (K != "parenthesized_expression" && K != "conditional_expression" && K != "boolean_operator" &&
        K != "lambda" && K != "dictionary" && K != "pair")
      return false;
    Cur = P;
  }
  return false;
}

bool deviceOnlyInspected(TSNode Call, const SemanticModel &M) {
  TSNode P = ts_node_parent(Call);
  while (is(P, "parenthesized_expression"))
    P = ts_node_parent(P);
  if (ts_node_is_null(P))
    return false;
  std::string_view K = kind(P);
  if (K == "comparison_operator" || K == "attribute" || K == "pair")
    return true;
  if (K == "keyword_argument")
    P = ts_node_parent(P);
  if (!is(P, "argument_list"))
    return false;
  std::string Q = calleeName(ts_node_parent(P), M);
  return isCudaApi(Q) && Q != "torch.cuda.set_device" && Q != "torch.cuda.device";
}

bool joinsTensors(std::string_view Q) { return Q == "torch.cat" || Q == "torch.stack" || Q == "torch.concat"; }

bool pairsTensors(std::string_view Q) {
  return Q == "torch.matmul" || Q == "torch.mm" || Q == "torch.bmm" || Q == "torch.add" || Q == "torch.mul" ||
         Q == "torch.sub" || Q == "torch.div" || Q == "torch.maximum" || Q == "torch.minimum";
}

bool isCudaApi(std::string_view Q) {
  // (No lower-cased copy: three rules ask of every torch.* call.)
  return Q.rfind("torch.", 0) == 0 && (containsNoCase(Q, "cuda") || Q.find("cudnn") != std::string_view::npos);
}

bool importsTorch(const SemanticModel &M) {
  return !M.localNameFor("torch").empty() || !M.localNameFor("torch.nn").empty();
}

TextRange methodCallRange(TSNode Call) {
  TSNode Name = field(field(Call, "function"), "attribute");
  if (ts_node_is_null(Name))
    return {ts_node_start_byte(Call), ts_node_end_byte(Call)};
  return {ts_node_start_byte(Name), ts_node_end_byte(Call)};
}

Edit appendArgument(const CallArgs &A, const NodeText &Text, std::string_view Arg) {
  TSNode List = A.ArgList;
  uint32_t Close = ts_node_end_byte(List) - 1; // the ')'
  uint32_t Count = ts_node_named_child_count(List);
  // Skip trailing comments when looking for the last argument.
  TSNode Last{};
  for (uint32_t I = Count; I > 0; --I) {
    TSNode C = ts_node_named_child(List, I - 1);
    if (!is(C, "comment")) {
      Last = C;
      break;
    }
  }
  if (ts_node_is_null(Last))
    return {{Close, Close}, std::string(Arg)};
  uint32_t After = ts_node_end_byte(Last);
  // A trailing comma after the last argument: insert after it.
  std::string_view Between = Text(List).substr(After - ts_node_start_byte(List), Close - After);
  size_t Comma = Between.find(',');
  if (Comma != std::string_view::npos) {
    uint32_t At = After + static_cast<uint32_t>(Comma) + 1;
    return {{At, At}, " " + std::string(Arg) + ","};
  }
  return {{After, After}, ", " + std::string(Arg)};
}

std::string shortText(TSNode Expr, const NodeText &Text) {
  std::string_view T = Text(Expr);
  T = T.substr(0, T.find_first_of("\r\n"));
  std::string Out(T.substr(0, 40));
  if (T.size() > 40 || Out.size() < Text(Expr).size())
    Out += "...";
  return Out;
}

static Note flowNote(TSNode Expr, TSNode At, std::string What, std::string Reason, const NodeText &Text) {
  Note N;
  TSNode Where = ts_node_is_null(At) ? Expr : At;
  N.Range = {ts_node_start_byte(Where), ts_node_end_byte(Where)};
  N.Message = "`" + shortText(Expr, Text) + "` " + What;
  if (!Reason.empty())
    N.Message += " (" + Reason + ")";
  return N;
}

Note deviceNote(const flow::DeviceFlow &F, TSNode Expr, const flow::Value &V, const NodeText &Text) {
  return flowNote(Expr, F.node(V.DevAt), "is on " + flow::deviceName(V.Dev), F.deviceReason(V), Text);
}

Note dtypeNote(const flow::DeviceFlow &F, TSNode Expr, const flow::Value &V, const NodeText &Text) {
  return flowNote(Expr, F.node(V.TypeAt), "is " + std::string(flow::dtypeName(V.Type)), F.dtypeReason(V), Text);
}

} // namespace torchlint::rules
