names = 'stock pinned daemon daemon-cores scx sis-core greedy'
set grid
set key top left
set xlabel 'load (% of cores)'
set title 'epyc-corona-hogs: throughput (mean, min..max of the seeds)'
set ylabel 'useful work (cores)'
set terminal svg size 900,560
set output 'epyc-corona-hogs-throughput.svg'
plot for [s=0:6] 'epyc-corona-hogs.dat' using 1:(column(2+6*s)):(column(3+6*s)):(column(4+6*s)) with yerrorlines title word(names, s+1)
set title 'epyc-corona-hogs: p99 wake-to-run latency'
set ylabel 'p99 (us, log)'
set logscale y
set output 'epyc-corona-hogs-p99.svg'
plot for [s=0:6] 'epyc-corona-hogs.dat' using 1:(column(5+6*s)):(column(6+6*s)):(column(7+6*s)) with yerrorlines title word(names, s+1)
