// Parser and node helpers for the tree-sitter Python grammar.
#include "parse/Tree.h"

#include "source/SourceFile.h"
#include "source/Strings.h"

#include <array>
#include <cassert>
#include <cstdlib>

namespace torchlint {

const TSLanguage *pythonLanguage() {
  static const TSLanguage *L = tree_sitter_python();
  return L;
}

std::vector<std::string_view> readSymbolNames() {
  const TSLanguage *L = pythonLanguage();
  std::vector<std::string_view> N(ts_language_symbol_count(L));
  for (uint32_t S = 0; S < N.size(); ++S)
    N[S] = ts_language_symbol_name(L, static_cast<TSSymbol>(S));
  return N;
}

TSSymbol symbolFor(std::string_view Kind) {
  return ts_language_symbol_for_name(pythonLanguage(), Kind.data(), static_cast<uint32_t>(Kind.size()),
                                     true);
}

std::vector<TSSymbol> symbolsNamed(std::string_view Kind) {
  const TSLanguage *L = pythonLanguage();
  std::vector<TSSymbol> Out;
  for (uint32_t S = 0, E = ts_language_symbol_count(L); S < E; ++S)
    if (Kind == ts_language_symbol_name(L, static_cast<TSSymbol>(S)) &&
        ts_language_symbol_type(L, static_cast<TSSymbol>(S)) == TSSymbolTypeRegular)
      Out.push_back(static_cast<TSSymbol>(S));
  return Out;
}

std::string_view grammarVersion() { return TORCHLINT_GRAMMAR_VERSION; }

namespace {
struct ParserHolder {
  TSParser *P;
  ParserHolder() : P(ts_parser_new()) {
    bool Ok = ts_parser_set_language(P, pythonLanguage());
    assert(Ok && "tree-sitter runtime rejects the grammar's ABI version");
    (void)Ok;
  }
  ~ParserHolder() { ts_parser_delete(P); }
};
} // namespace

TreePtr parsePython(std::string_view Text, const TSTree *Old, const std::function<bool()> &Stop) {
  // tree-sitter-python 0.23.6's scanner does not clear its "inside an f-string" flag when a
  // parse starts: a parser whose last parse ended with it set (an incremental parse after an
  // edit inside an f-string) lexed the start of the next file as f-string text and reported
  // syntax errors that are not there. ts_parser_reset does not reach the scanner; setting
  // the language again creates a fresh one, and keeps the parser's node pool (a new parser
  // per parse made the parse 4% slower).
  thread_local ParserHolder Holder;
  ts_parser_set_language(Holder.P, pythonLanguage());
  // Python ends a line at a lone CR too (old Mac files); the grammar's scanner does not, and
  // would read such a file as one line. It reads a copy where each lone CR is a LF: the same
  // length, so every offset, and the tree's rows, are those of the text.
  std::optional<std::string> Unified = loneCrsAsLf(Text);
  if (Unified)
    Text = *Unified;
  if (!Stop)
    return TreePtr(ts_parser_parse_string(Holder.P, Old, Text.data(), static_cast<uint32_t>(Text.size())));
  // In slices: a parse that runs out of its time returns null, and the same call resumes it.
  ts_parser_set_timeout_micros(Holder.P, 10000);
  TSTree *T;
  while (!(T = ts_parser_parse_string(Holder.P, Old, Text.data(), static_cast<uint32_t>(Text.size()))))
    if (Stop()) {
      ts_parser_reset(Holder.P); // the next parse starts afresh
      break;
    }
  ts_parser_set_timeout_micros(Holder.P, 0);
  return TreePtr(T);
}

TSNode field(TSNode N, std::string_view Name) {
  // tree-sitter looks field names up linearly; resolve each name to its id once, in buckets by
  // length and end letters (a string hash and a division per call cost the flow more than 1%).
  using Bucket = std::vector<std::pair<std::string_view, TSFieldId>>;
  static constexpr auto Slot = [](std::string_view S) {
    return (S.size() * 37 + static_cast<unsigned char>(S.front()) + static_cast<unsigned char>(S.back()) * 3) & 255;
  };
  static const std::array<Bucket, 256> Ids = [] {
    std::array<Bucket, 256> T;
    const TSLanguage *L = pythonLanguage();
    for (TSFieldId I = 1, E = static_cast<TSFieldId>(ts_language_field_count(L)); I <= E; ++I)
      if (const char *Name = ts_language_field_name_for_id(L, I); Name && *Name)
        T[Slot(Name)].emplace_back(Name, I);
    return T;
  }();
  if (ts_node_is_null(N))
    return TSNode{};
  // The fields asked for most often are the first child of their node (`call.function`,
  // `attribute.object`, `binary_operator.left`...): ts_node_child_by_field_id walks the
  // production's field map and the children for them, the first child is one read.
  static const TSSymbol Call = symbolFor("call"), Attribute = symbolFor("attribute"),
                        Binary = symbolFor("binary_operator"), Assignment = symbolFor("assignment"),
                        Augmented = symbolFor("augmented_assignment"), Subscript = symbolFor("subscript"),
                        Keyword = symbolFor("keyword_argument"), Comment = symbolFor("comment"),
                        Default = symbolFor("default_parameter"), TypedDefault = symbolFor("typed_default_parameter");
  TSSymbol S = ts_node_symbol(N);
  bool First = false;
  uint32_t Index = 0, Count = 0; // or child Index of a node with exactly Count children
  switch (Name.size()) {
  case 4:
    First = (Name == "left" && (S == Binary || S == Assignment || S == Augmented)) ||
            (Name == "name" && (S == Keyword || S == Default || S == TypedDefault));
    if (Name == "type" && S == TypedDefault)
      Index = 2, Count = 5; // name, ":", type, "=", value
    break;
  case 5:
    First = Name == "value" && S == Subscript;
    if (Name == "right" && S == Binary)
      Index = 2, Count = 3; // left, operator, right
    else if (Name == "value" && (S == Keyword || S == Default))
      Index = 2, Count = 3; // name, "=", value
    else if (Name == "value" && S == TypedDefault)
      Index = 4, Count = 5;
    break;
  case 6:
    First = Name == "object" && S == Attribute;
    break;
  case 8:
    First = Name == "function" && S == Call;
    if (Name == "operator" && S == Binary)
      Index = 1, Count = 3;
    break;
  case 9:
    if (Name == "attribute" && S == Attribute)
      Index = 2, Count = 3; // object, ".", attribute
    else if (Name == "subscript" && S == Subscript)
      Index = 2, Count = 4; // value, "[", subscript, "]"
    break;
  }
  // A node never starts with an extra, and one with no more children than its production
  // has none (comments and line continuations are extras); error recovery may build other
  // shapes.
  if ((First || Count) && !ts_node_has_error(N)) {
    if (First) {
      TSNode C = ts_node_child(N, 0);
      if (!ts_node_is_null(C) && ts_node_symbol(C) != Comment)
        return C;
    } else if (ts_node_child_count(N) == Count) {
      return ts_node_child(N, Index);
    }
  }
  if (Name.empty())
    return TSNode{};
  for (auto &[Known, Id] : Ids[Slot(Name)])
    if (Known == Name)
      return ts_node_child_by_field_id(N, Id);
  return TSNode{};
}

namespace {
/// One cursor per thread, reset onto each node asked about: ts_tree_cursor_new allocates its
/// stack, and ts_node_named_child(N, I) walks the children from the first each time.
struct ReusedCursor {
  TSTreeCursor C{};
  bool Live = false;
  ~ReusedCursor() {
    if (Live)
      ts_tree_cursor_delete(&C);
  }
  TSTreeCursor &on(TSNode N) {
    if (Live) {
      ts_tree_cursor_reset(&C, N);
    } else {
      C = ts_tree_cursor_new(N);
      Live = true;
    }
    return C;
  }
};
} // namespace

NodeList namedChildren(TSNode N) {
  NodeList Out;
  uint32_t Count = ts_node_named_child_count(N);
  if (Count == 0)
    return Out;
  // A few children (an expression statement, a decorator, most argument lists) by index: each
  // look-up walks the children from the first again, but a cursor's steps over the tokens
  // between them (`(`, `,`) cost more up to three (callgrind, torchvision and skorch).
  if (Count <= 3) {
    for (uint32_t I = 0; I < Count; ++I)
      Out.push_back(ts_node_named_child(N, I));
    return Out;
  }
  Out.reserve(Count);
  thread_local ReusedCursor Reused;
  TSTreeCursor &Cur = Reused.on(N);
  if (ts_tree_cursor_goto_first_child(&Cur)) {
    do {
      TSNode X = ts_tree_cursor_current_node(&Cur);
      if (ts_node_is_named(X))
        Out.push_back(X);
    } while (Out.size() < Count && ts_tree_cursor_goto_next_sibling(&Cur)); // not the closing tokens
  }
  return Out;
}

std::optional<std::string_view> stringLiteral(TSNode N, const NodeText &Text) {
  if (!is(N, "string"))
    return std::nullopt;
  uint32_t Count = ts_node_child_count(N);
  if (Count < 2)
    return std::nullopt;
  TSNode Start = ts_node_child(N, 0), End = ts_node_child(N, Count - 1);
  if (!is(Start, "string_start") || !is(End, "string_end"))
    return std::nullopt;
  // Only plain, raw or u-prefixed strings hold a value we can read from the source.
  for (char C : Text(Start))
    if (C != 'r' && C != 'R' && C != 'u' && C != 'U' && C != '\'' && C != '"')
      return std::nullopt;
  for (uint32_t I = 1; I + 1 < Count; ++I)
    if (!is(ts_node_child(N, I), "string_content"))
      return std::nullopt; // interpolation
  uint32_t B = ts_node_end_byte(Start), E = ts_node_start_byte(End);
  std::string_view Whole = Text(N);
  uint32_t Base = ts_node_start_byte(N);
  if (E < B || E - Base > Whole.size())
    return std::nullopt;
  std::string_view Value = Whole.substr(B - Base, E - B);
  if (Value.find('\\') != std::string_view::npos)
    return std::nullopt;
  return Value;
}

std::optional<long> intLiteral(TSNode N, const NodeText &Text) {
  if (!is(N, "integer"))
    return std::nullopt;
  std::string_view S = Text(N);
  if (S.empty() || S.size() > 9)
    return std::nullopt;
  long V = 0;
  for (char C : S) {
    if (C < '0' || C > '9')
      return std::nullopt;
    V = V * 10 + (C - '0');
  }
  return V;
}

std::optional<bool> boolLiteral(TSNode N) {
  if (is(N, "true"))
    return true;
  if (is(N, "false"))
    return false;
  return std::nullopt;
}

std::string shortText(TSNode Expr, const NodeText &Text) {
  std::string_view T = Text(Expr);
  T = T.substr(0, T.find_first_of("\r\n"));
  std::string Out(T.substr(0, 40));
  if (T.size() > 40 || Out.size() < Text(Expr).size())
    Out += "...";
  return Out;
}

bool grammarGap(TSNode Error, const NodeText &Text) {
  std::string_view Src = Text.source();
  size_t B = ts_node_start_byte(Error), E = ts_node_end_byte(Error);
  if (B > Src.size() || E > Src.size() || E - B > 4096)
    return false;
  B = Src.rfind('\n', B == 0 ? 0 : B - 1);
  B = B == std::string_view::npos || B == 0 ? 0 : B + 1;
  E = std::min(Src.find('\n', E), Src.size());
  std::string_view Lines = Src.substr(B, E - B);
  auto Blank = [](char C) { return C == ' ' || C == '\t' || C == '\\' || C == '\r' || C == '\n'; };
  for (size_t I = Lines.find('*'); I != std::string_view::npos; I = Lines.find('*', I + 1)) {
    if ((I > 0 && Lines[I - 1] == '*') || (I + 1 < Lines.size() && Lines[I + 1] == '*'))
      continue; // `**`: a power or a dict splat
    size_t After = I + 1;
    while (After < Lines.size() && Blank(Lines[After]))
      ++After;
    if (After == Lines.size() || std::string_view("[({").find(Lines[After]) == std::string_view::npos)
      continue;
    size_t Before = I;
    while (Before > 0 && Blank(Lines[Before - 1]))
      --Before;
    if (Before > 0 && (Lines[Before - 1] == ',' || Lines[Before - 1] == '='))
      return true; // an element of a bare tuple: `a, *[...]`, `x = *[...], a`
    std::string_view Head = Lines.substr(0, Before);
    for (std::string_view Word : {"return", "yield", "in"})
      if (Head.size() >= Word.size() && Head.substr(Head.size() - Word.size()) == Word &&
          (Head.size() == Word.size() || Blank(Head[Head.size() - Word.size() - 1])))
        return true;
  }
  return false;
}

TSNode CallArgs::keyword(std::string_view Name) const {
  for (auto &[K, V] : Keywords)
    if (K == Name)
      return V;
  return TSNode{};
}

TSNode CallArgs::arg(std::string_view Name, size_t Index) const {
  TSNode K = keyword(Name);
  if (!ts_node_is_null(K))
    return K;
  return Index < Positional.size() ? Positional[Index] : TSNode{};
}

std::optional<CallArgs> callParts(TSNode Call) {
  if (!is(Call, "call"))
    return std::nullopt;
  CallArgs A;
  // Children by index, not by field: tree-sitter 0.20's field look-up and cursor steps
  // cost several times more than these two reads.
  if (ts_node_child_count(Call) == 2) { // function, arguments
    A.Callee = ts_node_child(Call, 0);
    A.ArgList = ts_node_child(Call, 1);
  } else {
    A.Callee = field(Call, "function");
    A.ArgList = field(Call, "arguments");
  }
  if (!is(A.ArgList, "argument_list"))
    return std::nullopt;
  return A;
}

namespace {
/// `name` of a keyword argument's text `name = value` where the name is plain ASCII and only
/// spaces stand before the `=`; empty otherwise (the tree knows).
std::string_view plainKeywordName(std::string_view T) {
  auto Start = [](char C) { return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_'; };
  auto Rest = [&](char C) { return Start(C) || (C >= '0' && C <= '9'); };
  if (T.empty() || !Start(T[0]))
    return {};
  size_t End = 1;
  while (End < T.size() && Rest(T[End]))
    ++End;
  size_t Eq = End;
  while (Eq < T.size() && T[Eq] == ' ')
    ++Eq;
  return Eq < T.size() && T[Eq] == '=' ? T.substr(0, End) : std::string_view();
}
} // namespace

void readArguments(CallArgs &A, const NodeText &Text) {
  NodeList Children = namedChildren(A.ArgList); // inline storage: the usual few allocate nothing
  readArguments(A, Text, std::span<const TSNode>(Children));
}

void readArguments(CallArgs &A, const NodeText &Text, std::span<const TSNode> Children) {
  static const TSSymbol KeywordSym = symbolFor("keyword_argument");
  static const TSSymbol ListSplatSym = symbolFor("list_splat");
  static const TSSymbol DictSplatSym = symbolFor("dictionary_splat");
  for (TSNode C : Children) {
    TSSymbol S = ts_node_symbol(C);
    if (S == KeywordSym) {
      bool Plain = ts_node_child_count(C) == 3; // name, "=", value
      // The name of `name=value` is the text before the `=` where it is an ASCII name: the
      // tree's node for it costs a walk over the children (the value's, the rest of them).
      std::string_view Spelled = Plain ? plainKeywordName(Text(C)) : std::string_view();
      TSNode Name = Plain ? (Spelled.empty() ? ts_node_child(C, 0) : TSNode{}) : field(C, "name");
      TSNode Value = Plain ? ts_node_child(C, 2) : field(C, "value");
      if ((!Spelled.empty() || !ts_node_is_null(Name)) && !ts_node_is_null(Value)) {
        A.Keywords.emplace_back(Spelled.empty() ? Text(Name) : Spelled, Value);
        A.KeywordNodes.push_back(C);
      }
    } else if (S == ListSplatSym || S == DictSplatSym) {
      A.HasSplat = true;
    } else if (!ts_node_is_extra(C)) {
      // (Comments and `\\` line continuations are extras: no arguments.)
      A.Positional.push_back(C);
    }
  }
}

bool mayPassKeyword(std::string_view T, std::string_view Name) {
  for (size_t At = findBytes(T, Name); At != std::string_view::npos; At = findBytes(T, Name, At + 1)) {
    if (At > 0 && (nameByte(T[At - 1]) || T[At - 1] == '.')) // part of a longer name, an attribute
      continue;
    size_t I = At + Name.size();
    while (I < T.size() && (T[I] == ' ' || T[I] == '\t' || T[I] == '\n' || T[I] == '\r' || T[I] == '\f'))
      ++I;
    if (I < T.size() && ((T[I] == '=' && (I + 1 == T.size() || T[I + 1] != '=')) || T[I] == '#' || T[I] == '\\'))
      return true;
  }
  return false;
}

std::optional<CallArgs> callArgs(TSNode Call, const NodeText &Text) {
  auto A = callParts(Call);
  if (A)
    readArguments(*A, Text);
  return A;
}

std::optional<AttributeParts> attributeParts(TSNode N, const NodeText &Text) {
  if (!is(N, "attribute"))
    return std::nullopt;
  // The object is the first child and the name is the text after its dot: reading that
  // is far cheaper than the field map. Comments or line continuations need the tree.
  TSNode First = ts_node_child(N, 0);
  std::string_view Whole = Text(N), ObjText = Text(First);
  if (!ts_node_is_null(First) && ts_node_start_byte(First) == ts_node_start_byte(N) && ObjText.size() < Whole.size()) {
    std::string_view Rest = Whole.substr(ObjText.size());
    if (!Rest.empty() && Rest[0] == '.' && Rest.find_first_of(" \t\r\n#\\", 1) == std::string_view::npos &&
        Rest.size() > 1)
      return AttributeParts{First, Rest.substr(1)};
  }
  TSNode Obj = field(N, "object"), Attr = field(N, "attribute");
  if (ts_node_is_null(Obj) || ts_node_is_null(Attr))
    return std::nullopt;
  return AttributeParts{Obj, Text(Attr)};
}

std::vector<TSNode> nodesSpelled(TSNode Root, const NodeText &Text, std::string_view Word, std::string_view Kind) {
  std::vector<TSNode> Out;
  std::string_view Src = Text.source();
  if (Word.empty())
    return Out;
  for (size_t At = findBytes(Src, Word); At != std::string_view::npos; At = findBytes(Src, Word, At + 1)) {
    auto B = static_cast<uint32_t>(At), E = B + static_cast<uint32_t>(Word.size());
    if ((B > 0 && nameByte(Src[B - 1])) || (E < Src.size() && nameByte(Src[E])))
      continue; // part of a longer name
    TSNode N = ts_node_descendant_for_byte_range(Root, B, E);
    if (is(N, Kind) && ts_node_start_byte(N) == B && ts_node_end_byte(N) == E)
      Out.push_back(N);
  }
  return Out;
}

} // namespace torchlint
