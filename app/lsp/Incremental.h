// Re-linting one top-level definition, or one method of a class, after an edit instead of
// the whole file.
//
// An edit that stays inside one top-level `def` or `class` (the unit) can only change what
// the engine says about that unit and the units that name what it binds (its callers,
// subclasses, module code using it, and so on transitively), provided neither its old nor
// its new text holds anything with file-wide effect: the words the semantic model, the
// suppressions and the analyses the enabled rules read declare (Linter::fileWideWords). Those units are then linted in a copy of the file where every other
// definition they do not (transitively) mention is blanked to spaces (newlines kept, so
// every byte offset, line and column is the same as in the real file); the findings outside
// them are the previous ones, shifted past the edit. Anything the plan cannot vouch for
// falls back to the whole file, and the server checks the result against a whole-file lint
// when it is idle.
//
// Inside a class the same argument is made one level down. An edit inside the body of a method
// other than `__init__` can only change what the engine says about that method and the methods
// tied to it by name (those it calls through `self`, those calling it, transitively: the roles
// `forward` hands down and the arguments callers pass travel along these). What the rest of the
// class gives a method is kept in the masked text: the class header (bases decide module-ness),
// the class-level statements, `__init__` (what it assigns to `self` is what every method starts
// from), and every method holding a file-wide word. The other methods are blanked. An edit
// that could change a fact read at the class level (an attribute `__init__` sets, state
// registered by name, a method named by the class body or `__init__`) re-lints the class.
#pragma once

#include "diag/Diagnostic.h"
#include "lint/Linter.h"
#include "parse/Tree.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torchlint::lsp {

/// A statement of a class body (comments included).
struct ClassMember {
  uint32_t Begin = 0, End = 0; // byte range of the statement
  uint32_t BodyBegin = 0;      // a method's body (its block); 0 for every other statement
  std::string_view Name;       // a method's name (a view into the file's text)
  TSNode Node{};               // the method's function_definition, in the tree it was read from
  bool isMethod() const { return BodyBegin != 0; }
};

/// A top-level statement of a module (comments included).
struct TopUnit {
  uint32_t Begin = 0, End = 0; // byte range of the statement
  bool IsDef = false;          // a function or class definition, decorated or not
  bool IsAssignment = false;   // `name = ...` and the like at module level
  bool IsClass = false;        // a class definition, decorated or not
  std::string_view Name;       // the definition's name (a view into the file's text)
  TSNode Node{};               // the statement, in the tree the units were read from
  std::vector<ClassMember> Members; // a class's body statements, in order
};

/// The module's top-level statements in order, read with a cursor (no per-child look-ups).
std::vector<TopUnit> topUnits(TSNode Root, std::string_view Text);

/// One edit: bytes [Begin, OldEnd) of the old text became [Begin, NewEnd) of the new one.
struct EditSpan {
  uint32_t Begin = 0, OldEnd = 0, NewEnd = 0;
  int64_t delta() const { return int64_t(NewEnd) - int64_t(OldEnd); }
};

/// One span covering \p First and then \p Then (whose offsets are in the text after \p First):
/// what changed between the text before both and the text after both, at most.
EditSpan combine(const EditSpan &First, const EditSpan &Then);

/// Where the words with file-wide effects occur in a text. A unit re-lint carries it over to
/// the new text (only the unit changed, and it has none), so an edit does not search the
/// whole file again.
struct WordIndex {
  Linter::FileWideWords Lists;    // the words searched for
  std::vector<uint32_t> FileWide; // offsets of Lists.Words, sorted
  bool FileDirective = false;     // one of Lists.WholeFile anywhere (`disable-file`, ...)
};
WordIndex indexWords(std::string_view Text, const Linter::FileWideWords &Lists);

/// What to lint instead of the whole file.
struct UnitPlan {
  std::string Masked;          // the new text with the definitions the units do not need blanked
  uint32_t OldEnd = 0;         // where the edited unit (or method) ended in the old text: kept findings from here on move
  /// Every unit whose findings are taken from the masked lint: the edited one and those
  /// that depend on it (callers of a helper, subclasses, code using what they bind). When
  /// the edit is inside a method, the methods of its class re-linted stand for the class.
  std::vector<TextRange> Relinted, OldRelinted; // in the new text, and the same in the old
  std::vector<TSRange> Ranges; // the parts of Masked that are not blanked, for the parser
  WordIndex Words;             // of the new text
  size_t KeptUnits = 0;        // units left in Masked (for tests and statistics)
  size_t Methods = 0;          // methods re-linted alone (0: the edited definition as a whole)
  size_t BlankedMethods = 0;   // methods of the edited class blanked in Masked
};

/// Parses \p P's masked text reading only its ranges: the blanked definitions cost the
/// parser nothing (lexing their spaces would cost more than the unit's analysis).
TreePtr parseUnitPlan(const UnitPlan &P);

/// Why a plan was refused, for tests and the log; empty when a plan was made.
struct PlanResult {
  std::optional<UnitPlan> Plan;
  std::string_view Refusal;
  /// For an edit inside a class re-linted as a whole (or refused): why its method alone was not.
  std::string_view MethodRefusal;
};

/// Plans the re-lint of the one unit \p E falls in (of the one method, inside a class). \p OldUnits and \p OldText are the
/// document before the edit (\p OldHadError: its tree had a syntax error), \p NewRoot and \p NewText after it (reparsed); \p OldDiags are
/// the findings of the old text; \p Lists the words with file-wide effects for the settings
/// the file is linted with; \p OldWords, when known, the old text's word index. Without
/// \p Methods, an edit inside a class re-lints the class.
PlanResult planUnitRelint(const std::vector<TopUnit> &OldUnits, std::string_view OldText, bool OldHadError,
                          TSNode NewRoot, std::string_view NewText, const EditSpan &E,
                          const std::vector<Diagnostic> &OldDiags, const Linter::FileWideWords &Lists,
                          const WordIndex *OldWords = nullptr, bool Methods = true);

/// The findings of the new text: \p OldDiags outside the re-linted units (shifted past the
/// edit) and \p Fresh (from linting \p P's masked text) inside them, sorted as the linter
/// sorts them.
std::vector<Diagnostic> mergeUnitDiagnostics(const std::vector<Diagnostic> &OldDiags, std::vector<Diagnostic> Fresh,
                                             const UnitPlan &P, const EditSpan &E);

} // namespace torchlint::lsp
