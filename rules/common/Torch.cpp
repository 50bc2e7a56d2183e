// Shared PyTorch facts for rules.
#include "common/Torch.h"

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

} // namespace torchlint::rules
