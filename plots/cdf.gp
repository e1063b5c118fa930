# SPDX-License-Identifier: GPL-2.0
# One scenario: left the CDF of each mode (log latency axis), right its
# percentile bars (p50, p99, p99.9, max; log ms).  Called by plots/plot.sh:
#   out='PNG' title='...' files='...' names='...' colors='...' pct='PCTFILE'
#   xlabel='...' ymin=MS
# PCTFILE: one row per mode "name p50 p99 p99_9 max" in ms.
set terminal pngcairo size 1200,520 font ',10' noenhanced
set output out
set multiplot layout 1,2 title title
set logscale x
set format x '%g'
set xlabel xlabel
set ylabel 'fraction of samples <= x'
set yrange [0:1.02]
set ytics 0.1
set grid xtics ytics mxtics
set key bottom right box opaque
# Each bucket's cumulative fraction at its upper edge, a point per bucket
# (a mode with one bucket is a single point).
plot for [i=1:words(files)] word(files, i) using ($2 / 1e6):4 with steps lw 2 lc rgb word(colors, i) title word(names, i), \
	for [i=1:words(files)] word(files, i) using ($2 / 1e6):4 with points pt 7 ps 0.8 lc rgb word(colors, i) notitle
unset logscale x
set logscale y
set format y '%g'
# Bars start at the bottom of a log axis: a decade below the smallest.
set yrange [ymin:*]
set ytics auto
set xlabel ''
set ylabel xlabel
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set boxwidth 0.9
set key top left box opaque
plot pct using 2:xtic(1) title 'p50', '' using 3 title 'p99', '' using 4 title 'p99.9', '' using 5 title 'max'
unset multiplot
