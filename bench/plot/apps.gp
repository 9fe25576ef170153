# Speedup of hytune (offline table, hybrid) over the MPICH selection per
# proxy application.  Variables (gnuplot -e): datafile (columns: app,
# offline speedup, hybrid speedup), outfile (PNG), plottitle.
set terminal pngcairo size 900,500 noenhanced
set output outfile
set title plottitle
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "speedup (MPICH time / hytune time)"
set yrange [0:*]
set grid ytics
set key outside right top
set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2
plot datafile using 2:xtic(1) title "offline table", '' using 3 title "hybrid"
