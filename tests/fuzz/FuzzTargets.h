// The libFuzzer targets of tests/fuzz, one file each (Fuzz_<name>.cpp), as functions: each
// runs one input and aborts through require() when an invariant breaks. The fuzzers call them
// from LLVMFuzzerTestOneInput (compiled in with TORCHLINT_FUZZER_MAIN); RegressionTest.cpp
// runs the saved inputs of regressions/<name>/ and seeds/<name>/ through them in the test
// suite. This header stays C++17 (see Fuzz_lsp.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace torchlint::fuzz {

void fuzzLint(const uint8_t *Data, size_t Size);
void fuzzFixLoop(const uint8_t *Data, size_t Size);
void fuzzConfig(const uint8_t *Data, size_t Size);
void fuzzLsp(const uint8_t *Data, size_t Size);
void fuzzCache(const uint8_t *Data, size_t Size);

/// Prints "fuzz invariant broken: WHAT" and aborts when \p Holds is false.
void require(bool Holds, const char *What);
inline void require(bool Holds, const std::string &What) { require(Holds, What.c_str()); }

/// Lints \p Text as a Python file with every rule and checks the diagnostics (FuzzCommon.h).
void lintAndCheck(std::string_view Text);

} // namespace torchlint::fuzz
