// Re-linting one top-level definition, or one method, after an edit (see Incremental.h for the argument).
#include "lsp/Incremental.h"

#include "lint/Linter.h"
#include "source/Strings.h"
#include "torch/Api.h"

#include <algorithm>
#include <unordered_map>

namespace torchlint::lsp {

namespace {

bool identStart(unsigned char C) { return C == '_' || unsigned((C | 0x20) - 'a') < 26u || C >= 0x80; }
bool identChar(unsigned char C) { return identStart(C) || unsigned(C - '0') < 10u; }

/// Calls \p Fn on every identifier-like word of Python source \p T, skipping comments and
/// string literals (f-strings are read as code: their fields name variables). Words in
/// literal text of f-strings are over-counted, which only makes the caller keep more.
template <class F> void forEachIdentifier(std::string_view T, F &&Fn) {
  size_t I = 0, N = T.size();
  size_t LastEnd = std::string_view::npos; // end of the previous word
  std::string_view Last;
  while (I < N) {
    unsigned char C = static_cast<unsigned char>(T[I]);
    if (C == '#') {
      size_t E = T.find('\n', I);
      I = E == std::string_view::npos ? N : E;
      continue;
    }
    if (C == '"' || C == '\'') {
      bool Prefixed = LastEnd == I && Last.size() <= 3 &&
                      Last.find_first_not_of("rRbBuUfF") == std::string_view::npos;
      if (Prefixed && Last.find_first_of("fF") != std::string_view::npos) {
        ++I; // an f-string: read on as code
        continue;
      }
      bool Triple = I + 2 < N && T[I + 1] == T[I] && T[I + 2] == T[I];
      size_t J = I + (Triple ? 3 : 1);
      while (J < N) {
        if (T[J] == '\\') {
          J += 2;
          continue;
        }
        if (T[J] == static_cast<char>(C) && (!Triple || (J + 2 < N && T[J + 1] == T[J] && T[J + 2] == T[J]))) {
          J += Triple ? 3 : 1;
          break;
        }
        if (!Triple && T[J] == '\n')
          break; // unterminated: the parser has its own opinion, stop here
        ++J;
      }
      I = std::min(J, N);
      continue;
    }
    if (identStart(C)) {
      size_t J = I + 1;
      while (J < N && identChar(static_cast<unsigned char>(T[J])))
        ++J;
      Last = T.substr(I, J - I);
      LastEnd = J;
      Fn(Last);
      I = J;
      continue;
    }
    if (unsigned(C - '0') < 10u) { // a number: `1e5` and `0x1f` are not words
      while (I < N && (identChar(static_cast<unsigned char>(T[I])) || T[I] == '.'))
        ++I;
      continue;
    }
    ++I;
  }
}

template <class Words> bool containsAny(std::string_view T, const Words &Ws) {
  for (std::string_view W : Ws)
    if (containsBytes(T, W))
      return true;
  return false;
}

/// Whether any range of \p D (its own, its notes', its fix's) overlaps [B, E).
bool touches(const Diagnostic &D, uint32_t B, uint32_t E) {
  auto Hit = [&](const TextRange &R) { return R.Begin < E && R.End > B; };
  if (Hit(D.Range))
    return true;
  for (const Note &N : D.Notes)
    if (Hit(N.Range))
      return true;
  if (D.Fix)
    for (const Edit &Ed : D.Fix->Edits)
      if (Hit(Ed.Range) || (Ed.Range.Begin == Ed.Range.End && Ed.Range.Begin >= B && Ed.Range.Begin < E))
        return true;
  return false;
}

bool mentionsLine(const Diagnostic &D) {
  if (D.Message.find("line ") != std::string::npos)
    return true;
  for (const Note &N : D.Notes)
    if (N.Message.find("line ") != std::string::npos)
      return true;
  return D.Fix && D.Fix->Message.find("line ") != std::string::npos;
}

void shift(TextRange &R, uint32_t From, int64_t Delta) {
  if (R.Begin >= From)
    R.Begin = static_cast<uint32_t>(int64_t(R.Begin) + Delta);
  if (R.End >= From)
    R.End = static_cast<uint32_t>(int64_t(R.End) + Delta);
}

/// Names a module-level statement binds, as far as its text shows: assignment and `for`
/// targets, `as` targets, walrus names, nested definitions. Attribute and subscript targets
/// count their object (`cfg.lr = 0.1` changes what `cfg` holds).
std::vector<std::string_view> bindings(TSNode Unit, std::string_view Text) {
  std::vector<std::string_view> Out;
  auto identifiersIn = [&](TSNode N) {
    if (!ts_node_is_null(N))
      forEachNode(N, [&](TSNode X) {
        if (is(X, "identifier"))
          Out.push_back(Text.substr(ts_node_start_byte(X), ts_node_end_byte(X) - ts_node_start_byte(X)));
      });
  };
  forEachNode(Unit, [&](TSNode X) {
    std::string_view K = kind(X);
    if (K == "assignment" || K == "augmented_assignment" || K == "for_statement" || K == "for_in_clause")
      identifiersIn(field(X, "left"));
    else if (K == "named_expression" || K == "function_definition" || K == "class_definition")
      identifiersIn(field(X, "name"));
    else if (K == "as_pattern_target")
      identifiersIn(X);
  });
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

/// The statements of a class's body, read with a cursor.
std::vector<ClassMember> classMembers(TSNode Body, std::string_view Text) {
  std::vector<ClassMember> Out;
  TSTreeCursor C = ts_tree_cursor_new(Body);
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      TSNode N = ts_tree_cursor_current_node(&C);
      if (!ts_node_is_named(N))
        continue; // the block's own tokens (an indent, a newline), never a statement
      ClassMember M;
      M.Begin = ts_node_start_byte(N);
      M.End = ts_node_end_byte(N);
      TSNode Def = is(N, "decorated_definition") ? field(N, "definition") : N;
      if (is(Def, "function_definition")) {
        TSNode Name = field(Def, "name"), Block = field(Def, "body");
        if (!ts_node_is_null(Name) && !ts_node_is_null(Block) && ts_node_start_byte(Block) > M.Begin) {
          M.Name = Text.substr(ts_node_start_byte(Name), ts_node_end_byte(Name) - ts_node_start_byte(Name));
          M.BodyBegin = ts_node_start_byte(Block);
          M.Node = Def;
        }
      }
      Out.push_back(M);
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

} // namespace

std::vector<TopUnit> topUnits(TSNode Root, std::string_view Text) {
  std::vector<TopUnit> Out;
  TSTreeCursor C = ts_tree_cursor_new(Root);
  if (ts_tree_cursor_goto_first_child(&C)) {
    do {
      TSNode N = ts_tree_cursor_current_node(&C);
      TopUnit U;
      U.Node = N;
      U.Begin = ts_node_start_byte(N);
      U.End = ts_node_end_byte(N);
      std::string_view K = kind(N);
      TSNode Def = N;
      if (K == "decorated_definition")
        Def = field(N, "definition");
      if (!ts_node_is_null(Def) && (is(Def, "function_definition") || is(Def, "class_definition"))) {
        U.IsDef = true;
        TSNode Name = field(Def, "name");
        if (!ts_node_is_null(Name))
          U.Name = Text.substr(ts_node_start_byte(Name), ts_node_end_byte(Name) - ts_node_start_byte(Name));
        if (is(Def, "class_definition"))
          if (TSNode Body = field(Def, "body"); !ts_node_is_null(Body)) {
            U.IsClass = true;
            U.Members = classMembers(Body, Text);
          }
      } else if (K == "expression_statement" && ts_node_named_child_count(N) > 0) {
        std::string_view E = kind(ts_node_named_child(N, 0));
        U.IsAssignment = E == "assignment" || E == "augmented_assignment";
      }
      Out.push_back(std::move(U));
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  return Out;
}

EditSpan combine(const EditSpan &First, const EditSpan &Then) {
  // The text after First differs from the one before it in [Begin, NewEnd) only; past that
  // end both are the same text, so stretching the span's end there stretches its old end alike.
  uint32_t Begin = std::min(First.Begin, Then.Begin);
  uint32_t End = std::max(First.NewEnd, Then.OldEnd);
  uint32_t OldEnd = First.OldEnd + (End - First.NewEnd);
  uint32_t NewEnd = static_cast<uint32_t>(int64_t(End) + Then.delta());
  return {Begin, OldEnd, NewEnd};
}

WordIndex indexWords(std::string_view Text, const Linter::FileWideWords &Lists) {
  WordIndex W;
  W.Lists = Lists;
  for (std::string_view Word : Lists.Words)
    for (size_t At = findBytes(Text, Word); At != std::string_view::npos; At = findBytes(Text, Word, At + 1))
      W.FileWide.push_back(static_cast<uint32_t>(At));
  std::sort(W.FileWide.begin(), W.FileWide.end());
  W.FileDirective = containsAny(Text, Lists.WholeFile);
  return W;
}

namespace {

/// Whether \p Name occurs in \p T at \p At as a whole word.
bool wordAt(std::string_view T, size_t At, size_t Len) {
  return (At == 0 || !identChar(static_cast<unsigned char>(T[At - 1]))) &&
         (At + Len == T.size() || !identChar(static_cast<unsigned char>(T[At + Len])));
}

bool containsWord(std::string_view T, std::string_view Word) {
  for (size_t At = findBytes(T, Word); At != std::string_view::npos; At = findBytes(T, Word, At + 1))
    if (wordAt(T, At, Word.size()))
      return true;
  return false;
}

/// The statement of \p Block, at any depth of the blocks nested in it, that holds bytes
/// [B, E); a null node when none does (the edit is between statements).
TSNode statementAround(TSNode Block, uint32_t B, uint32_t E) {
  TSNode Stmt{};
  TSNode N = Block;
  bool InBlock = true;
  for (;;) {
    TSTreeCursor C = ts_tree_cursor_new(N);
    TSNode Next{};
    if (ts_tree_cursor_goto_first_child_for_byte(&C, B) >= 0) {
      TSNode X = ts_tree_cursor_current_node(&C);
      if (ts_node_start_byte(X) <= B && E <= ts_node_end_byte(X))
        Next = X;
    }
    ts_tree_cursor_delete(&C);
    if (ts_node_is_null(Next))
      return Stmt;
    if (InBlock)
      Stmt = Next;
    InBlock = is(Next, "block");
    N = Next;
  }
}

/// [B, E) of \p T widened to whole lines.
std::string_view wholeLines(std::string_view T, size_t B, size_t E) {
  B = std::min(B, T.size());
  E = std::min(std::max(E, B), T.size());
  size_t LB = B == 0 ? std::string_view::npos : T.rfind('\n', B - 1);
  LB = LB == std::string_view::npos ? 0 : LB + 1;
  size_t LE = T.find('\n', E);
  LE = LE == std::string_view::npos ? T.size() : LE;
  return T.substr(LB, LE - LB);
}

/// Calls \p Fn with NAME for every `Self.NAME` in \p T.
template <class F> void forEachAttributeOf(std::string_view T, std::string_view Self, F &&Fn) {
  for (size_t At = findBytes(T, Self); At != std::string_view::npos; At = findBytes(T, Self, At + 1)) {
    if (At > 0 && (identChar(static_cast<unsigned char>(T[At - 1])) || T[At - 1] == '.'))
      continue;
    size_t I = At + Self.size();
    while (I < T.size() && (T[I] == ' ' || T[I] == '\t'))
      ++I;
    if (I >= T.size() || T[I] != '.')
      continue;
    ++I;
    while (I < T.size() && (T[I] == ' ' || T[I] == '\t'))
      ++I;
    size_t J = I;
    while (J < T.size() && identChar(static_cast<unsigned char>(T[J])))
      ++J;
    if (J > I)
      Fn(T.substr(I, J - I));
  }
}

/// A unit re-lint being planned: each phase below refuses (an empty Refusal is a yes) or
/// adds what it found.
struct Planner {
  Planner(const std::vector<TopUnit> &OldUnits, std::string_view OldText, std::string_view NewText, const EditSpan &E,
          const Linter::FileWideWords &Lists)
      : OldUnits(OldUnits), OldText(OldText), NewText(NewText), E(E), Lists(Lists) {}

  const std::vector<TopUnit> &OldUnits;
  std::string_view OldText, NewText;
  const EditSpan &E;
  const Linter::FileWideWords &Lists;
  std::vector<TopUnit> NewUnits;
  size_t Index = 0; // the edited unit
  // The edited text: the unit, or the method when only methods are re-linted.
  std::string_view OldBody, NewBody;
  uint32_t OldBegin = 0, OldEnd = 0;
  WordIndex Words;
  std::vector<size_t> Affected; // units whose findings may change (the edited one first)
  std::vector<char> Kept;       // units the masked text keeps
  // Inside a class: the edited method, the methods re-linted with it, the members kept.
  bool MethodLevel = false;
  size_t Method = 0;
  std::vector<size_t> Component;
  std::vector<char> KeptMember;
  std::vector<TextRange> OldRelinted, NewRelinted; // sorted

  std::string_view matchUnits(TSNode NewRoot);
  std::string_view planMethod();
  std::string_view attributesAtEdit(const ClassMember &NewM, const ClassMember *Init) const;
  std::string_view tieMethods(const ClassMember *Init);
  std::string_view indexNewText(const WordIndex *OldWords);
  std::string_view findAffected();
  void relintedRanges();
  std::string_view checkOldFindings(const std::vector<Diagnostic> &OldDiags) const;
  void keepMembers();
  void keepNeeded();
  UnitPlan mask() const;
};

/// The unit the edit falls in, and the same statements before and after it.
std::string_view Planner::matchUnits(TSNode NewRoot) {
  auto It = std::find_if(OldUnits.begin(), OldUnits.end(),
                         [&](const TopUnit &U) { return U.Begin <= E.Begin && E.OldEnd <= U.End; });
  if (It == OldUnits.end() || !It->IsDef)
    return "the edit is not inside one top-level definition";
  Index = static_cast<size_t>(It - OldUnits.begin());
  NewUnits = topUnits(NewRoot, NewText);
  if (NewUnits.size() != OldUnits.size())
    return "top-level statements were added or removed";
  int64_t Delta = E.delta();
  for (size_t I = 0; I < NewUnits.size(); ++I) {
    int64_t Shift = I < Index ? 0 : Delta;
    int64_t B = I <= Index ? 0 : Delta;
    if (int64_t(NewUnits[I].Begin) != int64_t(OldUnits[I].Begin) + B ||
        int64_t(NewUnits[I].End) != int64_t(OldUnits[I].End) + Shift || NewUnits[I].IsDef != OldUnits[I].IsDef)
      return "top-level statements moved";
  }
  const TopUnit &Old = OldUnits[Index], &New = NewUnits[Index];
  if (New.Name != Old.Name)
    return "the definition was renamed";
  OldBegin = Old.Begin;
  OldEnd = Old.End;
  OldBody = OldText.substr(Old.Begin, Old.End - Old.Begin);
  NewBody = NewText.substr(New.Begin, New.End - New.Begin);
  return {};
}

/// An edit inside the body of one method of a class: the method, the same members before and
/// after it, and what ties the method to the rest of the class.
std::string_view Planner::planMethod() {
  const TopUnit &Old = OldUnits[Index], &New = NewUnits[Index];
  if (!Old.IsClass || !New.IsClass)
    return "not a class";
  auto It = std::find_if(Old.Members.begin(), Old.Members.end(), [&](const ClassMember &M) {
    return M.isMethod() && M.BodyBegin <= E.Begin && E.OldEnd <= M.End;
  });
  if (It == Old.Members.end())
    return "the edit is not inside the body of one method";
  Method = static_cast<size_t>(It - Old.Members.begin());
  if (It->Name == "__init__")
    return "the edit is inside `__init__`";
  if (New.Members.size() != Old.Members.size())
    return "statements of the class were added or removed";
  int64_t Delta = E.delta();
  for (size_t I = 0; I < New.Members.size(); ++I) {
    const ClassMember &O = Old.Members[I], &N = New.Members[I];
    int64_t B = I <= Method ? 0 : Delta, Shift = I < Method ? 0 : Delta;
    if (int64_t(N.Begin) != int64_t(O.Begin) + B || int64_t(N.End) != int64_t(O.End) + Shift ||
        int64_t(N.BodyBegin) != (O.BodyBegin ? int64_t(O.BodyBegin) + B : 0) || N.Name != O.Name)
      return "statements of the class moved";
  }
  const ClassMember &OldM = Old.Members[Method], &NewM = New.Members[Method];
  std::string_view OldText0 = OldText.substr(OldM.Begin, OldM.End - OldM.Begin);
  std::string_view NewText0 = NewText.substr(NewM.Begin, NewM.End - NewM.Begin);
  if (containsAny(OldText0, Lists.Words) || containsAny(NewText0, Lists.Words))
    return "the method has code with file-wide effects";
  // State registered by name is read by the class as a whole (TL103 asks whether an attribute
  // is registered anywhere in the class).
  static constexpr std::string_view Registers[] = {"register_buffer", "register_parameter"};
  if (containsAny(OldText0, Registers) || containsAny(NewText0, Registers))
    return "the method registers state by name";
  const ClassMember *Init = nullptr;
  for (const ClassMember &M : New.Members)
    if (M.isMethod() && M.Name == "__init__")
      Init = &M;
  if (std::string_view Why = attributesAtEdit(NewM, Init); !Why.empty())
    return Why;
  if (std::string_view Why = tieMethods(Init); !Why.empty())
    return Why;
  MethodLevel = true;
  OldBegin = OldM.Begin;
  OldEnd = OldM.End;
  OldBody = OldText0;
  NewBody = NewText0;
  return {};
}

/// What `__init__` assigns to `self` is compared with its uses in the other methods (TL103
/// reports at the assignment when every use is on a device, or stays silent when another
/// method assigns it). An edit at a use of such an attribute changes a finding in
/// `__init__`, which is not re-linted: the statement around the edit, before and after it,
/// must name none of them.
std::string_view Planner::attributesAtEdit(const ClassMember &NewM, const ClassMember *Init) const {
  if (!Init)
    return {};
  std::string_view InitText = NewText.substr(Init->Begin, Init->End - Init->Begin);
  uint32_t B = E.Begin, End = E.NewEnd;
  if (TSNode S = statementAround(field(NewM.Node, "body"), E.Begin, E.NewEnd); !ts_node_is_null(S)) {
    B = std::min(B, ts_node_start_byte(S));
    End = std::max(End, ts_node_end_byte(S));
  }
  std::string_view Around = wholeLines(NewText, B, End);
  std::string_view Before = wholeLines(OldText, B, static_cast<size_t>(int64_t(End) - E.delta()));
  std::string_view Self = "self";
  TSNode Params = field(NewM.Node, "parameters");
  if (!ts_node_is_null(Params) && ts_node_named_child_count(Params) > 0) {
    TSNode First = ts_node_named_child(Params, 0);
    if (is(First, "identifier"))
      Self = NewText.substr(ts_node_start_byte(First), ts_node_end_byte(First) - ts_node_start_byte(First));
  }
  bool Touches = false;
  auto Check = [&](std::string_view Name) {
    if (!Touches)
      Touches = containsWord(InitText, Name);
  };
  for (std::string_view S : {Self, std::string_view("self")}) {
    forEachAttributeOf(Around, S, Check);
    forEachAttributeOf(Before, S, Check);
  }
  return Touches ? "the edit is at an attribute `__init__` sets" : "";
}

/// The methods tied to the edited one by name, transitively: those whose text names it
/// (callers through `self`) and those it names (callees). Their findings are re-linted with
/// it. A method that `__init__`, the class header or a class-level statement names is read
/// by the class as a whole, and then so is the edit.
std::string_view Planner::tieMethods(const ClassMember *Init) {
  constexpr size_t MaxComponent = 16;
  const TopUnit &Class = NewUnits[Index];
  const std::vector<ClassMember> &Ms = Class.Members;
  std::string_view ClassText = NewText.substr(Class.Begin, Class.End - Class.Begin);
  std::unordered_map<std::string_view, std::vector<size_t>> ByName;
  for (size_t I = 0; I < Ms.size(); ++I)
    if (Ms[I].isMethod() && &Ms[I] != Init)
      ByName[Ms[I].Name].push_back(I);
  std::vector<char> In(Ms.size(), 0);
  Component = {Method};
  In[Method] = 1;
  auto add = [&](size_t J) {
    if (In[J])
      return true;
    if (Component.size() == MaxComponent)
      return false;
    In[J] = 1;
    Component.push_back(J);
    return true;
  };
  // Names searched: the methods' own, and for `forward` the class's (a method constructing the
  // class reads whether `forward` moves its inputs).
  auto callers = [&](std::string_view Name, size_t Of, bool ClassName) -> std::string_view {
    for (size_t At = findBytes(ClassText, Name); At != std::string_view::npos; At = findBytes(ClassText, Name, At + 1)) {
      if (!wordAt(ClassText, At, Name.size()))
        continue;
      uint32_t Off = Class.Begin + static_cast<uint32_t>(At);
      if (!ClassName && Off >= Ms[Of].Begin && Off < Ms[Of].End)
        continue;
      auto U = std::upper_bound(Ms.begin(), Ms.end(), Off, [](uint32_t O, const ClassMember &X) { return O < X.Begin; });
      const ClassMember *X = U == Ms.begin() ? nullptr : &*std::prev(U);
      if (!X || Off >= X->End || !X->isMethod()) {
        if (ClassName)
          continue; // the class's own header
        return "the class body outside its methods names the method";
      }
      if (X == Init)
        return "`__init__` names the method";
      if (!add(static_cast<size_t>(X - Ms.data())))
        return "the method is tied to too many others";
    }
    return {};
  };
  if (Ms[Method].Name == "forward")
    if (std::string_view Why = callers(Class.Name, Method, true); !Why.empty())
      return Why;
  for (size_t K = 0; K < Component.size(); ++K) {
    const ClassMember &X = Ms[Component[K]];
    if (std::string_view Why = callers(X.Name, Component[K], false); !Why.empty())
      return Why;
    bool TooMany = false;
    forEachIdentifier(NewText.substr(X.Begin, X.End - X.Begin), [&](std::string_view W) {
      auto D = ByName.find(W);
      if (D != ByName.end())
        for (size_t J : D->second)
          TooMany |= !add(J);
    });
    if (TooMany)
      return "the method is tied to too many others";
  }
  std::sort(Component.begin(), Component.end());
  return {};
}

/// The new text's index: the old one with everything after the edited text shifted (it has
/// none of the words, before or after the edit), or a search of the new text.
std::string_view Planner::indexNewText(const WordIndex *OldWords) {
  if (OldWords && OldWords->Lists.Words == Lists.Words && OldWords->Lists.WholeFile == Lists.WholeFile) {
    Words.Lists = Lists;
    Words.FileDirective = OldWords->FileDirective || containsAny(NewBody, Lists.WholeFile);
    Words.FileWide.reserve(OldWords->FileWide.size());
    for (uint32_t At : OldWords->FileWide)
      Words.FileWide.push_back(At < OldBegin ? At : static_cast<uint32_t>(int64_t(At) + E.delta()));
  } else {
    Words = indexWords(NewText, Lists);
  }
  return Words.FileDirective ? "the file has code that makes every edit re-lint all of it" : "";
}

/// The units whose findings may change: the definition, then every unit naming something an
/// affected unit binds at module level (a caller of the helper, a subclass, module code using
/// its result, a function reading what that code binds), transitively. The search is textual
/// (a mention in a string or comment counts too) and bounded: past the bounds the whole file
/// costs about as much. An edit inside a method other than `forward` changes nothing that
/// code outside the class reads of it (its header, `__init__`, whether `forward` moves its
/// inputs, the names of its methods), so only the class is affected.
std::string_view Planner::findAffected() {
  constexpr size_t MaxAffected = 16, MaxNames = 32;
  std::vector<char> Seen(NewUnits.size(), 0);
  Affected = {Index};
  Seen[Index] = 1;
  if (MethodLevel && NewUnits[Index].Members[Method].Name != "forward")
    return {};
  size_t NamesSearched = 0;
  for (size_t K = 0; K < Affected.size(); ++K) {
    const TopUnit &A = NewUnits[Affected[K]];
    std::vector<std::string_view> Names;
    if (A.IsDef)
      Names.push_back(A.Name);
    else if (!ts_node_is_null(A.Node))
      Names = bindings(A.Node, NewText);
    for (std::string_view Name : Names) {
      if (++NamesSearched > MaxNames)
        return "the definition is used by too much of the file";
      for (size_t At = findBytes(NewText, Name); At != std::string_view::npos; At = findBytes(NewText, Name, At + 1)) {
        if (!wordAt(NewText, At, Name.size()) || (At >= A.Begin && At < A.End))
          continue;
        auto U = std::upper_bound(NewUnits.begin(), NewUnits.end(), At,
                                  [](size_t Off, const TopUnit &X) { return Off < X.Begin; });
        if (U == NewUnits.begin() || At >= (--U)->End)
          continue; // between statements
        size_t J = static_cast<size_t>(U - NewUnits.begin());
        if (Seen[J])
          continue;
        if (Affected.size() == MaxAffected)
          return "the definition is used by too much of the file";
        Seen[J] = 1;
        Affected.push_back(J);
      }
    }
  }
  return {};
}

/// The ranges whose findings come from the masked lint, in the new text and the old.
void Planner::relintedRanges() {
  for (size_t J : Affected) {
    if (J == Index && MethodLevel) {
      const TopUnit &O = OldUnits[J], &N = NewUnits[J];
      for (size_t K : Component) {
        OldRelinted.push_back({O.Members[K].Begin, O.Members[K].End});
        NewRelinted.push_back({N.Members[K].Begin, N.Members[K].End});
      }
    } else {
      OldRelinted.push_back({OldUnits[J].Begin, OldUnits[J].End});
      NewRelinted.push_back({NewUnits[J].Begin, NewUnits[J].End});
    }
  }
  auto ByBegin = [](const TextRange &A, const TextRange &B) { return A.Begin < B.Begin; };
  std::sort(OldRelinted.begin(), OldRelinted.end(), ByBegin);
  std::sort(NewRelinted.begin(), NewRelinted.end(), ByBegin);
}

/// Findings elsewhere must not lean on the re-linted code, and must not quote line numbers
/// that an added or removed line would change.
std::string_view Planner::checkOldFindings(const std::vector<Diagnostic> &OldDiags) const {
  bool LinesMoved = std::count(OldBody.begin(), OldBody.end(), '\n') != std::count(NewBody.begin(), NewBody.end(), '\n');
  auto InRelinted = [&](uint32_t Off) {
    return std::any_of(OldRelinted.begin(), OldRelinted.end(),
                       [&](const TextRange &R) { return Off >= R.Begin && Off < R.End; });
  };
  for (const Diagnostic &D : OldDiags) {
    if (InRelinted(D.Range.Begin))
      continue;
    for (const TextRange &R : OldRelinted)
      if (touches(D, R.Begin, R.End))
        return "a finding elsewhere refers into the definition";
    if (LinesMoved && mentionsLine(D))
      return "a finding elsewhere quotes a line number";
  }
  return {};
}

/// The members of the edited class the masked text keeps: every statement that is no method,
/// `__init__`, the re-linted methods, the methods holding file-wide code, and the overrides of
/// the module moves (a subclass asks whether its bases define them).
void Planner::keepMembers() {
  const TopUnit &Class = NewUnits[Index];
  const std::vector<ClassMember> &Ms = Class.Members;
  KeptMember.assign(Ms.size(), 0);
  for (size_t I = 0; I < Ms.size(); ++I)
    KeptMember[I] = !Ms[I].isMethod() || Ms[I].Name == "__init__" || torch::isModuleMoveOverride(Ms[I].Name);
  for (size_t K : Component)
    KeptMember[K] = 1;
  auto From = std::lower_bound(Words.FileWide.begin(), Words.FileWide.end(), Class.Begin);
  for (auto It = From; It != Words.FileWide.end() && *It < Class.End; ++It) {
    auto U = std::upper_bound(Ms.begin(), Ms.end(), *It, [](uint32_t O, const ClassMember &X) { return O < X.Begin; });
    if (U != Ms.begin() && *It < std::prev(U)->End)
      KeptMember[static_cast<size_t>(std::prev(U) - Ms.begin())] = 1;
  }
}

/// The units the definition needs: every statement that is not a definition, every
/// definition holding file-wide code, and the definitions it names (through the definitions
/// and module-level assignments it reaches; of the edited class, through what it keeps).
void Planner::keepNeeded() {
  if (MethodLevel)
    keepMembers();
  std::unordered_map<std::string_view, std::vector<size_t>> DefsByName;
  for (size_t I = 0; I < NewUnits.size(); ++I)
    if (NewUnits[I].IsDef)
      DefsByName[NewUnits[I].Name].push_back(I);
  Kept.assign(NewUnits.size(), 0);
  std::vector<size_t> Work;
  auto keep = [&](size_t I, bool Follow) {
    if (Kept[I])
      return;
    Kept[I] = 1;
    if (Follow)
      Work.push_back(I);
  };
  for (size_t J : Affected)
    keep(J, true);
  for (size_t I = 0; I < NewUnits.size(); ++I)
    if (!NewUnits[I].IsDef)
      keep(I, NewUnits[I].IsAssignment);
  for (uint32_t At : Words.FileWide) {
    auto U = std::upper_bound(NewUnits.begin(), NewUnits.end(), At,
                              [](uint32_t Off, const TopUnit &X) { return Off < X.Begin; });
    if (U != NewUnits.begin() && At < (--U)->End)
      keep(static_cast<size_t>(U - NewUnits.begin()), false);
  }
  auto follow = [&](std::string_view Code) {
    forEachIdentifier(Code, [&](std::string_view W) {
      auto D = DefsByName.find(W);
      if (D != DefsByName.end())
        for (size_t J : D->second)
          keep(J, true);
    });
  };
  while (!Work.empty()) {
    size_t I = Work.back();
    Work.pop_back();
    const TopUnit &U = NewUnits[I];
    if (I != Index || !MethodLevel) {
      follow(NewText.substr(U.Begin, U.End - U.Begin));
      continue;
    }
    uint32_t From = U.Begin;
    for (size_t K = 0; K < U.Members.size(); ++K)
      if (!KeptMember[K]) {
        follow(NewText.substr(From, U.Members[K].Begin - From));
        From = U.Members[K].End;
      }
    follow(NewText.substr(From, U.End - From));
  }
}

/// The new text with the units and methods not kept blanked line by line (line breaks kept, so
/// every offset, line and column stays), and the ranges the parser reads.
UnitPlan Planner::mask() const {
  UnitPlan P;
  P.Masked.assign(NewText);
  // The holes, in order: a blanked method's starts at its line's start, so that the parser
  // sees the indentation of the statement after it only.
  std::vector<TextRange> Holes;
  for (size_t I = 0; I < NewUnits.size(); ++I) {
    if (!Kept[I]) {
      Holes.push_back({NewUnits[I].Begin, NewUnits[I].End});
      continue;
    }
    if (I != Index || !MethodLevel)
      continue;
    for (size_t K = 0; K < NewUnits[I].Members.size(); ++K) {
      if (KeptMember[K])
        continue;
      const ClassMember &M = NewUnits[I].Members[K];
      size_t NL = M.Begin == 0 ? std::string_view::npos : NewText.rfind('\n', M.Begin - 1);
      uint32_t LineStart = NL == std::string_view::npos ? 0 : static_cast<uint32_t>(NL + 1);
      Holes.push_back({LineStart, M.End});
      ++P.BlankedMethods;
    }
  }
  for (const TextRange &H : Holes)
    for (uint32_t B = H.Begin, End = H.End; B < End;) {
      const void *NL = memchr(P.Masked.data() + B, '\n', End - B);
      uint32_t Stop = NL ? static_cast<uint32_t>(static_cast<const char *>(NL) - P.Masked.data()) : End;
      uint32_t Blank = Stop > B && P.Masked[Stop - 1] == '\r' ? Stop - 1 : Stop;
      std::memset(P.Masked.data() + B, ' ', Blank - B);
      B = Stop + 1;
    }
  // The parser reads the text between the holes: each hole starts a statement at its line's
  // indentation and ends where it did, so the pieces join into a valid module.
  TSPoint At{0, 0};
  uint32_t Pos = 0;
  auto advance = [&](uint32_t To) {
    while (Pos < To) {
      const void *NL = memchr(NewText.data() + Pos, '\n', To - Pos);
      if (!NL) {
        At.column += To - Pos;
        Pos = To;
        break;
      }
      Pos = static_cast<uint32_t>(static_cast<const char *>(NL) - NewText.data()) + 1;
      At = {At.row + 1, 0};
    }
  };
  uint32_t Start = 0;
  TSPoint StartAt{0, 0};
  for (size_t I = 0; I <= Holes.size(); ++I) {
    bool End = I == Holes.size();
    uint32_t HoleBegin = End ? static_cast<uint32_t>(NewText.size()) : Holes[I].Begin;
    advance(HoleBegin);
    if (HoleBegin > Start)
      P.Ranges.push_back(TSRange{StartAt, At, Start, HoleBegin});
    if (End)
      break;
    advance(Holes[I].End);
    Start = Holes[I].End;
    StartAt = At;
  }
  P.OldEnd = OldEnd;
  P.KeptUnits = static_cast<size_t>(std::count(Kept.begin(), Kept.end(), 1));
  P.Methods = MethodLevel ? Component.size() : 0;
  P.Relinted = NewRelinted;
  P.OldRelinted = OldRelinted;
  return P;
}

} // namespace

PlanResult planUnitRelint(const std::vector<TopUnit> &OldUnits, std::string_view OldText, bool OldHadError,
                          TSNode NewRoot, std::string_view NewText, const EditSpan &E,
                          const std::vector<Diagnostic> &OldDiags, const Linter::FileWideWords &Lists,
                          const WordIndex *OldWords, bool Methods) {
  PlanResult R;
  auto Refuse = [&](std::string_view Why) {
    R.Refusal = Why;
    return std::move(R);
  };
  if (OldHadError || ts_node_has_error(NewRoot))
    return Refuse("a syntax error");
  Planner P(OldUnits, OldText, NewText, E, Lists);
  if (std::string_view Why = P.matchUnits(NewRoot); !Why.empty())
    return Refuse(Why);
  if (std::string_view Why = Methods ? P.planMethod() : "not asked to"; !Why.empty()) {
    if (OldUnits[P.Index].IsClass)
      R.MethodRefusal = Why;
    // The whole definition, then.
    if (containsAny(P.OldBody, Lists.Words) || containsAny(P.NewBody, Lists.Words))
      return Refuse("the definition has code with file-wide effects");
  }
  if (std::string_view Why = P.indexNewText(OldWords); !Why.empty())
    return Refuse(Why);
  if (std::string_view Why = P.findAffected(); !Why.empty())
    return Refuse(Why);
  P.relintedRanges();
  if (std::string_view Why = P.checkOldFindings(OldDiags); !Why.empty())
    return Refuse(Why);
  P.keepNeeded();
  R.Plan = P.mask();
  R.Plan->Words = std::move(P.Words);
  return R;
}

TreePtr parseUnitPlan(const UnitPlan &P) {
  // A parser of its own (it keeps included ranges), with a fresh scanner each time as in
  // parsePython (see there why).
  struct Holder {
    TSParser *Parser = ts_parser_new();
    ~Holder() { ts_parser_delete(Parser); }
  };
  thread_local Holder H;
  ts_parser_set_language(H.Parser, pythonLanguage());
  if (P.Ranges.empty() ||
      !ts_parser_set_included_ranges(H.Parser, P.Ranges.data(), static_cast<uint32_t>(P.Ranges.size())))
    return nullptr;
  TSTree *T = ts_parser_parse_string(H.Parser, nullptr, P.Masked.data(), static_cast<uint32_t>(P.Masked.size()));
  return TreePtr(T);
}

std::vector<Diagnostic> mergeUnitDiagnostics(const std::vector<Diagnostic> &OldDiags, std::vector<Diagnostic> Fresh,
                                             const UnitPlan &P, const EditSpan &E) {
  std::vector<Diagnostic> Out;
  int64_t Delta = E.delta();
  auto In = [](const std::vector<TextRange> &Rs, uint32_t Off) {
    return std::any_of(Rs.begin(), Rs.end(), [&](const TextRange &R) { return Off >= R.Begin && Off < R.End; });
  };
  for (const Diagnostic &D : OldDiags) {
    if (In(P.OldRelinted, D.Range.Begin))
      continue;
    Diagnostic C = D;
    // Nothing of a kept finding lies in the unit (the plan checked), so everything from the
    // unit's old end on moved by the edit's size.
    shift(C.Range, P.OldEnd, Delta);
    for (Note &N : C.Notes)
      shift(N.Range, P.OldEnd, Delta);
    if (C.Fix)
      for (Edit &Ed : C.Fix->Edits)
        shift(Ed.Range, P.OldEnd, Delta);
    Out.push_back(std::move(C));
  }
  for (Diagnostic &D : Fresh)
    if (In(P.Relinted, D.Range.Begin))
      Out.push_back(std::move(D));
  sortDiagnostics(Out);
  return Out;
}

} // namespace torchlint::lsp
