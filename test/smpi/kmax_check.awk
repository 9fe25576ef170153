# Checks a hytune stats JSON (json-c pretty print) for HYTUNE_PROBE_K_MAX=CAP:
# every online key's probe range ends at max(CAP, its start k) and its
# settled k lies in it.   awk -v cap=4 -f kmax_check.awk stats.0.json
function num(line) { sub(/.*:/, "", line); sub(/,.*/, "", line); return line + 0 }
/"k_max":/ { kmax = num($0) }
/"start_k":/ { start = num($0) }
/"settled_k":/ {
    settled = num($0); keys++
    limit = start > cap ? start : cap
    if (kmax > limit || settled > kmax) {
        printf "key %d: start %d, k_max %d, settled %d (cap %d)\n", keys, start, kmax, settled, cap
        bad++
    }
}
END {
    printf "%d online keys checked, %d outside the cap\n", keys, bad
    exit (keys == 0 || bad > 0)
}
