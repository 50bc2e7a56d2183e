// Reading a notebook's code cells out of its JSON, and writing changed sources back into it.
#include "notebook/Ipynb.h"
#include "source/Strings.h"

#include "driver/FixLoop.h"

#include <llvm/Support/JSON.h>

#include <algorithm>
#include <cctype>

namespace torchlint::notebook {

namespace json = llvm::json;

bool isNotebookPath(std::string_view Path) { return Path.ends_with(".ipynb"); }

namespace {

llvm::Error fail(const std::string &Why) { return llvm::createStringError(llvm::inconvertibleErrorCode(), Why); }

bool isSpace(char C) { return C == ' ' || C == '\t' || C == '\n' || C == '\r'; }

// A scanner over text llvm::json has already accepted: it only finds where values are.
struct Scanner {
  std::string_view T;

  size_t skipSpace(size_t I) const {
    while (I < T.size() && isSpace(T[I]))
      ++I;
    return I;
  }
  /// \p I at a `"`: the offset after the closing quote.
  size_t stringEnd(size_t I) const {
    for (++I; I < T.size(); ++I) {
      if (T[I] == '\\')
        ++I;
      else if (T[I] == '"')
        return I + 1;
    }
    return T.size();
  }
  size_t valueEnd(size_t I) const {
    if (T[I] == '"')
      return stringEnd(I);
    if (T[I] != '{' && T[I] != '[') {
      while (I < T.size() && !isSpace(T[I]) && T[I] != ',' && T[I] != ']' && T[I] != '}')
        ++I;
      return I;
    }
    int Depth = 0;
    while (I < T.size()) {
      char C = T[I];
      if (C == '"') {
        I = stringEnd(I);
        continue;
      }
      if (C == '{' || C == '[')
        ++Depth;
      else if ((C == '}' || C == ']') && --Depth == 0)
        return I + 1;
      ++I;
    }
    return T.size();
  }
  /// Calls \p Member(key, value offset) for each member of the object at \p I.
  template <typename F> void members(size_t I, F Member) const {
    I = skipSpace(I + 1);
    while (I < T.size() && T[I] == '"') {
      size_t KeyEnd = stringEnd(I);
      std::string Key = decode(I, KeyEnd);
      size_t V = skipSpace(skipSpace(KeyEnd) + 1); // past the `:`
      Member(Key, V);
      I = skipSpace(valueEnd(V));
      if (I < T.size() && T[I] == ',')
        I = skipSpace(I + 1);
    }
  }
  /// Calls \p Element(value offset) for each element of the array at \p I.
  template <typename F> void elements(size_t I, F Element) const {
    I = skipSpace(I + 1);
    while (I < T.size() && T[I] != ']') {
      Element(I);
      I = skipSpace(valueEnd(I));
      if (I < T.size() && T[I] == ',')
        I = skipSpace(I + 1);
    }
  }

