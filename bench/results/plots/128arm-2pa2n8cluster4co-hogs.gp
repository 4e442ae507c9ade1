names = 'stock pinned daemon vcpuplace oracle daemon-any vcpuplace-any'
set grid
set key top left
set xlabel 'load (% of cores)'
set title '128arm-2pa2n8cluster4co-hogs: throughput (mean, min..max of 3 seeds)'
set ylabel 'useful work (cores)'
set terminal pngcairo size 800,500
set output '128arm-2pa2n8cluster4co-hogs-throughput.png'
plot for [s=0:6] '128arm-2pa2n8cluster4co-hogs.dat' using 1:(column(2+6*s)):(column(3+6*s)):(column(4+6*s)) with yerrorlines title word(names, s+1)
set terminal svg size 800,500
set output '128arm-2pa2n8cluster4co-hogs-throughput.svg'
replot
set title '128arm-2pa2n8cluster4co-hogs: p99 wake-to-run latency'
set ylabel 'p99 (us, log)'
set logscale y
set terminal pngcairo size 800,500
set output '128arm-2pa2n8cluster4co-hogs-p99.png'
plot for [s=0:6] '128arm-2pa2n8cluster4co-hogs.dat' using 1:(column(5+6*s)):(column(6+6*s)):(column(7+6*s)) with yerrorlines title word(names, s+1)
set terminal svg size 800,500
set output '128arm-2pa2n8cluster4co-hogs-p99.svg'
replot
