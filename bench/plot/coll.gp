# Collective latency per message size for the three selection modes.
# Variables (gnuplot -e): datafile (columns: bytes, mpich us, offline us,
# hybrid us), outfile (PNG), plottitle.
set terminal pngcairo size 900,550 noenhanced
set output outfile
set title plottitle
set logscale xy 2
set format x "%.0b%B"
set xlabel "message size (bytes)"
set ylabel "latency (us, max over ranks)"
set grid
set key top left
plot datafile using 1:2 with linespoints title "MPICH selection", \
     '' using 1:3 with linespoints title "hytune offline table", \
     '' using 1:4 with linespoints title "hytune hybrid"
