// A call as PyTorch sees it: its callee, qualified name, what the API table says of it,
// its arguments read on first use, and the receiver of a method call. The lint run builds one
// per call node however many rules ask (RuleContext::call).
#pragma once

#include "parse/Tree.h"
#include "semantic/SemanticModel.h"
#include "torch/Api.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace torchlint {

/// Where a call places what it makes or moves, as written.
struct Placement {
  enum class Form : uint8_t {
    None,
    To,      // `x.to(device)`: Device is its device argument (null for a dtype alone)
    Cuda,    // `x.cuda()`, `x.cuda(1)`: Device is its argument (null: the current CUDA device)
    Keyword, // `torch.zeros(n, device=...)`: a `torch` function (not CUDA's own API) given `device=`
  };
  Form How = Form::None;
  TSNode Receiver{}; // To, Cuda: what moves
  TSNode Device{};
};

/// What rules ask of a call, computed once per call node however many rules ask. The
/// arguments are read on first use: most calls are ruled out by their callee alone.
class CallFacts {
public:
  /// Of a call whose callee and argument list (callParts()) the tree gives.
  CallFacts(TSNode Callee, TSNode ArgList, std::string Qualified, const SemanticModel &Model)
      : CallFacts(Callee, ArgList, Model.text()(Callee), ts_node_symbol(Callee), 0, std::move(Qualified), Model) {}
  /// \p End: the call's end where the walk read it, else 0.
  CallFacts(TSNode Callee, TSNode ArgList, std::string_view CalleeText, TSSymbol CalleeSym, uint32_t End,
            std::string Qualified, const SemanticModel &Model)
      : Callee(Callee), CalleeText(CalleeText), CalleeSym(CalleeSym), End(End), Qualified(std::move(Qualified)),
        Model(&Model) {
    Parts.Callee = Callee;
    Parts.ArgList = ArgList;
  }
  TSNode Callee;               // the `function` field
  std::string_view CalleeText; // its text
  TSSymbol CalleeSym;          // its symbol
  uint32_t End;                // the call's end (its argument list's), or 0: ask the tree
  std::string Qualified; // the callee's qualified name, or empty
  /// What the PyTorch table says of the callee.
  const torch::ApiFacts &api() const {
    if (!Classified) {
      Api = torch::classify(Qualified);
      Classified = true;
    }
    return Api;
  }
  const CallArgs &args() const {
    if (!Read) {
      readArguments(Parts, Model->text(), Met);
      Read = true;
    }
    return Parts;
  }
  /// The argument list's named children as the walk met them (FileContext::argumentsOf()):
  /// args() reads them, not the tree.
  void useArguments(std::optional<std::span<const TSNode>> Children) { Met = Children; }
  /// The argument passed as keyword \p Name, or null. Without reading the arguments when
  /// their text does not pass it: most calls pass no `device=` (some name a `device` variable).
  TSNode keyword(std::string_view Name) const {
    if (!Read && !mayPassKeyword(argumentText(), Name))
      return TSNode{};
    return args().keyword(Name);
  }
  /// `obj.NAME(...)` called as a method: the callee is an attribute named \p Name whose object
  /// is not reached through `torch` (`torch.Tensor.to(x, ...)` is a plain function). Returns
  /// the callee's object, or a null node.
  TSNode receiver(std::string_view Name) const;
  /// Where the call places what it makes or moves (None for any other call). Read once:
  /// several rules ask of every call.
  const Placement &placement() const {
    if (!Placed)
      Placed = readPlacement();
    return *Placed;
  }

private:
  Placement readPlacement() const;
  std::string_view argumentText() const { return Model->text().until(Parts.ArgList, End); }

  mutable CallArgs Parts;
  std::optional<std::span<const TSNode>> Met;
  mutable bool Read = false;
  mutable bool Classified = false;
  mutable torch::ApiFacts Api;
  mutable std::optional<Placement> Placed;
  const SemanticModel *Model;
};

} // namespace torchlint
