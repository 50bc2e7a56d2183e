// RAII wrappers over tree-sitter's parser and tree, plus small helpers for reading nodes
// of the Python grammar. Parsers are per thread; the language is shared.
#pragma once

#include <llvm/ADT/SmallVector.h>
#include <tree_sitter/api.h>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

extern "C" const TSLanguage *tree_sitter_python(void);

namespace torchlint {

const TSLanguage *pythonLanguage();
/// The grammar's numeric symbol for a named node kind (e.g. "call"); 0 when unknown.
TSSymbol symbolFor(std::string_view Kind);
/// Every regular grammar symbol named \p Kind (aliases can give one name several symbols).
std::vector<TSSymbol> symbolsNamed(std::string_view Kind);
/// The version string of the tree-sitter-python package this binary was built with.
std::string_view grammarVersion();

struct TreeDeleter {
  void operator()(TSTree *T) const { ts_tree_delete(T); }
};
using TreePtr = std::unique_ptr<TSTree, TreeDeleter>;

/// Parses \p Text with this thread's parser. \p Old enables incremental reparsing. \p Stop,
/// when set, is asked every few milliseconds of parsing whether to give the parse up (then
/// the result is null).
TreePtr parsePython(std::string_view Text, const TSTree *Old = nullptr, const std::function<bool()> &Stop = {});

/// A node's source text, kind and children without allocating.
class NodeText {
public:
  explicit NodeText(std::string_view Source) : Source(Source) {}
  std::string_view operator()(TSNode N) const {
    uint32_t B = ts_node_start_byte(N), E = ts_node_end_byte(N);
    if (B > Source.size() || E > Source.size() || E < B)
      return {};
    return Source.substr(B, E - B);
  }
  /// The text of \p N up to \p End, an end byte read earlier (the walk's: no look at a tree
  /// that may have left the cache); the tree's own where \p End is not one (0).
  std::string_view until(TSNode N, uint32_t End) const {
    uint32_t B = ts_node_start_byte(N);
    return End >= B && End <= Source.size() && End > 0 ? Source.substr(B, End - B) : (*this)(N);
  }
  std::string_view source() const { return Source; }

private:
  std::string_view Source;
};

/// The grammar's name of each symbol, by symbol: kind() is one read where ts_node_type
/// looks the name up and the comparison measures it (a million questions per run).
std::vector<std::string_view> readSymbolNames();
/// (Inline: kind() runs at nearly every node the analysis looks at.)
inline const std::vector<std::string_view> &symbolNames() {
  static const std::vector<std::string_view> Names = readSymbolNames();
  return Names;
}
inline std::string_view kind(TSNode N) {
  const std::vector<std::string_view> &Names = symbolNames();
  TSSymbol S = ts_node_symbol(N);
  return S < Names.size() ? Names[S] : std::string_view(ts_node_type(N)); // ERROR is past the table
}
inline bool is(TSNode N, std::string_view K) { return N.id && kind(N) == K; } // ts_node_is_null, inline
/// A value for each node kind, read by the node's symbol: a dispatch over many kinds with one
/// look-up where comparing kind() with each name would compare strings at every node. Every
/// symbol of a listed name counts (as kind() compares names); the rest, ERROR included, give
/// \p Other.
template <class T> class KindTable {
public:
  KindTable(std::initializer_list<std::pair<std::string_view, T>> Kinds, T Other = T{})
      : Values(symbolNames().size(), Other), Other(Other) {
    for (size_t S = 0; S < Values.size(); ++S)
      for (auto &[Name, V] : Kinds)
        if (symbolNames()[S] == Name)
          Values[S] = V;
  }
  T operator()(TSNode N) const { return of(ts_node_symbol(N)); }
  /// By a symbol already read (NodeRef::Sym).
  T of(TSSymbol S) const { return S < Values.size() ? Values[S] : Other; }

private:
  std::vector<T> Values;
  T Other;
};
TSNode field(TSNode N, std::string_view Name);
/// A node's children, stored inline for the usual few (a block's statements, a call's
/// arguments): the flow asks for them at every statement.
using NodeList = llvm::SmallVector<TSNode, 8>;
NodeList namedChildren(TSNode N);

/// Calls \p Fn on every node under \p Root (itself included), in document order, with a
/// cursor (no recursion: nesting depth is the input's to choose). When \p Fn returns bool,
/// false means "not below this node".
template <class F> void forEachNode(TSNode Root, F &&Fn) {
  TSTreeCursor C = ts_tree_cursor_new(Root);
  for (bool Down = true;;) {
    bool Enter = true;
    if (Down) {
      if constexpr (std::is_same_v<decltype(Fn(Root)), bool>)
        Enter = Fn(ts_tree_cursor_current_node(&C));
      else
        Fn(ts_tree_cursor_current_node(&C));
    }
    if (Down && Enter && ts_tree_cursor_goto_first_child(&C))
      continue;
    if (ts_tree_cursor_goto_next_sibling(&C)) {
      Down = true;
      continue;
    }
    if (!ts_tree_cursor_goto_parent(&C))
      break;
    Down = false;
  }
  ts_tree_cursor_delete(&C);
}

/// The nodes of kind \p Kind under \p Root spelled exactly \p Word (a whole word of the text:
/// `DataLoader`, `map_location`, `torch.cuda.amp`), in document order. The text says where they
/// can be: a look-up at each occurrence costs far less than visiting every node of a long file
/// (a test file of 9,000 lines has a third of a million). \p Root is the tree's root.
std::vector<TSNode> nodesSpelled(TSNode Root, const NodeText &Text, std::string_view Word, std::string_view Kind);

/// The string value of a plain string literal ("cuda", 'cpu'), without prefixes or
/// interpolation; nullopt for f-strings, concatenations, byte strings and the like.
std::optional<std::string_view> stringLiteral(TSNode N, const NodeText &Text);
/// The integer value of a small decimal literal, if \p N is one.
std::optional<long> intLiteral(TSNode N, const NodeText &Text);
/// `True` / `False` literals.
std::optional<bool> boolLiteral(TSNode N);
/// An expression's source for a message: one line, at most 40 characters.
std::string shortText(TSNode Expr, const NodeText &Text);

/// Whether the ERROR node \p Error sits on a line of valid Python the grammar does not accept:
/// tree-sitter-python rejects a starred display in a bare tuple (`head, *rest = x, *[]`,
/// `return a, *(b,)`), which Python has accepted since 3.8.
bool grammarGap(TSNode Error, const NodeText &Text);

/// Arguments of one call: inline storage for the usual few, so reading a call allocates
/// nothing (every call of a file is read once or more).
using ArgNodes = llvm::SmallVector<TSNode, 4>;
using KeywordArgs = llvm::SmallVector<std::pair<std::string_view, TSNode>, 3>;

/// A call's parts: callee, positional and keyword arguments.
struct CallArgs {
  // Provided, not defaulted: value-initialisation (`optional::emplace()`) would zero the whole
  // object, inline storage included, before constructing it, once per call of a file.
  CallArgs() {} // NOLINT(modernize-use-equals-default)
  TSNode Callee{};
  TSNode ArgList{};
  ArgNodes Positional;
  KeywordArgs Keywords;                       // name -> value
  llvm::SmallVector<TSNode, 3> KeywordNodes; // the keyword_argument nodes
  bool HasSplat = false; // *args or **kwargs: the call may pass anything
  TSNode keyword(std::string_view Name) const;
  /// The argument passed as keyword \p Name or else at position \p Index.
  TSNode arg(std::string_view Name, size_t Index) const;
  /// Like arg(), but after a splat (`*args`) positions say nothing: only the keyword counts.
  TSNode argUnlessSplat(std::string_view Name, size_t Index) const {
    return HasSplat ? keyword(Name) : arg(Name, Index);
  }
};
/// Parts of a `call` node; nullopt for other nodes or generator-argument calls.
std::optional<CallArgs> callArgs(TSNode Call, const NodeText &Text);
/// The callee and argument list of a `call` node, without reading the arguments (the costly
/// part: each child look-up walks the list); nullopt where callArgs() is.
std::optional<CallArgs> callParts(TSNode Call);
/// Reads the arguments of \p A, whose Callee and ArgList callParts() set.
void readArguments(CallArgs &A, const NodeText &Text);
/// The same, given the argument list's named children (FileContext::argumentsOf()).
void readArguments(CallArgs &A, const NodeText &Text, std::span<const TSNode> Children);
/// The same, from the children the walk met where it met them all (\p Met), else from the tree.
inline void readArguments(CallArgs &A, const NodeText &Text, std::optional<std::span<const TSNode>> Met) {
  if (Met)
    readArguments(A, Text, *Met);
  else
    readArguments(A, Text);
}
/// Whether the text of an argument list may pass keyword \p Name: somewhere it is written as a
/// whole name followed by `=` (or by a comment or a line continuation). False means it does not.
bool mayPassKeyword(std::string_view ArgumentText, std::string_view Name);

/// For `a.b.c(...)` style callees: the attribute name (c) and the object (a.b).
struct AttributeParts {
  TSNode Object{};
  std::string_view Name;
};
std::optional<AttributeParts> attributeParts(TSNode N, const NodeText &Text);

} // namespace torchlint
