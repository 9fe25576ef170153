#!/bin/sh
# The online choice's set-up gate (online/choose.h, hyt_choice_setup) under
# SimGrid: 16 ranks as 4 nodes x 4 of cluster-small, a table
# (test/smpi/online_setup_table.json) whose rule knomial:2 has composition:2
# in its shortlist, both predicted alike, and a new communicator priced at
# 10 us for Allreduce, 4 us for Bcast (the node and leader communicators:
# 20 and 8 us).  For COLL in allreduce, bcast (COUNT 4, the root of Bcast
# rotating), HYTUNE_HOT_CALLS=16, HYTUNE_DRIFT_INTERVAL=16:
# - 40 calls: the choice at call 16 skips the composition ("set-up not
#   repaid", its repaid call past 40) and never runs it;
# - 300 calls: the same skip, then a drift check past the repaid call
#   reopens the choice (setup_opens 1, two choices) and the composition is
#   measured there, after a drift window and never before one;
# every call exact (test_online_choose), every rank's statistics identical
# (test_online_statscmp).
#   online_setup.sh        (B, SMPIRUN, SMPI, PLAT from test/run.sh)
set -u
d=$(mktemp -d /tmp/online-setup.XXXXXX)
trap 'rm -rf "$d"' EXIT
. bench/lib.sh
hostfile 4 4 >"$d/hf"
export HYTUNE_HOT_CALLS=16 HYTUNE_DRIFT_INTERVAL=16 HYTUNE_MODE=hybrid
export HYTUNE_TABLE="$PWD/test/smpi/online_setup_table.json" HYTUNE_STATS="$d/s.%r"
for case in allreduce:20 bcast:8; do
    coll=${case%:*} price=${case#*:}
    for calls in 40 300; do
        rm -f "$d"/s.*
        # shellcheck disable=SC2086
        $SMPIRUN -np 16 -platform "$PLAT/cluster-small.xml" -hostfile "$d/hf" $SMPI \
            "$B/test/smpi/test_online_choose" $coll 4 $calls >"$d/out" 2>&1
        if ! grep -q ' 0 wrong, .* ranks agree$' "$d/out" ||
            ! "$B/test/unit/test_online_statscmp" "$d"/s.*.json >"$d/cmp" 2>&1; then
            cat "$d/out" "$d/cmp"
            echo "online_setup.sh: $coll x $calls: a wrong result or the ranks apart"
            exit 1
        fi
        python3 - "$d/s.0.json" $coll $calls $price <<'PY' || { grep -v 'checks, 0 failed' "$d/out"; exit 1; }
import json, sys
path, coll, calls, price = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
keys = json.load(open(path))["communicators"][0]["keys"]
o = [k["online"] for k in keys if "online" in k][0]
comp = [c for c in o["candidates"] if c["algorithm"] == "composition"][0]
kinds = [(p["kind"], p.get("algorithm")) for p in o["probes"]]
first_comp = next((i for i, p in enumerate(kinds) if p == ("choice", "composition")), None)
first_drift = next((i for i, p in enumerate(kinds) if p[0] == "drift"), None)
if calls == 40:
    ok = (comp["status"] == "set-up not repaid" and comp["setup_us"] == price and
          comp["setup_repaid_call"] > calls and first_comp is None and o["setup_opens"] == 0)
else:
    ok = (o["setup_opens"] == 1 and o["choices"] == 2 and comp["status"] == "measured" and
          comp["setup_us"] == price and
          first_comp is not None and first_drift is not None and first_drift < first_comp)
print("%s x %d: composition %s, setup_us %s, repaid at call %s, %d choices, %d reopened "
      "for a repaid set-up, windows %s" % (coll, calls, comp["status"], comp.get("setup_us"),
      comp.get("setup_repaid_call"), o["choices"], o["setup_opens"],
      " ".join("%s:%s" % p for p in kinds)))
sys.exit(0 if ok else 1)
PY
    done
done
exit 0
