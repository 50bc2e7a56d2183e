// The fix loop, edit application, and the unified diff `--diff` prints.
#include "driver/FixLoop.h"
#include "source/Strings.h"

#include <algorithm>

namespace torchlint {

bool FixOptions::codeFixable(std::string_view Code) const {
  return !Fixable || std::binary_search(Fixable->begin(), Fixable->end(), Code);
}

bool FixOptions::applies(const Diagnostic &D) const {
  return D.Fix && D.Fix->Applic != Applicability::DisplayOnly && D.Fix->Applic >= Level && !D.Fix->Edits.empty() &&
         codeFixable(D.Code);
}

size_t FixResult::appliedCount() const {
  size_t N = 0;
  for (auto &[Code, Count] : Applied)
    N += Count;
  return N;
}

void narrowFixes(std::vector<Diagnostic> &Diags, const FixOptions &O) {
  if (!O.Fixable)
    return;
  for (Diagnostic &D : Diags)
    if (D.Fix && !O.codeFixable(D.Code))
      D.Fix->Applic = Applicability::DisplayOnly;
}

namespace {

bool sameEdit(const Edit &A, const Edit &B) {
  return A.Range.Begin == B.Range.Begin && A.Range.End == B.Range.End && A.Replacement == B.Replacement;
}

// Edits of different fixes that touch count as overlapping: two insertions at one offset, or
// an insertion at the end of a replacement, have no order that both fixes can rely on.
bool conflicts(const Edit &A, const Edit &B) {
  return A.Range.Begin <= B.Range.End && B.Range.Begin <= A.Range.End;
}

/// \p S with each LF the fix wrote (not one of a CRLF) spelled \p Newline.
std::string withNewline(const std::string &S, std::string_view Newline) {
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] == '\n' && (I == 0 || S[I - 1] != '\r'))
      Out += Newline;
    else
      Out += S[I];
  }
  return Out;
}

// Iterative: a deeply nested file must not overflow the stack. Only subtrees that hold an
// error are entered.
size_t countErrorNodes(TSNode Root) {
  size_t Count = 0;
  forEachNode(Root, [&](TSNode N) {
    bool Error = ts_node_is_missing(N) || std::string_view(ts_node_type(N)) == "ERROR";
    Count += Error;
    return !Error && ts_node_has_error(N);
  });
  return Count;
}

size_t countErrors(const TSTree *T) { return T ? countErrorNodes(ts_tree_root_node(T)) : 0; }

/// Line of \p Offset, 1-based, for messages.
uint32_t lineNumber(std::string_view Text, uint32_t Offset) {
  Offset = std::min<uint32_t>(Offset, static_cast<uint32_t>(Text.size()));
  return 1 + static_cast<uint32_t>(std::count(Text.begin(), Text.begin() + Offset, '\n'));
}

} // namespace

std::optional<std::string> applyEdits(std::string_view Text, std::vector<Edit> Edits, std::string_view Newline) {
  // Stable: insertions at one offset keep the order the fix gave them.
  std::stable_sort(Edits.begin(), Edits.end(),
                   [](const Edit &A, const Edit &B) { return A.Range.Begin < B.Range.Begin; });
  std::string Out;
  Out.reserve(Text.size());
  uint32_t At = 0;
  for (const Edit &E : Edits) {
    if (E.Range.End < E.Range.Begin || E.Range.End > Text.size() || E.Range.Begin < At)
      return std::nullopt;
    Out.append(Text.substr(At, E.Range.Begin - At));
    Out += Newline == "\n" ? E.Replacement : withNewline(E.Replacement, Newline);
    At = E.Range.End;
  }
  Out.append(Text.substr(At));
  return Out;
}

size_t countSyntaxErrors(std::string_view Text) {
  TreePtr T = parsePython(Text);
  return countErrors(T.get());
}

