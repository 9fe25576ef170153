#!/bin/sh
# MPICH loads the selection files hytune writes, and runs what they choose.
#   sh test/mpi/tune_mpich_json.sh    (B, MPIEXEC set by test/run.sh)
# 1. Files choosing recursive doubling / pairwise for Reduce_scatter_block:
#    MPICH's calls of a user-defined reduction (a timing-free signature of the
#    algorithm) equal those with the algorithm forced through its variable,
#    and differ from MPICH's own choice.  Every other collective's results
#    are checked under the file.
# 2. Every MPICH algorithm the tuner lists as a candidate, written as the
#    winner of its collective: MPICH loads the file and the collectives run.
# 3. Malformed files (JSON syntax; an algorithm MPICH does not know; a file
#    covering one collective only) make MPICH fail: the check can fail.
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
S=$B/test/mpi/test_mpich_sel-plain
W=$B/test/unit/test_mpich_json
fail() { echo "FAIL: $*"; exit 1; }
sig() { "$@" 2>&1 | grep '^sig rank' || true; }

def=$(sig $MPIEXEC -n 3 $S sig)
[ -n "$def" ] || fail "no signature"
echo "MPICH's own choice: $def"
for pair in recursive_doubling pairwise; do
    $W write "$d/$pair.json" "reduce_scatter_block=$pair,allreduce=recursive_doubling@64,bcast=binomial@1024" ||
        fail "write $pair"
    ref=$(MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM=$pair sig $MPIEXEC -n 3 $S sig)
    out=$(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$d/$pair.json $MPIEXEC -n 3 $S sig 2>&1)
    echo "$out" | grep -q 'test_mpich_sel: [0-9]* checks, 0 failed' || fail "$pair: $out"
    got=$(echo "$out" | grep '^sig rank')
    echo "file choosing $pair: $got"
    [ -n "$ref" ] && [ "$got" = "$ref" ] || fail "$pair: file gives '$got', variable gives '$ref'"
    [ "$got" != "$def" ] || fail "$pair: same as MPICH's own choice"
done

# every candidate MPICH offers, as a winner
cands=$($MPIEXEC -n 2 $B/test/mpi/test_mpich_sel mpit | sed -n 's/^cand //p')
[ "$(echo "$cands" | wc -l)" -ge 10 ] || fail "few candidates: $cands"
i=0
while :; do
    spec=
    for c in $(echo "$cands" | cut -d' ' -f1 | sort -u); do
        a=$(echo "$cands" | awk -v c="$c" -v i="$i" '$1 == c { if (n++ == i) print $2 }')
        [ -n "$a" ] && spec="$spec${spec:+,}$c=$a@4096"
    done
    [ -n "$spec" ] || break
    $W write "$d/c$i.json" "$spec" || fail "write $spec"
    out=$(MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$d/c$i.json $MPIEXEC -n 2 $S sig 2>&1)
    echo "$out" | grep -q 'test_mpich_sel: [0-9]* checks, 0 failed' || fail "$spec: $out"
    echo "loaded and ran: $spec"
    i=$((i + 1))
done
[ $i -ge 3 ] || fail "only $i candidate files"

# malformed files are refused
printf '{"collective=allreduce":{' >"$d/syntax.json"
sed 's/MPIR_Reduce_scatter_block_intra_pairwise/MPIR_Reduce_scatter_block_intra_bogus/' \
    "$d/pairwise.json" >"$d/unknown.json"
echo '{"collective=allreduce":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}}}' >"$d/one.json"
for f in syntax unknown one; do
    if MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$d/$f.json timeout 60 $MPIEXEC -n 2 $S sig \
        >"$d/out" 2>&1; then
        fail "MPICH accepted $f.json"
    fi
    echo "refused: $f.json ($(grep -m1 -E 'Assertion|error|Abort' "$d/out"))"
done
echo "tune_mpich_json: ok"
