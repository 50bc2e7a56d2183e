// Re-linting one top-level definition after an edit (see Incremental.h for the argument).
#include "lsp/Incremental.h"

#include "lint/Linter.h"
#include "source/Strings.h"

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
      } else if (K == "expression_statement" && ts_node_named_child_count(N) > 0) {
        std::string_view E = kind(ts_node_named_child(N, 0));
        U.IsAssignment = E == "assignment" || E == "augmented_assignment";
      }
      Out.push_back(U);
    } while (ts_tree_cursor_goto_next_sibling(&C));
  }
  ts_tree_cursor_delete(&C);
  return Out;
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

/// A unit re-lint being planned: each phase below refuses (an empty Refusal is a yes) or
/// adds what it found.
struct Planner {
  const std::vector<TopUnit> &OldUnits;
  std::string_view OldText, NewText;
  const EditSpan &E;
  const Linter::FileWideWords &Lists;
  std::vector<TopUnit> NewUnits;
  size_t Index = 0; // the edited unit
  std::string_view OldBody, NewBody;
  WordIndex Words;
  std::vector<size_t> Affected; // units whose findings may change (the edited one first)
  std::vector<char> Kept;       // units the masked text keeps

  std::string_view matchUnits(TSNode NewRoot);
  std::string_view indexNewText(const WordIndex *OldWords);
  std::string_view findAffected();
  std::string_view checkOldFindings(const std::vector<Diagnostic> &OldDiags) const;
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
  OldBody = OldText.substr(Old.Begin, Old.End - Old.Begin);
  NewBody = NewText.substr(New.Begin, New.End - New.Begin);
  if (containsAny(OldBody, Lists.Words) || containsAny(NewBody, Lists.Words))
    return "the definition has code with file-wide effects";
  return {};
}

/// The new text's index: the old one with everything after the unit shifted (the unit has none
/// of the words, before or after the edit), or a search of the new text.
std::string_view Planner::indexNewText(const WordIndex *OldWords) {
  if (OldWords && OldWords->Lists.Words == Lists.Words && OldWords->Lists.WholeFile == Lists.WholeFile) {
    uint32_t OldBegin = OldUnits[Index].Begin;
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
/// costs about as much.
std::string_view Planner::findAffected() {
  constexpr size_t MaxAffected = 16, MaxNames = 32;
  std::vector<char> Seen(NewUnits.size(), 0);
  Affected = {Index};
  Seen[Index] = 1;
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
        bool Word = (At == 0 || !identChar(static_cast<unsigned char>(NewText[At - 1]))) &&
                    (At + Name.size() == NewText.size() ||
                     !identChar(static_cast<unsigned char>(NewText[At + Name.size()])));
        if (!Word || (At >= A.Begin && At < A.End))
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

/// Findings elsewhere must not lean on the affected units, and must not quote line numbers
/// that an added or removed line would change.
std::string_view Planner::checkOldFindings(const std::vector<Diagnostic> &OldDiags) const {
  bool LinesMoved = std::count(OldBody.begin(), OldBody.end(), '\n') != std::count(NewBody.begin(), NewBody.end(), '\n');
  auto InAffected = [&](uint32_t Off) {
    return std::any_of(Affected.begin(), Affected.end(),
                       [&](size_t J) { return Off >= OldUnits[J].Begin && Off < OldUnits[J].End; });
  };
  for (const Diagnostic &D : OldDiags) {
    if (InAffected(D.Range.Begin))
      continue;
    for (size_t J : Affected)
      if (touches(D, OldUnits[J].Begin, OldUnits[J].End))
        return "a finding elsewhere refers into the definition";
    if (LinesMoved && mentionsLine(D))
      return "a finding elsewhere quotes a line number";
  }
  return {};
}

/// The units the definition needs: every statement that is not a definition, every
/// definition holding file-wide code, and the definitions it names (through the definitions
/// and module-level assignments it reaches).
void Planner::keepNeeded() {
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
  while (!Work.empty()) {
    size_t I = Work.back();
    Work.pop_back();
    const TopUnit &U = NewUnits[I];
    forEachIdentifier(NewText.substr(U.Begin, U.End - U.Begin), [&](std::string_view W) {
      auto D = DefsByName.find(W);
      if (D != DefsByName.end())
        for (size_t J : D->second)
          keep(J, true);
    });
  }
}

/// The new text with the units not kept blanked line by line (line breaks kept, so every
/// offset, line and column stays), and the ranges the parser reads.
UnitPlan Planner::mask() const {
  UnitPlan P;
  P.Masked.assign(NewText);
  for (size_t I = 0; I < NewUnits.size(); ++I)
    if (!Kept[I])
      for (uint32_t B = NewUnits[I].Begin, End = NewUnits[I].End; B < End;) {
        const void *NL = memchr(P.Masked.data() + B, '\n', End - B);
        uint32_t Stop = NL ? static_cast<uint32_t>(static_cast<const char *>(NL) - P.Masked.data()) : End;
        uint32_t Blank = Stop > B && P.Masked[Stop - 1] == '\r' ? Stop - 1 : Stop;
        std::memset(P.Masked.data() + B, ' ', Blank - B);
        B = Stop + 1;
      }
  // The parser reads the text between the blanked units: each blank starts a statement at
  // column 0 and ends where it did, so the pieces join into a valid module.
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
  for (size_t I = 0; I <= NewUnits.size(); ++I) {
    bool End = I == NewUnits.size();
    if (!End && Kept[I])
      continue;
    uint32_t HoleBegin = End ? static_cast<uint32_t>(NewText.size()) : NewUnits[I].Begin;
    advance(HoleBegin);
    if (HoleBegin > Start)
      P.Ranges.push_back(TSRange{StartAt, At, Start, HoleBegin});
    if (End)
      break;
    advance(NewUnits[I].End);
    Start = NewUnits[I].End;
    StartAt = At;
  }
  P.OldEnd = OldUnits[Index].End;
  P.KeptUnits = static_cast<size_t>(std::count(Kept.begin(), Kept.end(), 1));
  std::vector<size_t> Sorted = Affected;
  std::sort(Sorted.begin(), Sorted.end());
  for (size_t J : Sorted) {
    P.Relinted.push_back({NewUnits[J].Begin, NewUnits[J].End});
    P.OldRelinted.push_back({OldUnits[J].Begin, OldUnits[J].End});
  }
  return P;
}

} // namespace

PlanResult planUnitRelint(const std::vector<TopUnit> &OldUnits, std::string_view OldText, bool OldHadError,
                          TSNode NewRoot, std::string_view NewText, const EditSpan &E,
                          const std::vector<Diagnostic> &OldDiags, const Linter::FileWideWords &Lists,
                          const WordIndex *OldWords) {
  auto Refuse = [](std::string_view Why) { return PlanResult{std::nullopt, Why}; };
  if (OldHadError || ts_node_has_error(NewRoot))
    return Refuse("a syntax error");
  Planner P{OldUnits, OldText, NewText, E, Lists, {}, 0, {}, {}, {}, {}, {}};
  if (std::string_view Why = P.matchUnits(NewRoot); !Why.empty())
    return Refuse(Why);
  if (std::string_view Why = P.indexNewText(OldWords); !Why.empty())
    return Refuse(Why);
  if (std::string_view Why = P.findAffected(); !Why.empty())
    return Refuse(Why);
  if (std::string_view Why = P.checkOldFindings(OldDiags); !Why.empty())
    return Refuse(Why);
  P.keepNeeded();
  UnitPlan Plan = P.mask();
  Plan.Words = std::move(P.Words);
  return PlanResult{std::move(Plan), {}};
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
