// The file being analysed (its source, tree and semantic model) and the analyses computed of
// it on demand, each once, owned by the lint of that file. An analysis is any type
// constructible from a `const FileContext &` (the device flow, the process-group facts, a
// rule's own file-wide computation): the first `get<T>()` builds it, later ones return it,
// and it dies with the context. So nothing is remembered between files, no thread shares
// one, and no rule keeps a memo of its own.
#pragma once

#include "semantic/SemanticModel.h"
#include "source/SourceFile.h"

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace torchlint {

/// What makes an analysis read the whole file: code whose effect reaches beyond the
/// definition it is written in (an import, a `global`, `init_process_group`...). The editor
/// re-lints one edited definition alone only when neither its old nor its new text holds one
/// of \p Words, and keeps every definition holding one in that partial lint; one of
/// \p WholeFile anywhere in the file makes every edit re-lint the whole file (a fix that
/// rewrites the whole file, a file-wide suppression).
struct FileWide {
  std::span<const std::string_view> Words;
  std::span<const std::string_view> WholeFile;
};

namespace detail {
/// A distinct small number per analysis type, handed out on first use.
size_t nextAnalysisIndex();
template <class T> size_t analysisIndex() {
  static const size_t Index = nextAnalysisIndex();
  return Index;
}
} // namespace detail

class FileContext {
public:
  /// \p Nodes, \p Calls, \p Children, \p Kept: what the walk met (WalkResult), where it ran.
  FileContext(const SourceFile &File, const SemanticModel &Model, TSNode Root, std::span<const NodeRef> Nodes = {},
              std::span<const CallParts> Calls = {}, std::span<const TSNode> Children = {},
              std::span<const KeptChildren> Kept = {})
      : File(File), Model(Model), Root(Root), Nodes(Nodes), Calls(Calls), Children(Children), Kept(Kept) {}
  FileContext(const FileContext &) = delete;
  FileContext &operator=(const FileContext &) = delete;

  const SourceFile &source() const { return File; }
  const SemanticModel &model() const { return Model; }
  const NodeText &text() const { return Model.text(); }
  TSNode root() const { return Root; }
  /// The nodes the walk collected for the enabled rules, in document order, with their
  /// scope and flags (an analysis that needs every call of a file reads them here rather than
  /// walking the tree again).
  std::span<const NodeRef> nodes() const { return Nodes; }
  /// The callee and argument list of \p Call as the walk noted them (NodeRef::Parts), or null
  /// where it did not: reading them off the tree again costs a thousand instructions a call.
  /// Cheapest asked in document order.
  const CallParts *partsOf(TSNode Call) const;
  /// The named children of the argument list of the call whose parts partsOf() gave (comments
  /// too), as the walk met them; nullopt where it did not (read them off the tree: a step over
  /// each child costs some 600 instructions).
  std::optional<std::span<const TSNode>> argumentsOf(const CallParts &P) const {
    if (P.ArgsCount == CallParts::NotMet || size_t(P.ArgsFrom) + P.ArgsCount > Children.size())
      return std::nullopt;
    return Children.subspan(P.ArgsFrom, P.ArgsCount);
  }
  /// The named children of \p N (comments too) as the walk met them, where \p N is of the kinds
  /// it keeps them for (KeptChildren); nullopt elsewhere. Cheapest asked in document order.
  std::optional<std::span<const TSNode>> childrenOf(TSNode N) const;

  /// The analysis \p T of this file, built by `T(const FileContext &)` on first use.
  /// (Rules ask at most nodes: the look-up is a bounds check and a load.)
  template <class T> const T &get() const {
    size_t I = detail::analysisIndex<T>();
    if (I < Slots.size() && Slots[I]) [[likely]]
      return *static_cast<const T *>(Slots[I].get());
    return build<T>(I);
  }

  /// Whether the lint is to be given up now (Linter::lint's \p Stop): long analyses ask between
  /// steps, and what they leave unfinished is thrown away with the lint.
  bool stopRequested() const { return Stop && *Stop && (*Stop)(); }
  void setStop(const std::function<bool()> *S) { Stop = S; }

  /// The analysis \p T if something asked for it already, else null (builds nothing).
  template <class T> const T *built() const {
    size_t I = detail::analysisIndex<T>();
    return I < Slots.size() && Slots[I] ? static_cast<const T *>(Slots[I].get()) : nullptr;
  }

private:
  template <class T> [[gnu::noinline]] const T &build(size_t I) const {
    // Built before it is stored: its constructor may ask for other analyses, which may grow
    // the slots.
    std::shared_ptr<void> Built = std::make_shared<T>(*this);
    if (I >= Slots.size())
      Slots.resize(I + 1);
    Slots[I] = std::move(Built);
    return *static_cast<const T *>(Slots[I].get());
  }

  const SourceFile &File;
  const SemanticModel &Model;
  TSNode Root;
  std::span<const NodeRef> Nodes;
  std::span<const CallParts> Calls;
  std::span<const TSNode> Children;
  std::span<const KeptChildren> Kept;
  mutable size_t PartsHint = 0;  // partsOf()'s last answer, in Nodes
  mutable size_t KeptHint = 0;  // childrenOf()'s, in Kept
  mutable std::vector<std::shared_ptr<void>> Slots; // by detail::analysisIndex<T>()
  const std::function<bool()> *Stop = nullptr;
};

/// The named children of a node: as the walk met them where it kept them
/// (FileContext::childrenOf()), else off the tree. (Not copied: it may point into itself.)
class ChildList {
public:
  ChildList(const FileContext *File, TSNode N) {
    if (auto Kept = File ? File->childrenOf(N) : std::nullopt) {
      View = *Kept;
    } else {
      Read = namedChildren(N);
      View = Read;
    }
  }
  ChildList(const ChildList &) = delete;
  ChildList &operator=(const ChildList &) = delete;
  const TSNode *begin() const { return View.data(); }
  const TSNode *end() const { return View.data() + View.size(); }
  size_t size() const { return View.size(); }
  TSNode operator[](size_t I) const { return View[I]; }

private:
  NodeList Read;
  std::span<const TSNode> View;
};

} // namespace torchlint
