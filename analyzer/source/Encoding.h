// Source encodings as Python reads them (PEP 263): a `# -*- coding: latin-1 -*-` comment on
// the first or second line names the file's encoding; without one it is UTF-8. torchlint
// works on UTF-8 text, so a file in another encoding is decoded when read and encoded back
// when a fix is written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace torchlint {

enum class Codec { Utf8, Ascii, Latin1, Cp1252 };

struct DeclaredEncoding {
  std::string Name;            // as written (`latin-1`)
  std::optional<Codec> Known;  // what torchlint can decode; nullopt for other encodings
};

/// The encoding the PEP 263 declaration of \p Bytes names, if it has one.
std::optional<DeclaredEncoding> declaredEncoding(std::string_view Bytes);

/// \p Bytes in \p C as UTF-8; nullopt with the 1-based byte column of the first byte \p C has
/// no character for, in \p BadLine / \p BadColumn.
std::optional<std::string> decodeToUtf8(std::string_view Bytes, Codec C, uint32_t &BadLine, uint32_t &BadColumn);

/// UTF-8 \p Text back in \p C; nullopt when a character has no byte in \p C.
std::optional<std::string> encodeFromUtf8(std::string_view Text, Codec C);

} // namespace torchlint
