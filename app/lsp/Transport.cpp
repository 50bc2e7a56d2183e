// Reading and writing framed JSON-RPC messages.
#include "lsp/Transport.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FormatVariadic.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>
#include <poll.h>
#include <unistd.h>

namespace torchlint::lsp {

namespace {
// Header lines are short; a longer one is garbage, and we must not buffer it unbounded.
constexpr size_t MaxHeaderLine = 4096;

bool equalsNoCase(std::string_view A, std::string_view Lower) {
  if (A.size() != Lower.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if ((A[I] >= 'A' && A[I] <= 'Z' ? A[I] - 'A' + 'a' : A[I]) != Lower[I])
      return false;
  return true;
}

/// Where `Content-Length:` (any case) starts in \p S at or after \p From, or npos.
size_t findContentLength(std::string_view S, size_t From = 0) {
  constexpr std::string_view Name = "content-length:";
  for (size_t I = S.find_first_of("cC", From); I != std::string_view::npos && I + Name.size() <= S.size();
       I = S.find_first_of("cC", I + 1))
    if (equalsNoCase(S.substr(I, Name.size()), Name))
      return I;
  return std::string_view::npos;
}

/// Where a whole header line `Content-Length: <digits>` followed by a line break starts in
/// \p S at or after \p From, or npos. JSON text cannot hold a raw line break inside a string,
/// so inside a body this is the next message's header, swallowed by a length too long.
size_t findHeaderLine(std::string_view S, size_t From) {
  for (size_t I = findContentLength(S, From); I != std::string_view::npos; I = findContentLength(S, I + 1)) {
    size_t J = I + 15;
    while (J < S.size() && S[J] == ' ')
      ++J;
    size_t Digits = J;
    while (J < S.size() && S[J] >= '0' && S[J] <= '9')
      ++J;
    if (J > Digits && J < S.size() && (S[J] == '\r' || S[J] == '\n'))
      return I;
  }
  return std::string_view::npos;
}
/// The text of the top-level member `"id"` of the JSON object \p S when it is a number or a
/// string, else empty. \p S is valid JSON (llvm::json has read it), so the scan only tells tokens apart;
/// it is linear, and most messages name their id before their params.
llvm::StringRef rawId(llvm::StringRef S) {
  size_t I = 0, N = S.size();
  auto Blank = [&] {
    while (I < N && (S[I] == ' ' || S[I] == '\t' || S[I] == '\n' || S[I] == '\r'))
      ++I;
  };
  auto SkipString = [&] { // from the opening quote to past the closing one
    for (++I; I < N; ++I) {
      if (S[I] == '\\')
        ++I;
      else if (S[I] == '"') {
        ++I;
        return;
      }
    }
  };
  auto SkipValue = [&] {
    if (I < N && S[I] == '"')
      return SkipString();
    if (I < N && (S[I] == '{' || S[I] == '[')) {
      for (int Depth = 0; I < N;) {
        char C = S[I];
        if (C == '"') {
          SkipString();
          continue;
        }
        ++I;
        if (C == '{' || C == '[')
          ++Depth;
        else if ((C == '}' || C == ']') && --Depth == 0)
          return;
      }
      return;
    }
    while (I < N && llvm::StringRef(",}] \t\r\n").find(S[I]) == llvm::StringRef::npos)
      ++I; // a number, true, false or null
  };
  Blank();
  if (I >= N || S[I] != '{')
    return {};
  ++I;
  for (;;) {
    Blank();
    if (I >= N || S[I] != '"')
      return {};
    size_t KeyBegin = I;
    SkipString();
    llvm::StringRef Key = S.slice(KeyBegin + 1, I - 1);
    Blank();
    ++I; // the colon
    Blank();
    size_t ValueBegin = I;
    SkipValue();
    if (Key == "id")
      return ValueBegin < N && (S[ValueBegin] == '"' || S[ValueBegin] == '-' || (S[ValueBegin] >= '0' && S[ValueBegin] <= '9'))
                 ? S.slice(ValueBegin, I)
                 : llvm::StringRef();
    Blank();
    if (I >= N || S[I] != ',')
      return {};
    ++I;
  }
}

} // namespace

size_t FdSource::read(char *Buf, size_t N) {
  for (;;) {
    ssize_t R = ::read(Fd, Buf, N);
    if (R >= 0)
      return static_cast<size_t>(R);
    if (errno != EINTR)
      return 0;
  }
}

bool FdSource::ready() { return waitReady(0); }

bool FdSource::waitReady(int TimeoutMs) {
  pollfd P{Fd, POLLIN, 0};
  return ::poll(&P, 1, TimeoutMs) > 0;
}

size_t StringSource::read(char *Buf, size_t N) {
  size_t K = std::min(N, Data.size() - Pos);
  std::memcpy(Buf, Data.data() + Pos, K);
  Pos += K;
  return K;
}

bool Transport::fill() {
  if (AtEnd)
    return false;
  if (BufPos > 0) {
    Buf.erase(0, BufPos);
    BufPos = 0;
  }
  char Chunk[65536];
  size_t N = In.read(Chunk, sizeof Chunk);
  if (N == 0) {
    AtEnd = true;
    return false;
  }
  Buf.append(Chunk, N);
  return true;
}

bool Transport::readLine(std::string &Line, bool &TooLong) {
  Line.clear();
  TooLong = false;
  for (;;) {
    size_t NL = Buf.find('\n', BufPos);
    size_t Limit = NL == std::string::npos ? Buf.size() : NL;
    // Keep the end of an over-long line: after the tail of a message whose Content-Length was
    // too short, the next header follows on the same line.
    size_t Take = Limit - BufPos;
    if (Take > MaxHeaderLine) {
      Line.clear();
      BufPos = Limit - MaxHeaderLine - 1;
      Take = MaxHeaderLine + 1;
      TooLong = true;
    }
    Line.append(Buf, BufPos, Take);
    if (Line.size() > MaxHeaderLine) {
      Line.erase(0, Line.size() - MaxHeaderLine);
      TooLong = true;
    }
    if (NL != std::string::npos) {
      BufPos = NL + 1;
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      return true;
    }
    BufPos = Buf.size();
    if (!fill())
      return !Line.empty();
  }
}

bool Transport::readBody(size_t N, std::string &Out, bool &Overran) {
  Overran = false;
  while (Out.size() < N) {
    if (BufPos == Buf.size() && !fill())
      return false;
    size_t Before = Out.size();
    size_t K = std::min(N - Out.size(), Buf.size() - BufPos);
    Out.append(Buf, BufPos, K);
    BufPos += K;
    // Search the new bytes (and a header's length before them, which may have been cut).
    size_t At = findHeaderLine(Out, Before > 40 ? Before - 40 : 0);
    if (At != std::string::npos) {
      Buf.insert(BufPos, Out, At, std::string::npos);
      Out.resize(At);
      Overran = true;
      return true;
    }
  }
  // A header cut by the end of the claimed length: look at what follows, without waiting.
  size_t Tail = std::min<size_t>(Out.size(), 40);
  std::string Window = Out.substr(Out.size() - Tail) + Buf.substr(BufPos, 64);
  size_t At = findHeaderLine(Window, 0);
  if (At != std::string::npos && At < Tail) {
    Buf.insert(BufPos, Out, Out.size() - Tail + At, std::string::npos);
    Out.resize(Out.size() - Tail + At);
    Overran = true;
  }
  return true;
}

bool Transport::readBytes(size_t N, std::string *Out) {
  while (N > 0) {
    if (BufPos == Buf.size() && !fill())
      return false;
    size_t K = std::min(N, Buf.size() - BufPos);
    if (Out)
      Out->append(Buf, BufPos, K);
    BufPos += K;
    N -= K;
  }
  return true;
}

Incoming Transport::parse(std::string &Text) {
  Incoming R;
  auto V = llvm::json::parse(Text);
  if (!V) {
    R.K = Incoming::Error;
    R.Code = ErrorCode::ParseError;
    R.Why = "invalid JSON: " + llvm::toString(V.takeError());
    return R;
  }
  R.K = Incoming::Message;
  R.Msg = std::move(*V);
  // Keep the id's text only where it is the id llvm::json read (not a key spelled with escapes,
  // or one of several `id` members).
  if (const llvm::json::Object *O = R.Msg.getAsObject())
    if (const llvm::json::Value *Id = O->get("id");
        Id && (Id->kind() == llvm::json::Value::Number || Id->kind() == llvm::json::Value::String)) {
      llvm::StringRef Raw = rawId(Text);
      auto Reread = llvm::json::parse(Raw);
      if (Reread && *Reread == *Id)
        R.RawId = Raw.str();
      else if (!Reread)
        llvm::consumeError(Reread.takeError());
    }
  return R;
}

Incoming Transport::read() { return Style == InputStyle::Delimited ? readDelimited() : readStandard(); }

Incoming Transport::readStandard() {
  std::string Line;
  bool TooLong;
  for (;;) {
    std::optional<uint64_t> Length;
    bool BadHeader = false, SawHeader = false;
    // Headers up to the empty line.
    for (;;) {
      if (!readLine(Line, TooLong))
        return Incoming{};
      if (Line.empty()) {
        if (!SawHeader)
          continue; // stray blank lines between messages are harmless
        break;
      }
      SawHeader = true;
      llvm::StringRef L(Line);
      // A `Content-Length:` anywhere starts a header afresh: what came before it on the line
      // (or on earlier lines of this block) is the rest of a message whose length was too
      // short, already reported. Reading resumes in step with the client.
      if (size_t At = findContentLength(Line); At != std::string::npos) {
        L = L.substr(At);
        BadHeader = TooLong = false;
      }
      auto [Name, Val] = L.split(':');
      uint64_t N;
      if (!TooLong && Name.trim().equals_insensitive("content-length")) {
        if (Val.trim().getAsInteger(10, N))
          BadHeader = true;
        else
          Length = N;
      } else if (TooLong || !L.contains(':')) {
        BadHeader = true;
      }
    }
    Incoming E;
    E.K = Incoming::Error;
    if (BadHeader || !Length) {
      // Without a length the body cannot be found; the next header block resynchronises.
      E.Code = ErrorCode::ParseError;
      E.Why = BadHeader ? "malformed message header" : "message without a Content-Length header";
      return E;
    }
    if (*Length > MaxBytes) {
      if (!readBytes(*Length, nullptr))
        return Incoming{};
      E.Code = ErrorCode::InvalidRequest;
      E.Why = "message of " + std::to_string(*Length) + " bytes is over the limit of " + std::to_string(MaxBytes) +
              " bytes";
      return E;
    }
    std::string Body;
    Body.reserve(std::min<uint64_t>(*Length, 1 << 20));
    bool Overran = false;
    if (!readBody(*Length, Body, Overran))
      return Incoming{};
    if (Overran) {
      E.Code = ErrorCode::ParseError;
      E.Why = "Content-Length " + std::to_string(*Length) + " is longer than the message (" +
              std::to_string(Body.size()) + " bytes before the next header)";
      return E;
    }
    return parse(Body);
  }
}

Incoming Transport::readDelimited() {
  std::string Text, Line;
  bool Over = false;
  for (;;) {
    // Body lines may be long; only the message as a whole is capped.
    Line.clear();
    bool Got = false;
    for (;;) {
      size_t NL = Buf.find('\n', BufPos);
      size_t Limit = NL == std::string::npos ? Buf.size() : NL;
      Line.append(Buf, BufPos, Limit - BufPos);
      if (NL != std::string::npos) {
        BufPos = NL + 1;
        Got = true;
        break;
      }
      BufPos = Buf.size();
      if (!fill()) {
        Got = !Line.empty();
        break;
      }
    }
    if (!Got) {
      if (llvm::StringRef(Text).trim().empty())
        return Incoming{};
      break;
    }
    if (!Line.empty() && Line.back() == '\r')
      Line.pop_back();
    if (Line == "---") {
      if (llvm::StringRef(Text).trim().empty() && !Over)
        continue;
      break;
    }
    if (llvm::StringRef(Line).ltrim().startswith("#"))
      continue;
    if (Text.size() + Line.size() + 1 > MaxBytes) {
      Over = true;
      Text.clear();
      continue;
    }
    if (!Over)
      Text += Line + "\n";
  }
  if (Over) {
    Incoming E;
    E.K = Incoming::Error;
    E.Code = ErrorCode::InvalidRequest;
    E.Why = "message is over the limit of " + std::to_string(MaxBytes) + " bytes";
    return E;
  }
  return parse(Text);
}

void Transport::send(const llvm::json::Value &Msg, llvm::StringRef RawId) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  const llvm::json::Object *O = Msg.getAsObject();
  if (!RawId.empty() && O && O->get("id")) {
    // As llvm::json writes an object (keys sorted), but with the id's own text.
    std::vector<llvm::StringRef> Keys;
    for (const auto &KV : *O)
      Keys.push_back(KV.first);
    std::sort(Keys.begin(), Keys.end());
    llvm::json::OStream J(OS, Pretty ? 2 : 0);
    J.object([&] {
      for (llvm::StringRef K : Keys) {
        if (K != "id") {
          J.attribute(K, *O->get(K));
          continue;
        }
        J.attributeBegin(K);
        J.rawValue(RawId);
        J.attributeEnd();
      }
    });
  } else if (Pretty) {
    OS << llvm::formatv("{0:2}", Msg);
  } else {
    OS << Msg;
  }
  OS.flush();
  Out << "Content-Length: " << S.size() << "\r\n\r\n" << S;
  Out.flush();
}

} // namespace torchlint::lsp
