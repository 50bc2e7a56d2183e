// Which expressions surely evaluate to a tensor, as the API table and the code show: a call
// the table says returns a new tensor, a tensor method's result, arithmetic with a tensor, a
// subscript of one, a local name every earlier binding of which is such an expression. And
// which tensors have no dimensions (`torch.tensor(0.07)`, `torch.zeros(())`).
#pragma once

#include "semantic/SemanticModel.h"

#include <string_view>
#include <unordered_map>

namespace torchlint::torch {

/// What the local names of a function hold before some point: true when every binding seen
/// so far (in statement order) is surely a tensor.
using LocalTensors = std::unordered_map<std::string_view, bool>;

/// Whether \p E surely evaluates to a tensor. \p AskedLocal is set when the answer read a
/// local name (so that a caller can first try without \p Locals).
bool surelyTensor(TSNode E, const SemanticModel &M, const LocalTensors &Locals, bool *AskedLocal = nullptr);

/// The local names of scope \p ScopeId that hold tensors before byte \p Before: parameters,
/// and names bound in ways that are not followed (loops, unpacking, `with`, imports), hold
/// nothing known. Nullopt when the scope is too large to read.
std::optional<LocalTensors> localTensorsBefore(int32_t ScopeId, uint32_t Before, const SemanticModel &M);

/// A tensor with no dimensions (`torch.tensor(0.07)`, `torch.zeros(())`): PyTorch combines a
/// 0-dim CPU tensor with CUDA tensors.
bool zeroDimTensor(TSNode E, const SemanticModel &M);

} // namespace torchlint::torch
