// The interface every rule implements, the registry that holds them, and the context a
// rule sees while checking a node. Rules live in rules/; the engine only knows this file.
#pragma once

#include "diag/Diagnostic.h"
#include "parse/Tree.h"
#include "semantic/SemanticModel.h"
#include "source/SourceFile.h"
#include "semantic/FileContext.h"
#include "torch/Call.h"

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace torchlint {

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

/// The newest PyTorch release: what torchlint assumes when neither the configuration nor the
/// project says which versions it supports.
inline constexpr TorchVersion CurrentStableTorch{2, 11};

struct LintSettings {
  /// The oldest PyTorch the program must run on: `target-torch-version`, else the lower
  /// bound the project declares for `torch`; nullopt means CurrentStableTorch.
  std::optional<TorchVersion> TargetTorch;
  /// Where the target comes from, for messages: "target-torch-version in torchlint.toml",
  /// "torch>=2.1 in requirements.txt"; empty for the current stable release.
  std::string TargetSource;
  std::vector<std::string> Enabled; // codes, sorted
  bool enabled(std::string_view Code) const;
  TorchVersion target() const { return TargetTorch.value_or(CurrentStableTorch); }
  /// Whether a version-dependent rule applies: the target is \p V or later.
  bool targetAtLeast(TorchVersion V) const { return target() >= V; }
  /// "PyTorch 2.1 (torch>=2.1 in requirements.txt)", for messages.
  std::string describeTarget() const;
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
  /// The file-wide facts the rule reads beyond the names the semantic model resolves (the
  /// device flow, the process group, a rewrite of the whole file): the editor needs them to
  /// know when re-linting one definition is not enough.
  virtual std::vector<FileWide> fileWideReads() const { return {}; }
  /// Whether the rule looks at its findings of a file together once the walk is done (see
  /// finishFile()).
  virtual bool finishesFile() const { return false; }
  /// Called after every node was checked and suppressions applied, with the rule's findings of
  /// the file that survived them: a rule may merge them (TL105 reports a file that never
  /// chooses a device once, with the count of the others).
  virtual void finishFile(std::vector<Diagnostic> &Mine, RuleContext &Ctx) const {}

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

class RuleContext {
public:
  RuleContext(const FileContext &File, const LintSettings &Settings, std::vector<Diagnostic> &Out)
      : File(File), Model(File.model()), Settings(Settings), Out(Out) {}

  /// The file, and the analyses of it computed on demand (`analysis<flow::DeviceFlow>()`).
  const FileContext &file() const { return File; }
  template <class T> const T &analysis() const { return File.get<T>(); }
  const SourceFile &source() const { return File.source(); }
  const SemanticModel &model() const { return Model; }
  const NodeText &text() const { return Model.text(); }
  /// The text of a node the walk collected, from the ends it read (no look at the tree).
  std::string_view text(const NodeRef &N) const { return Model.text().until(N.Node, N.End); }
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

private:
  const FileContext &File;
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
};

} // namespace torchlint
