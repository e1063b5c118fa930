# SPDX-License-Identifier: GPL-2.0
# Throughput runs (hackbench, messaging): every run's time as a dot per mode, the
# median as a bar; linear axis from 0.  Called by plots/plot.sh:
#   out='PNG' title='...' runs='FILE' med='FILE' ylabel='...' nmodes=N
# runs: "index label ms rgb" per run; med: "index label median_ms rgb",
# rgb a decimal 0xRRGGBB.
set terminal pngcairo size 900,520 font ',10' noenhanced
set output out
set title title
set ylabel ylabel
set yrange [0:*]
set xrange [0.4:nmodes + 0.6]
set grid ytics
set key off
set style fill solid 0.35 border -1
set boxwidth 0.6
plot med using 1:3:(0.6):4:xtic(2) with boxes lc rgb variable, \
	med using 1:($3 * 0.06):(sprintf('median %.0f ms', $3)) with labels, \
	runs using 1:3:4 with points pt 7 ps 1.4 lc rgb variable
