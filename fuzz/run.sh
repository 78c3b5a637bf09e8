#!/bin/sh
# fuzz/run.sh PYTHON BUILD_DIR SECONDS: run each fuzz target for SECONDS against the sanitized build in BUILD_DIR
# (build_core.py --sanitize --build-dir BUILD_DIR), starting from fuzz/corpus/<target>. New inputs that reach
# new code go to BUILD_DIR/corpus/<target>; a crash is written to BUILD_DIR/crashes/ and stops the run (exit 1).
# Add what a crash found to fuzz/corpus/<target> once fixed: tests/ingest and tests/profile run those corpora
# through both paths. fuzz/<target>.dict, where there is one, is the target's libFuzzer dictionary.
set -eu
python=$1
build=$2
seconds=$3
runtime=$("$python" -c "import atheris, os; print(os.path.join(atheris.path(), 'asan_with_fuzzer.so'))")
mkdir -p "$build/crashes"
for target in records histogram scanner; do
    mkdir -p "$build/corpus/$target"
    dict=""
    if [ -f "fuzz/$target.dict" ]; then dict="-dict=fuzz/$target.dict"; fi
    echo "fuzz: $target for $seconds s" >&2
    ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 PYTHONMALLOC=malloc LD_PRELOAD="$runtime" \
        RIDGELINE_FUZZ_BUILD="$build" "$python" "fuzz/fuzz_$target.py" \
        -max_total_time="$seconds" -max_len=70000 -rss_limit_mb=4096 -artifact_prefix="$build/crashes/$target-" $dict \
        "$build/corpus/$target" "fuzz/corpus/$target"
done
