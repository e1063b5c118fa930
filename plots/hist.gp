# SPDX-License-Identifier: GPL-2.0
# Latency histograms of one scenario, the modes overlaid, log count axis
# (OSADL style).  Called by plots/plot.sh with -e:
#   out='PNG' title='...' files='off.hist v4.hist current.hist'
#   names='off v4 current' xlabel='...'
# Each file is a pxutil llhist ("lower_ns upper_ns count cum_fraction").
set terminal pngcairo size 1000,560 font ',10'
set output out
set title title
set logscale y
set logscale x
set format x '%g'
set xlabel xlabel
set ylabel 'samples per bucket (log)'
set grid xtics ytics mxtics
set key top right box opaque
set yrange [0.8:*]
set style fill transparent solid 0.25 border
# A bucket as a box from lower to upper edge, height its count (ms on x).
plot for [i=1:words(files)] word(files, i) \
	using (($1 + $2) / 2e6):3:(($2 - $1) / 1e6) with boxes lw 1.5 lc i title word(names, i)
