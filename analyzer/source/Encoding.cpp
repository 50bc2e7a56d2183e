// PEP 263 declarations and the single-byte codecs (see Encoding.h).
#include "source/Encoding.h"

#include "source/Strings.h"

#include <array>
#include <cstdint>

namespace torchlint {

namespace {

bool isIdentChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_';
}

// Windows-1252's characters for 0x80-0x9F (0: undefined, which Python's cp1252 rejects).
constexpr std::array<uint16_t, 32> Cp1252High = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

/// The codec Python's codec registry finds for \p Name (lower case, `_` and spaces as `-`).
std::optional<Codec> codecNamed(std::string Name) {
  for (char &C : Name)
    C = C == '_' || C == ' ' ? '-' : lowerAscii(C);
  auto Is = [&](std::initializer_list<std::string_view> Names) {
    for (std::string_view N : Names)
      if (Name == N)
        return true;
    return false;
  };
  // Python's tokenizer reads `utf-8-*` and `latin-1-*` / `iso-8859-1-*` as those codecs.
  if (Is({"utf-8", "utf8", "u8", "utf", "cp65001"}) || Name.rfind("utf-8-", 0) == 0)
    return Codec::Utf8;
  if (Is({"latin-1", "latin1", "latin", "l1", "iso-8859-1", "iso8859-1", "8859", "cp819", "iso-latin-1",
          "iso-ir-100", "csisolatin1"}) ||
      Name.rfind("latin-1-", 0) == 0 || Name.rfind("iso-8859-1-", 0) == 0 || Name.rfind("iso-latin-1-", 0) == 0)
    return Codec::Latin1;
  if (Is({"cp1252", "windows-1252", "windows1252", "1252"}))
    return Codec::Cp1252;
  if (Is({"ascii", "us-ascii", "646", "us", "ansi-x3.4-1968", "iso646-us", "cp367", "csascii"}))
    return Codec::Ascii;
  return std::nullopt;
}

/// The name a coding comment declares on \p Line: `#` then anything, then `coding` followed
/// by `:` or `=`, blanks, and the name (`[-\w.]+`).
std::optional<std::string> codingOn(std::string_view Line) {
  size_t I = Line.find_first_not_of(" \t\f");
  if (I == std::string_view::npos || Line[I] != '#')
    return std::nullopt;
  for (size_t At = Line.find("coding", I); At != std::string_view::npos; At = Line.find("coding", At + 1)) {
    size_t J = At + 6;
    if (J >= Line.size() || (Line[J] != ':' && Line[J] != '='))
      continue;
    ++J;
    while (J < Line.size() && (Line[J] == ' ' || Line[J] == '\t'))
      ++J;
    size_t B = J;
    while (J < Line.size() && (isIdentChar(Line[J]) || Line[J] == '-' || Line[J] == '.'))
      ++J;
    if (J > B)
      return std::string(Line.substr(B, J - B));
  }
  return std::nullopt;
}

/// Whether \p Line holds only blanks or a comment (Python looks at the second line only then).
bool blankOrComment(std::string_view Line) {
  size_t I = Line.find_first_not_of(" \t\f\r");
  return I == std::string_view::npos || Line[I] == '#';
}

void appendUtf8(std::string &Out, uint32_t Cp) {
  if (Cp < 0x80) {
    Out += static_cast<char>(Cp);
  } else if (Cp < 0x800) {
    Out += static_cast<char>(0xC0 | (Cp >> 6));
    Out += static_cast<char>(0x80 | (Cp & 0x3F));
  } else {
    Out += static_cast<char>(0xE0 | (Cp >> 12));
    Out += static_cast<char>(0x80 | ((Cp >> 6) & 0x3F));
    Out += static_cast<char>(0x80 | (Cp & 0x3F));
  }
}

} // namespace

std::optional<DeclaredEncoding> declaredEncoding(std::string_view Bytes) {
  if (Bytes.substr(0, 3) == "\xEF\xBB\xBF")
    Bytes.remove_prefix(3);
  size_t End1 = Bytes.find('\n');
  std::string_view First = Bytes.substr(0, End1);
  std::optional<std::string> Name = codingOn(First);
  if (!Name && End1 != std::string_view::npos && blankOrComment(First)) {
    std::string_view Rest = Bytes.substr(End1 + 1);
    Name = codingOn(Rest.substr(0, Rest.find('\n')));
  }
  if (!Name)
    return std::nullopt;
  return DeclaredEncoding{*Name, codecNamed(*Name)};
}

std::optional<std::string> decodeToUtf8(std::string_view Bytes, Codec C, uint32_t &BadLine, uint32_t &BadColumn) {
  std::string Out;
  Out.reserve(Bytes.size() + Bytes.size() / 8);
  uint32_t Line = 1, Column = 1;
  for (char Ch : Bytes) {
    auto B = static_cast<unsigned char>(Ch);
    uint32_t Cp = B;
    if (B >= 0x80) {
      if (C == Codec::Ascii || C == Codec::Utf8)
        Cp = 0; // decodeToUtf8 is not for UTF-8: any byte above 0x7F is a mistake here
      else if (C == Codec::Cp1252 && B < 0xA0)
        Cp = Cp1252High[B - 0x80];
      if (Cp == 0) {
        BadLine = Line;
        BadColumn = Column;
        return std::nullopt;
      }
    }
    appendUtf8(Out, Cp);
    if (B == '\n') {
      ++Line;
      Column = 1;
    } else {
      ++Column;
    }
  }
  return Out;
}

std::optional<std::string> encodeFromUtf8(std::string_view Text, Codec C) {
  if (C == Codec::Utf8)
    return std::string(Text);
  std::string Out;
  Out.reserve(Text.size());
  for (size_t I = 0; I < Text.size();) {
    auto B = static_cast<unsigned char>(Text[I]);
    uint32_t Cp = B;
    size_t Len = 1;
    if (B >= 0xF0) {
      return std::nullopt; // beyond the Basic Multilingual Plane: no single-byte codec has it
    } else if (B >= 0xE0 && I + 2 < Text.size()) {
      Cp = ((B & 0x0F) << 12) | ((Text[I + 1] & 0x3F) << 6) | (Text[I + 2] & 0x3F);
      Len = 3;
    } else if (B >= 0xC0 && I + 1 < Text.size()) {
      Cp = ((B & 0x1F) << 6) | (Text[I + 1] & 0x3F);
      Len = 2;
    } else if (B >= 0x80) {
      return std::nullopt;
    }
    I += Len;
    if (Cp < 0x80) {
      Out += static_cast<char>(Cp);
      continue;
    }
    if (C == Codec::Ascii)
      return std::nullopt;
    if (Cp >= 0xA0 && Cp <= 0xFF) {
      Out += static_cast<char>(Cp);
      continue;
    }
    if (C == Codec::Latin1) {
      if (Cp <= 0xFF) {
        Out += static_cast<char>(Cp);
        continue;
      }
      return std::nullopt;
    }
    size_t K = 0;
    while (K < Cp1252High.size() && Cp1252High[K] != Cp)
      ++K;
    if (K == Cp1252High.size())
      return std::nullopt;
    Out += static_cast<char>(0x80 + K);
  }
  return Out;
}

} // namespace torchlint
