#!/bin/sh
# A tiny oracle CSV for the --oracle tests: one shape (1 node x 2 ppn), sizes
# 4 B .. MAX_BYTES in powers of two, three candidates per collective with
# times linear in the size (native 5 + b/10 + c, knomial k=2 4 + b/8,
# knomial k=4 3 + b/(5 + c), c = the collective's position in the list).
#   sh test/data/tiny_oracle.sh COLLS MAX_BYTES     e.g. allreduce,bcast 256
awk -v colls="$1" -v max="$2" 'BEGIN {
    print "coll,nodes,ppn,bytes,algorithm,k,time_us"
    n = split(colls, cl, ",")
    for (b = 4; b <= max; b *= 2)
        for (c = 0; c < n; c++) {
            printf "%s,1,2,%d,native,0,%g\n", cl[c + 1], b, 5 + b / 10 + c
            printf "%s,1,2,%d,knomial,2,%g\n", cl[c + 1], b, 4 + b / 8
            printf "%s,1,2,%d,knomial,4,%g\n", cl[c + 1], b, 3 + b / (5 + c)
        }
}'
