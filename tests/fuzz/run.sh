#!/usr/bin/env bash
# Runs each libFuzzer target of tests/fuzz for a bounded time: `tests/fuzz/run.sh BUILD SECONDS`
# (what `make fuzz` does after building). Seeds: the .py files of fixtures/ and examples/ for
# lint and fixloop, tests/fuzz/seeds/<target>/ for config, lsp and cache, and every target's
# tests/fuzz/regressions/<target>/. Working corpora, logs and crashing inputs stay in BUILD/fuzz/.
# A crash, leak, timeout (10 s per input), sanitizer report or broken invariant fails the run,
# printing the path of the input that caused it.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-fuzz}
seconds=${2:-60}
out=$build/fuzz
targets=(${FUZZ_TARGETS:-lint fixloop config lsp cache})

# One folder of .py seeds from the fixtures and examples (libFuzzer reads folders, not trees).
pyseeds=$out/seeds-py
rm -rf "$pyseeds" && mkdir -p "$pyseeds"
find fixtures examples -name '*.py' -print0 | while IFS= read -r -d '' f; do
  cp "$f" "$pyseeds/$(echo "$f" | tr / _)"
done

failed=()
summary=()
for t in "${targets[@]}"; do
  bin=$out/fuzz_$t
  [ -x "$bin" ] || { echo "fuzz: $bin is missing (build the target \`fuzzers\` first)" >&2; exit 2; }
  corpus=$out/corpus/$t artifacts=$out/artifacts/$t log=$out/$t.log
  mkdir -p "$corpus" "$artifacts"
  case $t in
    lint|fixloop) seeds=("$pyseeds") ;;
    *) seeds=(tests/fuzz/seeds/$t) ;;
  esac
  [ -d tests/fuzz/regressions/$t ] && seeds+=(tests/fuzz/regressions/$t)
  echo "== fuzz_$t for ${seconds}s (log: $log)"
  # New inputs go to the first folder, the working corpus; the seeds are only read.
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  # The last status line libFuzzer printed: "#N DONE cov: C ft: F corp: ... exec/s: E rss: ...".
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  eps=$(sed -n 's/.*stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  runs=$(sed -n 's/.*stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$last")
  line=$(printf 'fuzz_%-8s exec/s: %-6s cov: %-6s ft: %-6s corpus: %-10s runs: %s' "$t" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${runs:-?}")
  if [ $rc -ne 0 ]; then
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    echo "fuzz: fuzz_$t FAILED (exit $rc); the input: ${input:-see $log}" >&2
    grep -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|fuzz invariant broken|SUMMARY' "$log" | head -5 >&2
    echo "fuzz: reproduce with: $bin ${input:-<input>}" >&2
    failed+=("fuzz_$t: ${input:-$log}")
    line="$line  FAILED"
  fi
  echo "$line"
  summary+=("$line")
done

echo "== fuzz summary (${seconds}s per target)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed:" >&2
  printf '  %s\n' "${failed[@]}" >&2
  exit 1
fi
