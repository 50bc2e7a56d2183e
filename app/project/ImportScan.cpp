// The import statements of a file, read from its text alone (no parse): see ImportScan.h.
#include "project/ImportScan.h"

#include "semantic/Project.h"
#include "source/Strings.h"

#include <llvm/ADT/iterator_range.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace torchlint {

namespace {

/// \p S without its first dotted component (`b.c` of `a.b.c`), empty after the last: with
/// `for (S = Module; !S.empty(); S = withoutFirst(S))`, a module and each of its dotted suffixes.
std::string_view withoutFirst(std::string_view S) {
  size_t Dot = S.find('.');
  return Dot == std::string_view::npos ? std::string_view() : S.substr(Dot + 1);
}

} // namespace

std::set<std::string, std::less<>> ImportWants::wanted(std::string_view Module, bool &All) const {
  std::set<std::string, std::less<>> Out;
  All = false;
  for (std::string_view S = Module; !S.empty(); S = withoutFirst(S)) {
    if (Whole.count(S)) {
      All = true;
      return {};
    }
    if (auto It = Names.find(std::string(S)); It != Names.end())
      Out.insert(It->second.begin(), It->second.end());
  }
  return Out;
}

bool ImportWants::starImported(std::string_view Module) const {
  for (std::string_view S = Module; !S.empty(); S = withoutFirst(S))
    if (Starred.count(S))
      return true;
  return false;
}

void ImportWants::finish() {
  // Re-exports chain (`pkg/__init__` re-exports `pkg.models`, which re-exports
  // `pkg.models.resnet`): repeat until nothing changes, bounded in case of a cycle.
  for (size_t Round = 0; Round < 16; ++Round) {
    bool Changed = false;
    for (auto &[Package, Module] : Reexports) {
      if (Whole.count(Package)) {
        Changed |= Whole.insert(Module).second;
        continue;
      }
      auto It = Names.find(Package);
      if (It == Names.end())
        continue;
      std::set<std::string, std::less<>> From = It->second; // Names may rehash below
      auto &To = Names[Module];
      for (const std::string &N : From)
        Changed |= To.insert(N).second;
    }
    if (!Changed)
      break;
  }
}

namespace {

/// One import statement's tokens: names (with their dots: `..data`, `pkg.data`), and the
/// punctuation that matters (`,`, `*`). `as` and the alias after it are dropped.
struct Statement {
  std::vector<std::string_view> Words;
};

class Scanner {
public:
  Scanner(std::string_view Text) : Text(Text) {}

  /// The next import statement, from where the last one (or line) ended; false at the end.
  bool next(Statement &S) {
    while (At < Text.size()) {
      if ((At == 0 || Text[At - 1] == '\n') && !toCandidateLine())
        return false;
      size_t Start = At;
      while (Start < Text.size() && (Text[Start] == ' ' || Text[Start] == '\t'))
        ++Start;
      if (keyword(Start, "import") || keyword(Start, "from")) {
        S.Words.clear();
        At = Start;
        read(S);
        return true;
      }
      size_t End = Text.find('\n', Start);
      if (End == std::string_view::npos)
        End = Text.size();
      // `x = 1; import torch`: a statement after a `;` on the line is a statement too (the
      // search stays within the line: most files have no `;` at all).
      const void *Semi = std::memchr(Text.data() + Start, ';', End - Start);
      At = Semi ? static_cast<size_t>(static_cast<const char *>(Semi) - Text.data()) + 1 : End + 1;
    }
    return false;
  }

private:
  /// From the start of a line, on to the first line that may start an import statement:
  /// every one has the word `import` on its first logical line (`from pkg import (` holds it;
  /// `import (` is no Python), so the candidate is the line of the next `import`, or the first
  /// of the lines that `\` joins onto it (`from pkg.data \` then `    import make_batch`). One
  /// search of the text rather than a look at each of its lines. False when none is left.
  bool toCandidateLine() {
    if (Hit == std::string_view::npos || Hit < At) {
      Hit = findBytes(Text, "import", At);
      if (Hit == std::string_view::npos) {
        At = Text.size();
        return false;
      }
    }
    size_t Line = lineStart(Hit);
    while (Line > At && joinedToPrevious(Line))
      Line = lineStart(Line - 1);
    At = std::max(At, Line);
    return true;
  }

  size_t lineStart(size_t I) const {
    size_t NL = I == 0 ? std::string_view::npos : Text.rfind('\n', I - 1);
    return NL == std::string_view::npos ? 0 : NL + 1;
  }