FixResult fixText(const std::string &Path, std::string Text, const Linter &L, const LintSettings &S,
                  const FixOptions &O) {
  auto Source = std::make_shared<SourceFile>(Path, std::move(Text));
  const std::string Newline(Source->newline());
  TreePtr Tree = parsePython(Source->text());
  size_t Errors = countErrors(Tree.get());
  std::vector<Diagnostic> Diags = Tree ? L.lint(*Source, Tree.get(), S, O.Project) : std::vector<Diagnostic>{};

  FixResult R;
  const std::shared_ptr<const SourceFile> Original = Source;
  const std::vector<Diagnostic> OriginalDiags = Diags;
  const std::vector<uint32_t> OriginalFences = O.Fences ? *O.Fences : std::vector<uint32_t>();
  auto LeaveAsItWas = [&](std::string Why) {
    if (O.Fences)
      *O.Fences = OriginalFences;
    R.Errors.push_back(std::move(Why));
    R.Applied.clear();
    R.Source = Original;
    R.Text = std::string(Original->text());
    R.Remaining = OriginalDiags;
    narrowFixes(R.Remaining, O);
    return R;
  };

  unsigned Pass = 0;
  for (; Pass < O.MaxIterations; ++Pass) {
    std::string_view Current = Source->text();
    // One pass: the fixes in position order, each taken only when it does not touch an
    // edit already taken; the others wait for the next pass, against the new text.
    std::vector<Edit> Taken;
    std::vector<const Diagnostic *> Chosen;
    std::map<std::string, size_t> Counted;
    for (const Diagnostic &D : Diags) {
      if (!O.applies(D))
        continue;
      const auto &Edits = D.Fix->Edits;
      if (!applyEdits(Current, Edits))
        return LeaveAsItWas(Path + ": internal error: the fix of `" + D.Code + "` at line " +
                            std::to_string(lineNumber(Current, D.Range.Begin)) +
                            " has overlapping or out-of-range edits; no fixes were written to this file");
      // The same fix offered by several findings (one edit serving them all) counts for each.
      bool AllTaken = std::all_of(Edits.begin(), Edits.end(), [&](const Edit &E) {
        return std::any_of(Taken.begin(), Taken.end(), [&](const Edit &T) { return sameEdit(E, T); });
      });
      if (AllTaken) {
        ++Counted[D.Code];
        continue;
      }
      bool Clash = std::any_of(Edits.begin(), Edits.end(), [&](const Edit &E) {
        return std::any_of(Taken.begin(), Taken.end(), [&](const Edit &T) { return conflicts(E, T); });
      });
      if (Clash)
        continue;
      if (O.Fences && std::any_of(Edits.begin(), Edits.end(), [&](const Edit &E) {
            return std::any_of(O.Fences->begin(), O.Fences->end(),
                               [&](uint32_t F) { return E.Range.Begin < F && F < E.Range.End; });
          }))
        continue; // it would join cells
      Taken.insert(Taken.end(), Edits.begin(), Edits.end());
      Chosen.push_back(&D);
      ++Counted[D.Code];
    }
    if (Chosen.empty())
      break;
    std::optional<std::string> Next = applyEdits(Current, Taken, Newline);
    if (!Next || *Next == Current)
      break; // fixes that change nothing: settled
    TreePtr NextTree = parsePython(*Next);
    size_t NextErrors = countErrors(NextTree.get());
    if (!NextTree || NextErrors > Errors) {
      // Name the rule whose fix broke the syntax: each fix alone, against this pass's text.
      std::vector<const Diagnostic *> Culprits;
      for (const Diagnostic *D : Chosen) {
        auto Alone = applyEdits(Current, D->Fix->Edits, Newline);
        if (!Alone || countSyntaxErrors(*Alone) > Errors)
          Culprits.push_back(D);
      }
      if (Culprits.empty())
        Culprits = Chosen; // only together: blame them all
      std::string Why;
      for (const Diagnostic *D : Culprits) {
        if (!Why.empty())
          Why += "; ";
        Why += "`" + D->Code + "` at line " + std::to_string(lineNumber(Current, D->Range.Begin));
      }
      return LeaveAsItWas(Path + ": internal error: the fix of " + Why +
                          " would introduce a syntax error; no fixes were written to this file");
    }
    for (auto &[Code, N] : Counted)
      R.Applied[Code] += N;
    if (O.Fences)
      for (uint32_t &F : *O.Fences) {
        int64_t Shift = 0;
        for (const Edit &E : Taken)
          if (E.Range.Begin < F)
            Shift += static_cast<int64_t>(Newline == "\n" ? E.Replacement.size()
                                                            : withNewline(E.Replacement, Newline).size()) -
                     static_cast<int64_t>(E.Range.End - E.Range.Begin);
        F = static_cast<uint32_t>(static_cast<int64_t>(F) + Shift);
      }
    Source = std::make_shared<SourceFile>(Path, std::move(*Next));
    Tree = std::move(NextTree);
    Errors = NextErrors;
    Diags = L.lint(*Source, Tree.get(), S, O.Project);
  }
  if (Pass == O.MaxIterations)
    R.Converged = std::none_of(Diags.begin(), Diags.end(), [&](const Diagnostic &D) { return O.applies(D); });
  R.Text = std::string(Source->text());
  R.Source = std::move(Source);
  R.Remaining = std::move(Diags);
  narrowFixes(R.Remaining, O);
  return R;
}

