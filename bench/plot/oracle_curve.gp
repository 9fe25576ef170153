# Tuner and random sampling: average slowdown and significant mistakes
# against the benchmark time spent (bench/oracle_curve.sh -p).
# Variables (gnuplot -e): datafile (columns: budget %, tuner slowdown,
# tuner mistakes %, random slowdown, random mistakes %), outfile (PNG),
# plottitle.
set terminal pngcairo size 1000,420 noenhanced
set output outfile
set multiplot layout 1,2 title plottitle
set xlabel "benchmark time (% of the exhaustive sweep)"
set grid
set key top right
set ylabel "average slowdown vs the oracle"
set arrow 1 from graph 0, first 1.03 to graph 1, first 1.03 nohead dashtype 2
plot datafile using 1:2 with linespoints title "tuner", \
     '' using 1:4 with linespoints title "random sampling"
unset arrow 1
set ylabel "significant mistakes (> 10% slower), %"
set arrow 2 from graph 0, first 5 to graph 1, first 5 nohead dashtype 2
plot datafile using 1:3 with linespoints title "tuner", \
     '' using 1:5 with linespoints title "random sampling"
unset multiplot