  /// Whether the line that starts at \p Line (> 0) continues the one before it: that one ends
  /// in a backslash (before `\n` or `\r\n`).
  bool joinedToPrevious(size_t Line) const {
    return (Line >= 2 && Text[Line - 2] == '\\') ||
           (Line >= 3 && Text[Line - 2] == '\r' && Text[Line - 3] == '\\');
  }

  bool keyword(size_t I, std::string_view W) const {
    if (Text.substr(I, W.size()) != W)
      return false;
    size_t After = I + W.size();
    return After < Text.size() && (Text[After] == ' ' || Text[After] == '\t' || Text[After] == '\\' ||
                                   Text[After] == '(' || (W == "from" && Text[After] == '.'));
  }

  // Reads up to the end of the statement: a newline outside parentheses and not escaped, a
  // `;`, or the end of the text.
  void read(Statement &S) {
    int Depth = 0;
    while (At < Text.size()) {
      char C = Text[At];
      if (C == '\n') {
        ++At;
        if (Depth == 0)
          return;
        continue;
      }
      if (C == '\\' && At + 1 < Text.size() && (Text[At + 1] == '\n' || Text[At + 1] == '\r')) {
        // A line continuation, `\r\n` as one line end.
        At += Text[At + 1] == '\r' && At + 2 < Text.size() && Text[At + 2] == '\n' ? 3 : 2;
        continue;
      }
      if (C == ';' && Depth == 0) {
        ++At;
        return;
      }
      if (C == '#') {
        size_t End = Text.find('\n', At);
        At = End == std::string_view::npos ? Text.size() : End;
        continue;
      }
      if (C == '(') {
        ++Depth;
      } else if (C == ')') {
        Depth = Depth > 0 ? Depth - 1 : 0;
      } else if (C == ',' || C == '*') {
        S.Words.push_back(Text.substr(At, 1));
      } else if (C == '.' || nameByte(C)) {
        size_t End = At;
        // A dotted name, spaces allowed around its dots (`from . data import x` is rare but legal).
        while (End < Text.size() && (nameByte(Text[End]) || Text[End] == '.'))
          ++End;
        S.Words.push_back(Text.substr(At, End - At));
        At = End;
        continue;
      } else if (C != ' ' && C != '\t' && C != '\r') {
        // Not an import statement after all (`import` as a name in a string, say): stop at the line.
        size_t End = Text.find('\n', At);
        At = End == std::string_view::npos ? Text.size() : End + 1;
        if (Depth == 0)
          return;
        continue;
      }
      ++At;
    }
  }

  std::string_view Text;
  size_t At = 0;
  size_t Hit = std::string_view::npos; // the next `import` at or after the line being read
};

/// `pkg.sub.mod` and the packages above it: importing a module runs every `__init__.py` on the
/// way, and code may read their names through the bound top package.
void addWhole(std::string_view Dotted, ImportWants &Out) {
  for (size_t Dot = Dotted.find('.'); Dot != std::string_view::npos; Dot = Dotted.find('.', Dot + 1))
    Out.Whole.emplace(Dotted.substr(0, Dot));
  Out.Whole.emplace(Dotted);
}

/// The alias of the name at \p I of an import statement's words (`c` of `a.b as c`), or empty.
std::string_view aliasOf(const std::vector<std::string_view> &W, size_t I) {
  return I + 2 < W.size() && W[I + 1] == "as" ? W[I + 2] : std::string_view();
}

/// A name bound to a module of the importer's own package (`import pkg.models as m`, `from pkg
/// import models`): what the file reads through it is what it wants of the module.
struct Binding {
  std::string_view Local; // `m`; `pkg` for `import pkg.models`
  std::string Module;     // `pkg.models`; `pkg` for `import pkg.models`
};

/// Whether the importer's own code may read names of \p Module through a binding, rather than
/// wanting the whole module: the modules of its own top package (a library's files import each
/// other by name), but not PyTorch's (never summarised) nor other distributions' (the importer
/// reads them too rarely for a scan of its text to pay).
bool readThroughBinding(std::string_view Module, std::string_view Importer) {
  std::string_view Top = Module.substr(0, Module.find('.'));
  return !Importer.empty() && Importer.substr(0, Importer.find('.')) == Top && !isTorchName(Module);
}

/// The names the text reads through each binding: `m.resnet50` wants `resnet50` of `pkg.models`,
/// `pkg.models.resnet.ResNet` wants `models` of `pkg`, `resnet` of `pkg.models` and `ResNet` of
/// `pkg.models.resnet` (each may be where the next is defined). One pass over the dots of the
/// text. A read the scan misses (`getattr(m, name)`) is one the flow cannot follow either.
void readsThrough(std::string_view Text, std::vector<Binding> Bindings, ImportWants &Out) {
  // By local name, so that a file of thousands of imports is not scanned once per import.
  auto ByLocal = [](const Binding &A, const Binding &B) { return A.Local < B.Local; };
  std::sort(Bindings.begin(), Bindings.end(), ByLocal);
  for (size_t Dot = Text.find('.'); Dot != std::string_view::npos; Dot = Text.find('.', Dot + 1)) {
    size_t Begin = Dot;
    while (Begin > 0 && nameByte(Text[Begin - 1]))
      --Begin;
    if (Begin == Dot || (Begin > 0 && Text[Begin - 1] == '.'))
      continue;
    Binding Key{Text.substr(Begin, Dot - Begin), {}};
    auto [First, Last] = std::equal_range(Bindings.begin(), Bindings.end(), Key, ByLocal);
    for (const Binding &B : llvm::make_range(First, Last)) {
      std::string Module = B.Module;
      size_t At = Dot;
      // A few components deep: past that the names are attributes of what was read.
      for (int Depth = 0; Depth < 4 && At < Text.size() && Text[At] == '.'; ++Depth) {
        size_t End = At + 1;
        while (End < Text.size() && nameByte(Text[End]))
          ++End;
        if (End == At + 1)
          break;
        std::string_view Name = Text.substr(At + 1, End - At - 1);
        Out.Names[Module].emplace(Name);
        Module += '.';
        Module += Name;
        At = End;
      }
    }
  }
}

} // namespace

