# SPDX-License-Identifier: GPL-2.0
# One scenario: left each mode's tail CDF (1 - CDF, log over log: p99 is
# where it crosses 0.01), right its percentile bars (p50, p99, p99.9, max;
# log ms).  Called by plots/plot.sh:
#   out='PNG' title='...' files='...' names='...' colors='...' pct='PCTFILE'
#   xlabel='...' ymin=MS
# PCTFILE: one row per mode "name p50 p99 p99_9 max" in ms.
set terminal pngcairo size 1200,520 font ',10' noenhanced
set output out
set multiplot layout 1,2 title title
set logscale x
set format x '%g'
set xlabel xlabel
set ylabel 'fraction of samples above x (1 - CDF, log)'
set logscale y
set format y '%g'
set yrange [*:1.5]
set grid xtics ytics mxtics
set key top right box opaque
# The tail as 1 - CDF at each bucket's upper edge (the last bucket, 0, is
# off the log axis): p99 is where a line crosses 0.01, p99.9 at 0.001.
# Each line also starts at its first bucket's lower edge, where all the
# samples lie above (1): a mode whose samples share one bucket has no
# other point on the log axis, and with every mode so (one sample each,
# as in a short run) gnuplot would have nothing to plot and fail.
set arrow 1 from graph 0, first 0.01 to graph 1, first 0.01 nohead dt 3 lc rgb 'gray40'
set arrow 2 from graph 0, first 0.001 to graph 1, first 0.001 nohead dt 3 lc rgb 'gray40'
plot for [i=1:words(files)] word(files, i) using ($2 / 1e6):(1 - $4) with steps lw 2 lc rgb word(colors, i) title word(names, i), \
	for [i=1:words(files)] word(files, i) using ($2 / 1e6):(1 - $4) with points pt 7 ps 0.4 lc rgb word(colors, i) notitle, \
	for [i=1:words(files)] word(files, i) using ($1 / 1e6):(column(0) == 0 ? 1 : 1/0) with points pt 7 ps 0.4 lc rgb word(colors, i) notitle
unset arrow 1
unset arrow 2
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
