// SPDX-License-Identifier: GPL-2.0
/*
 * sis_core_debugfs.c - a test hook, never posted: kvm-test appends it to
 * kernel/sched/fair.c (kp_test_hook in lib.sh), as a commit on top of the
 * series, so that it sees SIS_CORE's static helpers.
 *
 * /sys/kernel/debug/sis_core is the SIS_CORE state of CPU 0's LLC.
 *   read:   "mask <cpulist>", "has_idle_cores <0|1>", "nr_idle_scan <n>",
 *           "span <cpulist>", one per line
 *   write:  "clear"    empty the mask
 *           "set N"    set the bits of CPU N's core, as its idle entry would
 *           "flag V"   has_idle_cores = V
 *           "scan N"   nr_idle_scan = N (SIS_UTIL's budget, until the next
 *                      periodic balance of the LLC domain rewrites it)
 *           "claim N"  claim CPU N's core as a wake-up would; -EBUSY if the
 *                      claim fails
 * The boot tests (tests/sis_rules.c) build a mask state with it, wake a
 * task, and read what the wake-up left.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

static int sis_core_dbg_show(struct seq_file *m, void *v)
{
	struct sched_domain *sd;
	struct cpumask *idle;

	rcu_read_lock();
	sd = sis_core_llc(0);
	idle = sis_core_cpus(sd);
	if (idle)
		seq_printf(m, "mask %*pbl\nhas_idle_cores %d\nnr_idle_scan %d\nspan %*pbl\n",
			   cpumask_pr_args(idle),
			   READ_ONCE(sd->shared->has_idle_cores),
			   READ_ONCE(sd->shared->nr_idle_scan),
			   cpumask_pr_args(sched_domain_span(sd)));
	rcu_read_unlock();
	return 0;
}

static ssize_t sis_core_dbg_write(struct file *file, const char __user *ubuf,
				  size_t cnt, loff_t *ppos)
{
	struct sched_domain *sd;
	struct cpumask *idle;
	ssize_t ret = cnt;
	char buf[32];
	int n;

	if (cnt >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';

	rcu_read_lock();
	sd = sis_core_llc(0);
	idle = sis_core_cpus(sd);
	if (!idle)
		ret = -ENODEV;
	else if (!strncmp(buf, "clear", 5))
		cpumask_clear(idle);
	else if (sscanf(buf, "set %d", &n) == 1 && n >= 0 && n < nr_cpu_ids &&
		 cpu_online(n))
		sis_core_set(sd, idle, n);
	else if (sscanf(buf, "flag %d", &n) == 1)
		WRITE_ONCE(sd->shared->has_idle_cores, !!n);
	else if (sscanf(buf, "scan %d", &n) == 1 && n >= 0)
		WRITE_ONCE(sd->shared->nr_idle_scan, n);
	else if (sscanf(buf, "claim %d", &n) == 1 && n >= 0 && n < nr_cpu_ids &&
		 cpu_online(n))
		ret = sis_core_claim(sd, idle, n) ? ret : -EBUSY;
	else
		ret = -EINVAL;
	rcu_read_unlock();
	return ret;
}

static int sis_core_dbg_open(struct inode *inode, struct file *file)
{
	return single_open(file, sis_core_dbg_show, NULL);
}

static const struct file_operations sis_core_dbg_fops = {
	.open		= sis_core_dbg_open,
	.read		= seq_read,
	.write		= sis_core_dbg_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init sis_core_dbg_init(void)
{
	debugfs_create_file("sis_core", 0644, NULL, NULL, &sis_core_dbg_fops);
	return 0;
}
late_initcall(sis_core_dbg_init);
