// Compiling a glob into tokens, and matching with one remembered star.
#include "config/Glob.h"

namespace torchlint {

namespace {

llvm::Error globError(const std::string &Why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s", Why.c_str());
}

} // namespace

llvm::Expected<Glob> Glob::compile(std::string_view P) {
  Glob G;
  for (size_t I = 0; I < P.size();) {
    Token T;
    char C = P[I];
    if (C == '*') {
      while (I < P.size() && P[I] == '*') // `**` is `*`: one token, one backtrack point
        ++I;
      T.Star = true;
    } else if (C == '?') {
      T.Chars.set();
      ++I;
    } else if (C == '\\') {
      if (I + 1 == P.size())
        return globError("it ends with a lone `\\`");
      T.Chars.set(static_cast<unsigned char>(P[I + 1]));
      I += 2;
    } else if (C == '[') {
      size_t J = I + 1;
      bool Negate = J < P.size() && (P[J] == '!' || P[J] == '^');
      if (Negate)
        ++J;
      size_t First = J;
      // `]` right after the opening (or its `!`) is a member, so the class ends at the next one.
      size_t Close = P.find(']', First + 1);
      if (First >= P.size() || Close == std::string_view::npos)
        return globError("a `[` is never closed");
      for (size_t K = First; K < Close;) {
        auto Lo = static_cast<unsigned char>(P[K]);
        if (K + 2 < Close && P[K + 1] == '-') {
          auto Hi = static_cast<unsigned char>(P[K + 2]);
          if (Lo > Hi)
            return globError("the range `" + std::string(P.substr(K, 3)) + "` runs backwards");
          for (unsigned B = Lo; B <= Hi; ++B)
            T.Chars.set(B);
          K += 3;
        } else {
          T.Chars.set(Lo);
          ++K;
        }
      }
      if (Negate)
        T.Chars.flip();
      I = Close + 1;
    } else {
      T.Chars.set(static_cast<unsigned char>(C));
      ++I;
    }
    G.Tokens.push_back(T);
  }
  return G;
}

bool Glob::matches(std::string_view S) const {
  // The classic single-backtrack match: on a mismatch, the last star seen takes one more
  // character and matching resumes after it. An earlier star never needs to take more, as
  // the later one can absorb anything it would, so each (star, start) pair is tried once.
  size_t P = 0, I = 0;
  size_t StarP = std::string_view::npos, StarI = 0;
  const size_t N = Tokens.size();
  while (I < S.size()) {
    if (P < N && Tokens[P].Star) {
      StarP = ++P;
      StarI = I;
    } else if (P < N && Tokens[P].Chars.test(static_cast<unsigned char>(S[I]))) {
      ++P;
      ++I;
    } else if (StarP != std::string_view::npos) {
      P = StarP;
      I = ++StarI;
    } else {
      return false;
    }
  }
  while (P < N && Tokens[P].Star)
    ++P;
  return P == N;
}

} // namespace torchlint
