# libFuzzer targets (tests/fuzz/), with AddressSanitizer and UndefinedBehaviorSanitizer.
# `make fuzz` configures a separate build folder with clang and -DTORCHLINT_FUZZ=ON, builds the
# target `fuzzers`, and runs them with tests/fuzz/run.sh.
option(TORCHLINT_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)
if(NOT TORCHLINT_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TORCHLINT_FUZZ needs clang (CC=clang-14 CXX=clang++-14), not ${CMAKE_CXX_COMPILER_ID}")
endif()

# The libraries get coverage instrumentation without libFuzzer's main; the fuzzers link it.
# A sanitizer report aborts (-fno-sanitize-recover), so libFuzzer saves the input.
set(TORCHLINT_FUZZ_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
foreach(Lib tree_sitter_python torchlint_core torchlint_rules)
  target_compile_options(${Lib} PRIVATE -fsanitize=fuzzer-no-link ${TORCHLINT_FUZZ_FLAGS})
endforeach()

# The application's sources the fuzzers drive. LLVM 14's JSON.h does not compile with clang in
# C++20 against libstdc++ 12 (llvm-project#55780: std::vector<json::Value> used while Value is
# incomplete), so whatever includes it cannot be built here in C++20: the LSP transport and
# protocol need nothing newer than C++17 and are built as such; the server, the driver and the
# JSON reports are left out (tests/fuzz/README.md).
set(TORCHLINT_APP ${CMAKE_SOURCE_DIR}/app)
add_library(torchlint_fuzz_app STATIC
  ${TORCHLINT_APP}/config/Config.cpp
  ${TORCHLINT_APP}/config/Glob.cpp
  ${TORCHLINT_APP}/config/Requirements.cpp
  ${TORCHLINT_APP}/driver/Cache.cpp
  ${TORCHLINT_APP}/driver/FixLoop.cpp
  ${TORCHLINT_APP}/lsp/Protocol.cpp
  ${TORCHLINT_APP}/lsp/Transport.cpp)
set_source_files_properties(${TORCHLINT_APP}/lsp/Protocol.cpp ${TORCHLINT_APP}/lsp/Transport.cpp
                            ${CMAKE_SOURCE_DIR}/tests/fuzz/Fuzz_lsp.cpp PROPERTIES COMPILE_OPTIONS -std=c++17)
target_include_directories(torchlint_fuzz_app PUBLIC ${TORCHLINT_APP})
target_compile_options(torchlint_fuzz_app PRIVATE -fsanitize=fuzzer-no-link ${TORCHLINT_FUZZ_FLAGS} ${TORCHLINT_WARNINGS})
target_link_libraries(torchlint_fuzz_app PUBLIC torchlint_core PRIVATE tomlplusplus::tomlplusplus)

set(TORCHLINT_FUZZERS lint fixloop config lsp cache)
foreach(Name ${TORCHLINT_FUZZERS})
  add_executable(fuzz_${Name} ${CMAKE_SOURCE_DIR}/tests/fuzz/Fuzz_${Name}.cpp
                 ${CMAKE_SOURCE_DIR}/tests/fuzz/FuzzCommon.cpp)
  target_include_directories(fuzz_${Name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz)
  target_compile_definitions(fuzz_${Name} PRIVATE TORCHLINT_FUZZER_MAIN TORCHLINT_FUZZ_LSP_SERVER=0)
  target_compile_options(fuzz_${Name} PRIVATE -fsanitize=fuzzer ${TORCHLINT_FUZZ_FLAGS} ${TORCHLINT_WARNINGS})
  target_link_options(fuzz_${Name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_${Name} PRIVATE torchlint_fuzz_app torchlint_rules)
  set_target_properties(fuzz_${Name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
endforeach()
# `cmake --build build-fuzz --target fuzzers` builds them all.
list(TRANSFORM TORCHLINT_FUZZERS PREPEND fuzz_ OUTPUT_VARIABLE TORCHLINT_FUZZ_TARGETS)
add_custom_target(fuzzers DEPENDS ${TORCHLINT_FUZZ_TARGETS})
