// The interface every rule implements, the registry that holds them, and the context a
// rule sees while checking a node. Rules live in rules/; the engine only knows this file.
#pragma once

#include "diag/Diagnostic.h"
#include "parse/Tree.h"
#include "semantic/SemanticModel.h"
#include "source/SourceFile.h"
#include "torch/Api.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace torchlint {

namespace flow {
class DeviceFlow;
}

enum class FixSafety : uint8_t { None, Unsafe, Safe };
std::string_view fixSafetyName(FixSafety F);

struct RuleInfo {
  std::string_view Code;    // TL101
  std::string_view Name;    // tensor-to-discarded
  std::string_view Family;  // TL1
  std::string_view Summary; // one line
  bool DefaultOn;
  Severity DefaultSeverity;
  FixSafety Fix;
};

/// The sections every rule's documentation has, in order (STYLE.md).
inline constexpr std::string_view DocSections[] = {"What it does", "Why is this bad?", "Example",
                                                    "Use instead", "When it stays silent"};
inline constexpr std::string_view FixSection = "Fix safety";

struct TorchVersion {
  int Major = 0, Minor = 0;
  friend auto operator<=>(const TorchVersion &, const TorchVersion &) = default;
};

struct LintSettings {
  std::optional<TorchVersion> TargetTorch;
  std::vector<std::string> Enabled; // codes, sorted
  bool enabled(std::string_view Code) const;
  /// Whether a version-dependent rule applies: no target set, or target >= \p V.
  bool targetAtLeast(TorchVersion V) const { return !TargetTorch || *TargetTorch >= V; }
};

class RuleContext;

class Rule {
public:
  explicit Rule(const RuleInfo &Info) : Info(Info) {}
  virtual ~Rule() = default;
  const RuleInfo &info() const { return Info; }
  /// Markdown with the sections in DocSections (and FixSection when the rule has a fix).
  virtual std::string_view documentation() const = 0;
  /// Node kinds of the Python grammar this rule wants to see (e.g. "call").
  virtual std::vector<std::string_view> nodeKinds() const { return {}; }
  /// For a rule that can only report on calls of certain names: those names, each the last
  /// part of a callee as written (`load` of `torch.load`, `to` of `x.to`) or of what an
  /// imported name stands for (`load` for `from torch import load as L`). The dispatcher
  /// then shows it no other `call` nodes. Empty: every call.
  virtual std::vector<std::string_view> calleeNames() const { return {}; }
  virtual void check(const NodeRef &N, RuleContext &Ctx) const {}

private:
  const RuleInfo &Info;
};

class Registry {
public:
  void add(std::unique_ptr<Rule> R) { Rules.push_back(std::move(R)); }
  const std::vector<std::unique_ptr<Rule>> &rules() const { return Rules; }
  const Rule *find(std::string_view Code) const;
  /// Codes a selector names: a code, a prefix ("TL1", "TL"), or "ALL".
  std::vector<std::string_view> matching(std::string_view Selector) const;
  bool isSelector(std::string_view Selector) const { return !matching(Selector).empty(); }

private:
  std::vector<std::unique_ptr<Rule>> Rules;
};

/// What rules ask of a call, computed once per call node however many rules ask. The
/// arguments are read on first use: most calls are ruled out by their callee alone.
class CallFacts {
public:
  CallFacts(CallArgs Parts, std::string Qualified, const SemanticModel &Model)
      : Callee(Parts.Callee), CalleeText(Model.text()(Parts.Callee)), Qualified(std::move(Qualified)),
        Parts(std::move(Parts)), Model(&Model) {}
  TSNode Callee;               // the `function` field
  std::string_view CalleeText; // its text
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
      readArguments(Parts, Model->text());
      Read = true;
    }
    return Parts;
  }
  /// The argument passed as keyword \p Name, or null. Without reading the arguments when
  /// their text does not hold the name: most calls pass no `device=`.
  TSNode keyword(std::string_view Name) const {
    if (!Read && Model->text()(Parts.ArgList).find(Name) == std::string_view::npos)
      return TSNode{};
    return args().keyword(Name);
  }
  /// `obj.NAME(...)` called as a method: the callee is an attribute named \p Name whose object
  /// is not reached through `torch` (`torch.Tensor.to(x, ...)` is a plain function). Returns
  /// the callee's object, or a null node.
  TSNode receiver(std::string_view Name) const;

private:
  mutable CallArgs Parts;
  mutable bool Read = false;
  mutable bool Classified = false;
  mutable torch::ApiFacts Api;
  const SemanticModel *Model;
};

class RuleContext {
public:
  RuleContext(const SourceFile &File, const SemanticModel &Model, const LintSettings &Settings,
              std::vector<Diagnostic> &Out)
      : File(File), Model(Model), Settings(Settings), Out(Out) {}

  const SourceFile &source() const { return File; }
  const SemanticModel &model() const { return Model; }
  const NodeText &text() const { return Model.text(); }
  const LintSettings &settings() const { return Settings; }
  const Rule &rule() const { return *Current; }

  /// Adds a diagnostic of the current rule with its default severity.
  Diagnostic &report(TSNode At, std::string Message);
  Diagnostic &report(TextRange At, std::string Message);
  static TextRange range(TSNode N) { return {ts_node_start_byte(N), ts_node_end_byte(N)}; }

  void setRule(const Rule *R) { Current = R; }
  /// The node the dispatcher is on, and the parts the walk noted on it if it is a call:
  /// call() takes them.
  void setNode(const NodeRef *N, const CallParts *Parts = nullptr) {
    Node = N;
    NodeParts = Parts;
  }

  /// The parts and qualified callee of \p Call (a `call` node), memoised for the node the
  /// dispatcher is on; null for calls with a generator argument.
  const CallFacts *call(TSNode Call);
  /// The callee (field `function`) of \p Call and its attribute parts (empty unless the
  /// callee is an attribute), memoised like call(): most rules start from them, and each
  /// tree-sitter child look-up costs hundreds of instructions.
  TSNode callee(TSNode Call);
  const std::optional<AttributeParts> &calleeAttribute(TSNode Call);

  /// The device flow of this file, computed on first use and only for files that import
  /// torch; null otherwise.
  const flow::DeviceFlow *flow();
  void setRoot(TSNode R) { Root = R; }

private:
  const SourceFile &File;
  const SemanticModel &Model;
  const LintSettings &Settings;
  std::vector<Diagnostic> &Out;
  const Rule *Current = nullptr;
  const NodeRef *Node = nullptr;
  const CallParts *NodeParts = nullptr;
  TSNode CachedCall{};
  std::optional<CallFacts> Cached;
  TSNode CachedCallee{}; // the call whose callee attribute is memoised
  std::optional<AttributeParts> CachedParts;
  TSNode Root{};
  std::shared_ptr<flow::DeviceFlow> Flow;
  bool FlowDone = false;
};

} // namespace torchlint