namespace {

enum class Op : uint8_t { Equal, Delete, Insert };
struct Step {
  Op Kind;
  uint32_t A, B; // line indices in Before and After where the step stands
};

/// Myers' O((N+M)D) shortest edit script; keeps one diagonal slice per D, O(D^2) memory.
std::vector<Step> editScript(const std::vector<std::string_view> &A, const std::vector<std::string_view> &B) {
  const int N = static_cast<int>(A.size()), M = static_cast<int>(B.size());
  std::vector<std::vector<int>> Trace; // Trace[D][K + D]: furthest x on diagonal K after D edits
  auto Get = [&](int D, int K) { return Trace[D][K + D]; };
  int Final = -1;
  for (int D = 0; D <= N + M && Final < 0; ++D) {
    std::vector<int> V(2 * D + 1);
    for (int K = -D; K <= D; K += 2) {
      int X;
      if (D == 0)
        X = 0;
      else if (K == -D || (K != D && Get(D - 1, K - 1) < Get(D - 1, K + 1)))
        X = Get(D - 1, K + 1);
      else
        X = Get(D - 1, K - 1) + 1;
      int Y = X - K;
      while (X < N && Y < M && A[X] == B[Y])
        ++X, ++Y;
      V[K + D] = X;
      if (X >= N && Y >= M)
        Final = D;
    }
    Trace.push_back(std::move(V));
  }
  std::vector<Step> Rev;
  int X = N, Y = M;
  for (int D = Final; D > 0; --D) {
    int K = X - Y;
    bool Down = K == -D || (K != D && Get(D - 1, K - 1) < Get(D - 1, K + 1));
    int PrevK = Down ? K + 1 : K - 1;
    int PrevX = Get(D - 1, PrevK), PrevY = PrevX - PrevK;
    int SnakeX = Down ? PrevX : PrevX + 1;
    while (X > SnakeX) {
      --X, --Y;
      Rev.push_back({Op::Equal, static_cast<uint32_t>(X), static_cast<uint32_t>(Y)});
    }
    if (Down)
      Rev.push_back({Op::Insert, static_cast<uint32_t>(PrevX), static_cast<uint32_t>(PrevY)});
    else
      Rev.push_back({Op::Delete, static_cast<uint32_t>(PrevX), static_cast<uint32_t>(PrevY)});
    X = PrevX, Y = PrevY;
  }
  while (X > 0 && Y > 0) {
    --X, --Y;
    Rev.push_back({Op::Equal, static_cast<uint32_t>(X), static_cast<uint32_t>(Y)});
  }
  return {Rev.rbegin(), Rev.rend()};
}

void writeLine(std::string &Out, char Prefix, std::string_view Line) {
  Out += Prefix;
  Out.append(Line);
  if (Line.empty() || Line.back() != '\n')
    Out += "\n\\ No newline at end of file\n";
}

} // namespace

std::string unifiedDiff(std::string_view Path, std::string_view Before, std::string_view After) {
  if (Before == After)
    return {};
  auto A = linesKeepingEnds(Before), B = linesKeepingEnds(After);
  std::vector<Step> Steps = editScript(A, B);
  constexpr size_t Context = 3;
  std::string Out = "--- " + std::string(Path) + "\n+++ " + std::string(Path) + "\n";
  size_t I = 0, N = Steps.size();
  while (I < N) {
    if (Steps[I].Kind == Op::Equal) {
      ++I;
      continue;
    }
    size_t Start = I >= Context ? I - Context : 0, Last = I, J = I;
    // Changes separated by at most twice the context share one hunk.
    while (J < N) {
      if (Steps[J].Kind != Op::Equal) {
        Last = J++;
        continue;
      }
      size_t Run = J;
      while (Run < N && Steps[Run].Kind == Op::Equal)
        ++Run;
      if (Run == N || Run - J > 2 * Context)
        break;
      J = Run;
    }
    size_t End = std::min(N, Last + 1 + Context);
    size_t LenA = 0, LenB = 0;
    for (size_t K = Start; K < End; ++K) {
      LenA += Steps[K].Kind != Op::Insert;
      LenB += Steps[K].Kind != Op::Delete;
    }
    auto StartOf = [](uint32_t Index, size_t Len) { return std::to_string(Len ? Index + 1 : Index); };
    Out += "@@ -" + StartOf(Steps[Start].A, LenA) + "," + std::to_string(LenA) + " +" +
           StartOf(Steps[Start].B, LenB) + "," + std::to_string(LenB) + " @@\n";
    for (size_t K = Start; K < End; ++K) {
      const Step &S = Steps[K];
      if (S.Kind == Op::Equal)
        writeLine(Out, ' ', A[S.A]);
      else if (S.Kind == Op::Delete)
        writeLine(Out, '-', A[S.A]);
      else
        writeLine(Out, '+', B[S.B]);
    }
    I = End;
  }
  return Out;
}

} // namespace torchlint