void scanImports(std::string_view Text, std::string_view Module, bool IsPackage, ImportWants &Out,
                 std::vector<std::string> *Named) {
  Scanner Scan(Text);
  Statement S;
  std::vector<Binding> Bindings;
  while (Scan.next(S)) {
    const std::vector<std::string_view> &W = S.Words;
    if (W.empty())
      continue;
    if (W[0] == "import") {
      // import a.b as c, d
      for (size_t I = 1; I < W.size(); ++I) {
        if (W[I] == "," || W[I] == "as" || W[I] == "*")
          continue;
        if (W[I - 1] == "as")
          continue;
        std::string_view Dotted = W[I];
        if (isTorchName(Dotted))
          continue; // PyTorch's names are the table's: no summary of a `torch.*` module is read
        if (readThroughBinding(Dotted, Module)) {
          // `import pkg.models` binds `pkg`, read as `pkg.models.x`; `import pkg.models as m`
          // binds `m`, read as `m.x`.
          std::string_view Top = Dotted.substr(0, Dotted.find('.'));
          if (std::string_view Alias = aliasOf(W, I); !Alias.empty())
            Bindings.push_back({Alias, std::string(Dotted)});
          else
            Bindings.push_back({Top, std::string(Top)});
        } else {
          addWhole(Dotted, Out);
        }
        if (Named)
          Named->emplace_back(W[I]);
      }
      continue;
    }
    // from X import a as b, c  /  from X import *
    if (W[0] != "from" || W.size() < 4 || W[2] != "import")
      continue;
    std::string From =
        W[1].front() == '.' ? absoluteModule(W[1], Module, IsPackage) : std::string(W[1]);
    if (From.empty())
      continue;
    // Of a `torch.*` module only the import table is ever read, for its star importers: what
    // is imported from it by name is the PyTorch table's (most of torch's own imports).
    bool Torch = isTorchName(From);
    if (Named && !Torch)
      Named->push_back(From);
    for (size_t I = 3; I < W.size(); ++I) {
      if (W[I] == "*") {
        Out.Starred.insert(From);
        if (Torch)
          continue;
        // A package's `__init__.py` re-exporting its own submodule: only what the package's
        // importers want of it. Anywhere else, the file may call any name it bound.
        if (IsPackage && From.size() > Module.size() && From.compare(0, Module.size(), Module) == 0 &&
            From[Module.size()] == '.')
          Out.Reexports.emplace_back(std::string(Module), From);
        else
          addWhole(From, Out);
        continue;
      }
      if (W[I] == "," || W[I] == "as" || W[I - 1] == "as" || Torch)
        continue;
      Out.Names[From].emplace(W[I]);
      // `from pkg import data` may import the module `pkg.data` (and only read names from it:
      // `pkg` itself is wanted for `data` alone); what of `pkg.data` is read through the
      // bound name, or all of it where that is not followed.
      std::string Sub = From + "." + std::string(W[I]);
      if (readThroughBinding(Sub, Module)) {
        std::string_view Alias = aliasOf(W, I);
        Bindings.push_back({Alias.empty() ? W[I] : Alias, Sub});
      } else {
        Out.Whole.emplace(Sub);
      }
      if (Named)
        Named->push_back(std::move(Sub));
    }
  }
  if (!Bindings.empty())
    readsThrough(Text, std::move(Bindings), Out);
}

} // namespace torchlint
