/* `hytune report`: the statistics JSON (HYTUNE_STATS=PATH writes
 * PATH.json, docs/statistics.md) as a person reads it, several files side by
 * side, CSV rows, gnuplot PNGs. */
#ifndef HYT_REPORT_H
#define HYT_REPORT_H

/* argv[0] is "report"; 0, 1 on a bad file or a failed plot, 2 on bad usage. */
int hyt_report_main(int argc, char **argv);

#endif
