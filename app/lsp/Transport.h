// JSON-RPC message framing for the LSP server, separate from the server itself:
// `Content-Length` headers (the protocol's framing) or, for readable transcripts, messages
// separated by `---` lines as with clangd's `-input-style=delimited`. Sizes are capped.
#pragma once

#include "lsp/Protocol.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <cstddef>
#include <string>

namespace torchlint::lsp {

enum class InputStyle { Standard, Delimited };

/// Where the bytes come from: stdin in the server, a string in tests.
class ByteSource {
public:
  virtual ~ByteSource() = default;
  /// Reads up to \p N bytes, blocking until at least one is there; 0 at end of input.
  virtual size_t read(char *Buf, size_t N) = 0;
  /// Whether read() would return without waiting.
  virtual bool ready() = 0;
  /// ready(), waiting up to \p TimeoutMs for it (the server waits so on its input and on a
  /// lint running beside it at once).
  virtual bool waitReady(int TimeoutMs) { return ready(); }
};

class FdSource : public ByteSource {
public:
  explicit FdSource(int Fd) : Fd(Fd) {}
  size_t read(char *Buf, size_t N) override;
  bool ready() override;
  bool waitReady(int TimeoutMs) override;

private:
  int Fd;
};

class StringSource : public ByteSource {
public:
  explicit StringSource(std::string S) : Data(std::move(S)) {}
  size_t read(char *Buf, size_t N) override;
  bool ready() override { return true; } // the end of a string is known without waiting

private:
  std::string Data;
  size_t Pos = 0;
};

/// One thing read from the client: a JSON message, a framing or JSON error, or the end.
struct Incoming {
  enum Kind { Message, Error, End } K = End;
  llvm::json::Value Msg = nullptr;
  /// The text of the message's `id` as the client wrote it (see RequestId).
  std::string RawId;
  ErrorCode Code = ErrorCode::ParseError;
  std::string Why;
};

/// The default cap on one message: far above any real file, far below running out of memory.
inline constexpr size_t DefaultMaxMessageBytes = 64u << 20;

class Transport {
public:
  Transport(ByteSource &In, llvm::raw_ostream &Out, InputStyle Style = InputStyle::Standard,
            size_t MaxMessageBytes = DefaultMaxMessageBytes, bool Pretty = false)
      : In(In), Out(Out), Style(Style), MaxBytes(MaxMessageBytes), Pretty(Pretty) {}

  /// Blocks until a message, an error or the end of input.
  Incoming read();
  /// Whether the next read() can start without waiting for the client.
  bool ready() { return BufPos < Buf.size() || (!AtEnd && In.ready()); }
  /// Whether read() can start without waiting for the client, or returns the end at once;
  /// waits up to \p TimeoutMs for it.
  bool waitReady(int TimeoutMs) { return BufPos < Buf.size() || AtEnd || In.waitReady(TimeoutMs); }
  /// Writes one message with a Content-Length header and flushes. A non-empty \p RawId is
  /// written as the text of the message's `id` (the request's id as the client wrote it).
  void send(const llvm::json::Value &Msg, llvm::StringRef RawId = {});

private:
  Incoming readStandard();
  Incoming readDelimited();
  /// One line without its terminator; false at the end of input. Lines longer than the cap
  /// are cut there (the rest is consumed) and flagged.
  bool readLine(std::string &Line, bool &TooLong);
  bool fill();
  /// Reads exactly \p N bytes into \p Out (or discards them when \p Out is null).
  bool readBytes(size_t N, std::string *Out);
  /// Reads a body of \p N bytes into \p Out, stopping early where the bytes hold the next
  /// message's header (\p Overran): that part is put back to be read as a header.
  bool readBody(size_t N, std::string &Out, bool &Overran);
  Incoming parse(std::string &Text);

  ByteSource &In;
  llvm::raw_ostream &Out;
  InputStyle Style;
  size_t MaxBytes;
  bool Pretty;
  std::string Buf;
  size_t BufPos = 0;
  bool AtEnd = false;
};

} // namespace torchlint::lsp
