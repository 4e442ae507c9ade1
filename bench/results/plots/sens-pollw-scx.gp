names = 'g4dnmetal/hackbench g4dnmetal/tbench epyc-corona/hackbench epyc-corona/tbench power9-lassen/hackbench power9-lassen/tbench knl/hackbench knl/tbench memsidecache/hackbench memsidecache/tbench raptorlake/hackbench raptorlake/tbench strixpoint/hackbench strixpoint/tbench'
set grid
set key outside right
set xlabel 'polling sibling weight'
set ylabel 'scx / stock throughput'
set title 'scx over stock, hackbench and tbench at 125 %'
set terminal svg size 1000,560
set output 'sens-pollw-scx.svg'
plot for [i=0:13] 'sens-pollw-scx.dat' index i using 1:2 with linespoints title word(names, i+1), 1 with lines lw 2 lc 'black' title 'break-even'
