// Registry look-ups and the rule context's reporting.
#include "lint/Rule.h"

#include "source/Strings.h"

#include <algorithm>

namespace torchlint {

std::string_view fixSafetyName(FixSafety F) {
  switch (F) {
  case FixSafety::None:
    return "none";
  case FixSafety::Unsafe:
    return "unsafe";
  case FixSafety::Safe:
    return "safe";
  }
  return "none";
}

bool LintSettings::enabled(std::string_view Code) const {
  return std::binary_search(Enabled.begin(), Enabled.end(), Code);
}

std::string LintSettings::describeTarget() const {
  TorchVersion V = target();
  std::string Out = "PyTorch " + std::to_string(V.Major) + "." + std::to_string(V.Minor);
  if (!TargetTorch)
    Out += " (the current release; set `target-torch-version` for older ones)";
  else if (!TargetSource.empty())
    Out += " (" + TargetSource + ")";
  return Out;
}

const Rule *Registry::find(std::string_view Code) const {
  for (auto &R : Rules)
    if (R->info().Code == Code)
      return R.get();
  return nullptr;
}

std::vector<std::string_view> Registry::matching(std::string_view Selector) const {
  std::vector<std::string_view> Out;
  if (Selector.empty())
    return Out; // `""` would be a prefix of every code: no selector at all
  for (auto &R : Rules) {
    std::string_view C = R->info().Code;
    if (Selector == "ALL" || C.substr(0, Selector.size()) == Selector)
      Out.push_back(C);
  }
  return Out;
}

Diagnostic &RuleContext::report(TSNode At, std::string Message) { return report(range(At), std::move(Message)); }

Diagnostic &RuleContext::report(TextRange At, std::string Message) {
  Diagnostic D;
  D.Code = std::string(Current->info().Code);
  D.Sev = Current->info().DefaultSeverity;
  D.Range = At;
  D.Message = std::move(Message);
  Out.push_back(std::move(D));
  return Out.back();
}

const CallFacts *RuleContext::call(TSNode Call) {
  if (!ts_node_is_null(CachedCall) && ts_node_eq(CachedCall, Call))
    return Cached ? &*Cached : nullptr;
  CachedCall = Call;
  Cached.reset();
  TSNode Callee{}, ArgList{};
  // The callee's symbol and end and the call's end, where the walk read them: no look at a
  // tree that has left the cache since (0: not read).
  TSSymbol CalleeSym = 0;
  uint32_t CalleeEnd = 0, End = 0;
  std::optional<std::span<const TSNode>> Arguments; // the argument list's children the walk met
  if (Node && NodeParts && !ts_node_is_null(NodeParts->ArgList) && ts_node_eq(Node->Node, Call)) {
    if (!NodeParts->Arguments) // a generator argument
      return nullptr;
    Callee = NodeParts->Callee;
    ArgList = NodeParts->ArgList;
    CalleeSym = NodeParts->CalleeSym;
    CalleeEnd = NodeParts->CalleeEnd;
    End = Node->End;
    Arguments = File.argumentsOf(*NodeParts);
  } else if (auto Parts = callParts(Call)) {
    Callee = Parts->Callee;
    ArgList = Parts->ArgList;
  } else {
    return nullptr;
  }
  std::string_view Spelled = Model.text().until(Callee, CalleeEnd);
  if (!CalleeSym)
    CalleeSym = ts_node_symbol(Callee);
  std::string Q = Model.qualifiedName(Callee, Spelled, CalleeSym);
  CallFacts &Facts = Cached.emplace(Callee, ArgList, Spelled, CalleeSym, End, std::move(Q), Model);
  Facts.useArguments(Arguments);
  return &Facts;
}

TSNode RuleContext::callee(TSNode Call) {
  // call() is null only for a generator argument.
  const CallFacts *F = call(Call);
  return F ? F->Callee : field(Call, "function");
}

const std::optional<AttributeParts> &RuleContext::calleeAttribute(TSNode Call) {
  if (ts_node_is_null(CachedCallee) || !ts_node_eq(CachedCallee, Call)) {
    CachedCallee = Call;
    CachedParts = attributeParts(callee(Call), Model.text());
  }
  return CachedParts;
}

} // namespace torchlint
