# SPDX-License-Identifier: GPL-2.0
# Latency histograms of one scenario, the modes overlaid, log count axis
# (OSADL style).  Called by plots/plot.sh with -e:
#   out='PNG' title='...' files='off.hist v4.hist current.hist'
#   names='off v4 current' colors='#d62728 #1f77b4 #2ca02c' xlabel='...'
# Each file is a pxutil llhist ("lower_ns upper_ns count cum_fraction").
set terminal pngcairo size 1000,560 font ',10' noenhanced
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
# Each bucket a step from its lower edge (ms on x); one line per mode.
plot for [i=1:words(files)] word(files, i) \
	using ($1 / 1e6):3 with fsteps lw 2 lc rgb word(colors, i) title word(names, i), \
	for [i=1:words(files)] word(files, i) \
	using ($1 / 1e6):3 with points pt 7 ps 0.4 lc rgb word(colors, i) notitle