  static unsigned hex4(std::string_view S) {
    unsigned V = 0;
    for (char C : S.substr(0, 4))
      V = V * 16 + (C >= '0' && C <= '9' ? C - '0' : C >= 'a' && C <= 'f' ? C - 'a' + 10 : C - 'A' + 10);
    return V;
  }
  static void appendUtf8(std::string &Out, unsigned CP) {
    if (CP < 0x80) {
      Out += static_cast<char>(CP);
    } else if (CP < 0x800) {
      Out += static_cast<char>(0xC0 | (CP >> 6));
      Out += static_cast<char>(0x80 | (CP & 0x3F));
    } else if (CP < 0x10000) {
      Out += static_cast<char>(0xE0 | (CP >> 12));
      Out += static_cast<char>(0x80 | ((CP >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (CP & 0x3F));
    } else {
      Out += static_cast<char>(0xF0 | (CP >> 18));
      Out += static_cast<char>(0x80 | ((CP >> 12) & 0x3F));
      Out += static_cast<char>(0x80 | ((CP >> 6) & 0x3F));
      Out += static_cast<char>(0x80 | (CP & 0x3F));
    }
  }
  /// Decodes the escape at \p I (a backslash) into \p Out; returns the offset after it.
  size_t escape(size_t I, size_t End, std::string &Out) const {
    char C = I + 1 < End ? T[I + 1] : '\\';
    switch (C) {
    case 'n': Out += '\n'; return I + 2;
    case 't': Out += '\t'; return I + 2;
    case 'r': Out += '\r'; return I + 2;
    case 'b': Out += '\b'; return I + 2;
    case 'f': Out += '\f'; return I + 2;
    case 'u': {
      unsigned CP = hex4(T.substr(I + 2));
      size_t Next = I + 6;
      if (CP >= 0xD800 && CP < 0xDC00 && Next + 6 <= End && T[Next] == '\\' && T[Next + 1] == 'u') {
        unsigned Low = hex4(T.substr(Next + 2));
        if (Low >= 0xDC00 && Low < 0xE000) {
          CP = 0x10000 + ((CP - 0xD800) << 10) + (Low - 0xDC00);
          Next += 6;
        }
      }
      appendUtf8(Out, CP >= 0xD800 && CP < 0xE000 ? 0xFFFD : CP); // a lone surrogate, as llvm::json reads it
      return Next;
    }
    default: Out += C; return I + 2; // `"`, `\`, `/`
    }
  }
  /// The text of the string literal [Begin, End) (quotes included).
  std::string decode(size_t Begin, size_t End) const {
    std::string Out;
    for (size_t I = Begin + 1; I + 1 < End;) {
      if (T[I] == '\\') {
        I = escape(I, End - 1, Out);
      } else {
        Out += T[I++];
      }
    }
    return Out;
  }
};

/// A cell's lines as the module holds them (JoinedCells::join): split on line feeds, a final
/// line feed ending the last line rather than starting an empty one.
std::vector<std::string_view> moduleLines(std::string_view S) {
  std::vector<std::string_view> Out;
  size_t Start = 0;
  while (true) {
    size_t NL = S.find('\n', Start);
    if (NL == std::string_view::npos) {
      Out.push_back(S.substr(Start));
      break;
    }
    Out.push_back(S.substr(Start, NL - Start));
    Start = NL + 1;
    if (Start == S.size())
      break;
  }
  return Out;
}

std::string lower(std::string_view S) {
  std::string Out(S);
  for (char &C : Out)
    if (C >= 'A' && C <= 'Z')
      C = static_cast<char>(C - 'A' + 'a');
  return Out;
}

/// The language the notebook's metadata names, lower case; empty when it names none.
std::string language(const json::Object &Root) {
  const json::Object *Meta = Root.getObject("metadata");
  if (!Meta)
    return {};
  if (const json::Object *K = Meta->getObject("kernelspec"))
    if (auto L = K->getString("language"))
      return lower(*L);
  if (const json::Object *L = Meta->getObject("language_info"))
    if (auto N = L->getString("name"))
      return lower(*N);
  return {};
}

class Places final : public CellPlaces {
public:
  explicit Places(std::shared_ptr<const Notebook> N) : Book(std::move(N)) {}
  Place place(uint32_t ModuleLine) const override {
    if (Book->cells().empty())
      return {};
    CellLine P = Book->joined().place(ModuleLine);
    return {Book->cells()[P.Cell].Index + 1, P.Line};
  }
  std::pair<uint32_t, uint32_t> inFile(uint32_t ModuleLine, uint32_t ByteColumn) const override {
    if (Book->cells().empty())
      return {1, 1};
    CellLine P = Book->joined().place(ModuleLine);
    const std::string &Src = Book->cells()[P.Cell].Source;
    size_t Offset = 0;
    for (uint32_t L = 1; L < P.Line && Offset < Src.size(); ++L) {
      size_t NL = Src.find('\n', Offset);
      Offset = NL == std::string::npos ? Src.size() : NL + 1;
    }
    return Book->fileLineColumn(P.Cell, std::min(Src.size(), Offset + ByteColumn));
  }

private:
  std::shared_ptr<const Notebook> Book;
};

} // namespace

std::string jsonQuote(std::string_view S) {
  std::string Out = "\"";
  for (char C : S) {
    switch (C) {
    case '"': Out += "\\\""; break;
    case '\\': Out += "\\\\"; break;
    case '\n': Out += "\\n"; break;
    case '\r': Out += "\\r"; break;
    case '\t': Out += "\\t"; break;
    case '\b': Out += "\\b"; break;
    case '\f': Out += "\\f"; break;
    default:
      if (static_cast<unsigned char>(C) < 0x20) {
        static const char Hex[] = "0123456789abcdef";
        Out += "\\u00";
        Out += Hex[(C >> 4) & 0xF];
        Out += Hex[C & 0xF];
      } else {
        Out += C;
      }
    }
  }
  return Out + "\"";
}

llvm::Expected<Notebook> Notebook::parse(std::string Text) {
  auto Doc = json::parse(Text);
  if (!Doc)
    return fail("not a valid notebook: the JSON does not parse (" + llvm::toString(Doc.takeError()) +
                "); left alone");
  const json::Object *Root = Doc->getAsObject();
  if (!Root)
    return fail("not a valid notebook: the JSON is not an object; left alone");
  auto Format = Root->getInteger("nbformat");
  if (!Format || *Format != 4)
    return fail("not a notebook in nbformat 4 (" +
                (Format ? "nbformat " + std::to_string(*Format) : std::string("no `nbformat`")) +
                "); left alone");
  const json::Array *Cells = Root->getArray("cells");
  if (!Cells)
    return fail("not a valid notebook: no `cells` array; left alone");

  Notebook N;
  N.Json = std::move(Text);
  N.LineStarts.push_back(0);
  for (size_t I = 0; I < N.Json.size(); ++I)
    if (N.Json[I] == '\n')
      N.LineStarts.push_back(I + 1);
  std::string Lang = language(*Root);
  bool Python = Lang.empty() || Lang == "python" || Lang == "python3";

  Scanner S{N.Json};
  size_t Top = S.skipSpace(0);
  uint32_t Index = 0;
  bool Mismatch = false;
  S.members(Top, [&](const std::string &Key, size_t V) {
    if (Key != "cells" || N.Json[V] != '[')
      return;
    S.elements(V, [&](size_t E) {
      uint32_t Here = Index++;
      if (N.Json[E] != '{')
        return;
      std::string Type;
      CodeCell C;
      C.Index = Here;
      bool HasSource = false;
      S.members(E, [&](const std::string &K, size_t Value) {
        if (K == "cell_type" && N.Json[Value] == '"')
          Type = S.decode(Value, S.stringEnd(Value));
        if (K != "source")
          return;
        HasSource = true;
        C.ValueBegin = Value;
        C.ValueEnd = S.valueEnd(Value);
        if (N.Json[Value] == '"') {
          C.Pieces.push_back({Value, C.ValueEnd, 0});
          C.Source = S.decode(Value, C.ValueEnd);
        } else if (N.Json[Value] == '[') {
          C.IsArray = true;
          S.elements(Value, [&](size_t P) {
            if (N.Json[P] != '"')
              return;
            size_t End = S.stringEnd(P);
            C.Pieces.push_back({P, End, C.Source.size()});
            C.Source += S.decode(P, End);
          });
        }
      });
      if (Type != "code" || !HasSource || !Python)
        return;
      // The scanner's reading must be llvm::json's, or the places it gives are not to be trusted.
      const json::Object *Cell = Here < Cells->size() ? (*Cells)[Here].getAsObject() : nullptr;
      std::string Expected;
      if (const json::Value *Src = Cell ? Cell->get("source") : nullptr) {
        if (auto Str = Src->getAsString())
          Expected = Str->str();
        else if (const json::Array *A = Src->getAsArray())
          for (const json::Value &Line : *A)
            if (auto L = Line.getAsString())
              Expected += L->str();
      }
      if (Expected != C.Source)
        Mismatch = true;
      N.Cells.push_back(std::move(C));
    });
  });
  if (Mismatch || Index != Cells->size())
    return fail("not a valid notebook: its cells could not be read; left alone");
  std::vector<std::string> Sources;
  for (const CodeCell &C : N.Cells)
    Sources.push_back(C.Source);
  N.Joined = JoinedCells::join(Sources);
  return N;
}

std::vector<uint32_t> Notebook::cellOffsets() const {
  std::vector<uint32_t> Out;
  const std::string &T = Joined.text();
  uint32_t Line = 1, Offset = 0;
  for (uint32_t C = 0; C < Joined.cellCount(); ++C) {
    while (Line < Joined.firstLine(C)) {
      size_t NL = T.find('\n', Offset);
      Offset = NL == std::string::npos ? static_cast<uint32_t>(T.size()) : static_cast<uint32_t>(NL + 1);
      ++Line;
    }
    Out.push_back(Offset);
  }
  return Out;
}

std::shared_ptr<const CellPlaces> Notebook::places(std::shared_ptr<const Notebook> N) {
  return std::make_shared<Places>(std::move(N));
}

std::pair<uint32_t, uint32_t> Notebook::fileLineColumn(uint32_t Cell, size_t Offset) const {
  const CodeCell &C = Cells[Cell];
  size_t Raw = C.ValueBegin;
  if (!C.Pieces.empty()) {
    auto It = std::upper_bound(C.Pieces.begin(), C.Pieces.end(), Offset,
                               [](size_t O, const CodeCell::Piece &P) { return O < P.SourceOffset; });
    const CodeCell::Piece &P = It == C.Pieces.begin() ? C.Pieces.front() : *std::prev(It);
    size_t Need = Offset - std::min(Offset, P.SourceOffset);
    Scanner S{Json};
    Raw = P.Begin + 1;
    std::string Scratch;
    while (Need > 0 && Raw + 1 < P.End) {
      if (Json[Raw] == '\\') {
        Scratch.clear();
        size_t Next = S.escape(Raw, P.End - 1, Scratch);
        if (Scratch.size() > Need)
          break;
        Need -= Scratch.size();
        Raw = Next;
      } else {
        ++Raw;
        --Need;
      }
    }
  }
  auto LineIt = std::upper_bound(LineStarts.begin(), LineStarts.end(), Raw);
  size_t Line = static_cast<size_t>(LineIt - LineStarts.begin()); // 1-based
  size_t Start = LineStarts[Line - 1];
  uint32_t Column = 1;
  for (size_t I = Start; I < Raw; ++I)
    Column += (static_cast<unsigned char>(Json[I]) & 0xC0) != 0x80;
  return {static_cast<uint32_t>(Line), Column};
}

llvm::Expected<std::string> Notebook::withSources(const std::vector<std::string> &Sources) const {
  if (Sources.size() != Cells.size())
    return fail("internal error: the fixed notebook has " + std::to_string(Sources.size()) + " code cells, not " +
                std::to_string(Cells.size()));
  // The indentation one level adds, as the file's first member shows it (nbformat: one space).
  std::string Unit = " ";
  if (LineStarts.size() > 1) {
    size_t B = LineStarts[1], E = B;
    while (E < Json.size() && (Json[E] == ' ' || Json[E] == '\t'))
      ++E;
    if (E > B)
      Unit = Json.substr(B, E - B);
  }
  std::string Out;
  size_t At = 0;
  for (size_t I = 0; I < Cells.size(); ++I) {
    const CodeCell &C = Cells[I];
    if (Sources[I] == C.Source)
      continue;
    Out.append(Json, At, C.ValueBegin - At);
    At = C.ValueEnd;
    if (!C.IsArray) {
      Out += jsonQuote(Sources[I]);
      continue;
    }
    std::vector<std::string_view> New = linesKeepingEnds(Sources[I]);
    std::vector<std::string> Old;
    Scanner S{Json};
    for (const CodeCell::Piece &P : C.Pieces)
      Old.push_back(S.decode(P.Begin, P.End));
    auto [Pre, Suf] = commonEnds(Old, New);
    // What stands around the strings: after `[`, between two, before `]`.
    std::string Opener, Separator, Closer;
    if (C.Pieces.empty()) {
      size_t LineStart = Json.rfind('\n', C.ValueBegin);
      LineStart = LineStart == std::string::npos ? 0 : LineStart + 1;
      size_t E = LineStart;
      while (E < Json.size() && (Json[E] == ' ' || Json[E] == '\t'))
        ++E;
      std::string Indent = Json.substr(LineStart, E - LineStart);
      Opener = "\n" + Indent + Unit;
      Closer = "\n" + Indent;
    } else {
      Opener = Json.substr(C.ValueBegin + 1, C.Pieces.front().Begin - C.ValueBegin - 1);
      Closer = Json.substr(C.Pieces.back().End, C.ValueEnd - 1 - C.Pieces.back().End);
      Separator = C.Pieces.size() > 1 ? Json.substr(C.Pieces[0].End, C.Pieces[1].Begin - C.Pieces[0].End)
                                      : "," + Opener;
    }
    if (New.empty()) {
      Out += "[]";
      continue;
    }
    bool Any = Pre > 0;
    Out += Pre > 0 ? Json.substr(C.ValueBegin, C.Pieces[Pre - 1].End - C.ValueBegin) : "[" + Opener;
    for (size_t K = Pre; K < New.size() - Suf; ++K) {
      if (Any)
        Out += Separator;
      Out += jsonQuote(New[K]);
      Any = true;
    }
    if (Suf > 0) {
      if (Any)
        Out += Separator;
      Out += Json.substr(C.Pieces[C.Pieces.size() - Suf].Begin, C.ValueEnd - C.Pieces[C.Pieces.size() - Suf].Begin);
    } else {
      Out += Closer + "]";
    }
  }
  Out.append(Json, At, std::string::npos);
  // Read it back: the file must stay a notebook with exactly these sources.
  auto Again = Notebook::parse(Out);
  if (!Again)
    return fail("internal error: the fixed notebook would not read back (" + llvm::toString(Again.takeError()) + ")");
  bool Same = Again->Cells.size() == Sources.size();
  for (size_t I = 0; Same && I < Sources.size(); ++I)
    Same = Again->Cells[I].Source == Sources[I] && Again->Cells[I].Index == Cells[I].Index;
  if (!Same)
    return fail("internal error: the fixed notebook would not read back with the fixed sources");
  return Out;
}

llvm::Expected<std::vector<std::string>> Notebook::sourcesAfterFix(std::string_view Fixed,
                                                                    const std::vector<uint32_t> &Offsets) const {
  std::vector<std::string> Out;
  const std::string &Module = Joined.text();
  for (size_t I = 0; I < Cells.size(); ++I) {
    size_t B = Offsets[I], E = I + 1 < Offsets.size() ? Offsets[I + 1] : Fixed.size();
    if (B > E || E > Fixed.size() || E == B || Fixed[E - 1] != '\n')
      return fail("a fix would join two cells; no fixes were written to this notebook");
    std::string_view NewText = Fixed.substr(B, E - B);
    uint32_t First = Joined.firstLine(static_cast<uint32_t>(I)), Count = Joined.lineCount(static_cast<uint32_t>(I));
    // The cell's text in the module as it was.
    size_t OB = 0;
    for (uint32_t L = 1; L < First; ++L)
      OB = Module.find('\n', OB) + 1;
    size_t OE = OB;
    for (uint32_t L = 0; L < Count; ++L)
      OE = Module.find('\n', OE) + 1;
    std::string_view OldText = std::string_view(Module).substr(OB, OE - OB);
    const std::string &Src = Cells[I].Source;
    if (NewText == OldText) {
      Out.push_back(Src);
      continue;
    }
    auto OldLines = moduleLines(OldText.substr(0, OldText.size() - 1));
    auto NewLines = moduleLines(NewText.substr(0, NewText.size() - 1));
    auto SrcLines = moduleLines(Src);
    if (SrcLines.size() != OldLines.size())
      return fail("internal error: a cell's lines do not match the module's");
    size_t Pre = 0;
    while (Pre < OldLines.size() && Pre < NewLines.size() && OldLines[Pre] == NewLines[Pre])
      ++Pre;
    size_t Suf = 0;
    while (Suf < OldLines.size() - Pre && Suf < NewLines.size() - Pre &&
           OldLines[OldLines.size() - 1 - Suf] == NewLines[NewLines.size() - 1 - Suf])
      ++Suf;
    std::vector<std::string_view> Lines(SrcLines.begin(), SrcLines.begin() + static_cast<std::ptrdiff_t>(Pre));
    // A changed stretch keeps the IPython lines it still holds (as comments), in order.
    size_t NextOld = Pre;
    for (size_t K = Pre; K < NewLines.size() - Suf; ++K) {
      std::string_view L = NewLines[K];
      for (size_t J = NextOld; J < OldLines.size() - Suf; ++J)
        if (OldLines[J] == L && Joined.masked(First + static_cast<uint32_t>(J))) {
          L = SrcLines[J];
          NextOld = J + 1;
          break;
        }
      Lines.push_back(L);
    }
    Lines.insert(Lines.end(), SrcLines.end() - static_cast<std::ptrdiff_t>(Suf), SrcLines.end());
    std::string S;
    for (size_t K = 0; K < Lines.size(); ++K) {
      if (K)
        S += '\n';
      S.append(Lines[K]);
    }
    if (!Src.empty() && Src.back() == '\n')
      S += '\n';
    Out.push_back(std::move(S));
  }
  return Out;
}

namespace {

std::string placeLines(const std::string &Message, const CellPlaces &Places, uint32_t ModuleLines) {
  std::string Out;
  size_t At = 0;
  for (size_t I; (I = Message.find("line ", At)) != std::string::npos;) {
    size_t D = I + 5, E = D;
    while (E < Message.size() && Message[E] >= '0' && Message[E] <= '9')
      ++E;
    bool Word = I == 0 || !std::isalnum(static_cast<unsigned char>(Message[I - 1]));
    bool Ends = E == Message.size() || !std::isalnum(static_cast<unsigned char>(Message[E]));
    if (E == D || E - D > 9 || !Word || !Ends) {
      Out.append(Message, At, D - At);
      At = D;
      continue;
    }
    uint32_t Line = static_cast<uint32_t>(std::stoul(Message.substr(D, E - D)));
    Out.append(Message, At, D - At);
    if (Line >= 1 && Line <= ModuleLines) {
      CellPlaces::Place P = Places.place(Line);
      Out += std::to_string(P.Line) + " of cell " + std::to_string(P.Cell);
    } else {
      Out.append(Message, D, E - D);
    }
    At = E;
  }
  Out.append(Message, At, std::string::npos);
  return Out;
}

} // namespace

void placeMessageLines(std::vector<Diagnostic> &Diags, const CellPlaces &Places, uint32_t ModuleLines) {
  for (Diagnostic &D : Diags) {
    D.Message = placeLines(D.Message, Places, ModuleLines);
    for (Note &N : D.Notes)
      N.Message = placeLines(N.Message, Places, ModuleLines);
  }
}

llvm::Expected<NotebookSource> readNotebook(std::string Text) {
  auto N = Notebook::parse(std::move(Text));
  if (!N)
    return N.takeError();
  NotebookSource Out;
  auto Book = std::make_shared<const Notebook>(std::move(*N));
  Out.Places = Notebook::places(Book);
  Out.Book = std::move(Book);
  return Out;
}

std::string cellDiff(std::string_view Path, const Notebook &Book, const std::vector<std::string> &After) {
  std::string Out;
  for (size_t I = 0; I < Book.cells().size() && I < After.size(); ++I)
    if (Book.cells()[I].Source != After[I])
      Out += unifiedDiff(std::string(Path) + ":cell " + std::to_string(Book.cells()[I].Index + 1),
                         Book.cells()[I].Source, After[I]);
  return Out;
}

} // namespace torchlint::notebook
