# SPDX-License-Identifier: GPL-2.0
# Overview: each scenario's p99 (hackbench: median run time) relative to
# the off mode, one bar per mode, log axis; 1 = no change, 0.1 = the
# inversion goal.  Called by plots/plot.sh:
#   out='PNG' title='...' data='FILE' ncols=N
# FILE: a header "scenario mode1 mode2 ..." then one row per scenario.
set terminal pngcairo size 1100,560 font ',10'
set output out
set title title
set logscale y
set format y '%g'
set ylabel 'p99 / p99 of off (log; hackbench: median time)'
set grid ytics
set key top right box opaque autotitle columnhead
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.75 border -1
set boxwidth 0.9
set xtics rotate by -30
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 dt 2 lc rgb 'black' front
set arrow from graph 0, first 0.1 to graph 1, first 0.1 nohead lw 1 dt 3 lc rgb 'dark-green' front
plot for [i=2:ncols] data using i:xtic(1)
