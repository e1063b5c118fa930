# SPDX-License-Identifier: GPL-2.0
# Overview: each scenario's p99 (hackbench, messaging: median run time) relative to
# the off mode, one bar per mode, log axis; 1 = no change, 0.1 = the
# inversion goal.  Called by plots/plot.sh:
#   out='PNG' title='...' data='FILE' ncols=N colors='#rgb ...' ymin=R ymax=R
#   [ylabel='...']
# FILE: a header "scenario mode1 mode2 ..." then one row per scenario
# (off itself is the dashed line at 1, not a bar).
set terminal pngcairo size 1100,560 font ',10' noenhanced
set output out
set title title
set logscale y
set format y '%g'
if (!exists("ylabel")) ylabel = 'p99 / p99 of off (log; hackbench, messaging: median time)'
set ylabel ylabel
set grid ytics
set key top right box opaque autotitle columnhead
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.75 border -1
set boxwidth 0.9
set xtics rotate by -30
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 dt 2 lc rgb 'black' front
set arrow from graph 0, first 0.1 to graph 1, first 0.1 nohead lw 1 dt 3 lc rgb 'dark-green' front
set yrange [ymin:ymax]
nm = ncols - 1
# The ratio above each bar (clustered bars sit at $0 + offset).
plot for [i=2:ncols] data using i:xtic(1) lc rgb word(colors, i - 1), \
	for [i=2:ncols] data using ($0 + (i - 2 - (nm - 1) / 2.0) / (nm + 1.0)):(column(i) * 1.25):(sprintf('%.2g', column(i))) \
	with labels font ',9' notitle
