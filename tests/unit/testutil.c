/*
 * testutil.c - helpers shared by the unit tests.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "host/hwtopo.h"
#include "testutil.h"

const char *const test_topo_files[] = {
	"128arm-2pa2n8cluster4co.xml",
	"AMD-1Ah-Zen5StrixPoint-RyzenAI9HX370.xml",
	"Intel-RaptorLake-Corei7-1370P.xml",
	"coral-lassen.xml",
	"epyc-corona.xml",
	"g4dnmetal.xml",
	"knl-snc4-flat-hwloc1.xml",
	"memorysidecaches.xml",
	"nvidia-dgx-gb10.xml",
};
const int test_ntopo = sizeof(test_topo_files) / sizeof(test_topo_files[0]);

char *topo_path(const char *file)
{
	const char *dir = getenv("VP_TOPOLOGY_DIR");
	char *path;

	if (!dir || !*dir)
		dir = "tests/topologies";
	ck_assert_int_ge(asprintf(&path, "%s/%s", dir, file), 0);
	return path;
}

struct vp_topo *load_topo(const char *file)
{
	struct vp_topo *t = NULL;
	char *path = topo_path(file);
	int r;

	r = hwtopo_load_xml(path, &t, NULL, 0);
	ck_assert_msg(r == 0, "hwtopo_load_xml(%s) = %d", path, r);
	ck_assert_ptr_nonnull(t);
	free(path);
	return t;
}

struct vp_topo *load_synth(const char *desc)
{
	struct vp_topo *t = NULL;
	int r;

	r = hwtopo_load_synthetic(desc, &t);
	ck_assert_msg(r == 0, "hwtopo_load_synthetic(%s) = %d", desc, r);
	ck_assert_ptr_nonnull(t);
	return t;
}

char *hwloc_calc(const char *file, const char *args)
{
	char *path = topo_path(file), *cmd, *out = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int c;

	ck_assert_int_ge(asprintf(&cmd, "hwloc-calc -i '%s' %s 2>/dev/null",
	    path, args), 0);
	f = popen(cmd, "r");
	ck_assert_msg(f != NULL, "cannot run %s", cmd);
	while ((c = fgetc(f)) != EOF) {
		if (len + 2 > cap) {
			cap = cap ? cap * 2 : 256;
			out = realloc(out, cap);
			ck_assert_ptr_nonnull(out);
		}
		out[len++] = (char)c;
	}
	pclose(f);
	if (!out)
		out = strdup("");
	out[len] = '\0';
	while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
		out[--len] = '\0';
	free(cmd);
	free(path);
	return out;
}

int hwloc_count(const char *file, const char *type)
{
	char args[128], *out, *end;
	long n = 0;

	snprintf(args, sizeof(args), "--number-of %s all", type);
	out = hwloc_calc(file, args);
	if (*out) {
		n = strtol(out, &end, 10);
		ck_assert_msg(*end == '\0' && n >= 0,
		    "hwloc-calc %s on %s printed '%s'", args, file, out);
	}
	free(out);
	return (int)n;
}

int os2pu(const struct vp_topo *t, unsigned int os)
{
	int pu = topo_pu_of_os(t, os);

	ck_assert_msg(pu != VP_PU_NONE, "OS CPU %u not in the model", os);
	ck_assert_int_lt(pu, t->npus);
	return pu;
}

void os_range(const struct vp_topo *t, struct vp_cpuset *s,
    unsigned int first, unsigned int last)
{
	unsigned int os;

	for (os = first; os <= last; os++)
		cpuset_set(s, os2pu(t, os));
}

bool core_idle(const struct vp_topo *t, const struct vp_cpuset *busy,
    int pu)
{
	const struct vp_core *c = &t->core[t->pu[pu].core];

	return !cpuset_intersects_range(busy, c->first_pu, c->npus);
}

bool core_inside(const struct vp_topo *t, const struct vp_cpuset *s, int pu)
{
	const struct vp_core *c = &t->core[t->pu[pu].core];

	return cpuset_count_range(s, c->first_pu, c->npus) == c->npus;
}

void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

int rng_below(struct rng *r, int n)
{
	return (int)((rng_next(r) >> 33) % (uint64_t)n);
}

void rng_set(struct rng *r, const struct vp_topo *t, int pct,
    struct vp_cpuset *s)
{
	int pu;

	cpuset_zero(s);
	for (pu = 0; pu < t->npus; pu++)
		if (rng_below(r, 100) < pct)
			cpuset_set(s, pu);
}

void tview_init(struct tview *tv, const struct vp_topo *t)
{
	memset(tv, 0, sizeof(*tv));
	features_default(&tv->feat);
	cpuset_zero(&tv->busy);
	ck_assert_int_eq(idlemask_init(&tv->idle, t), 0);
	tv->v.topo = t;
	tv->v.idle = &tv->idle;
	tv->v.busy = &tv->busy;
	tv->v.feat = &tv->feat;
	tv->v.probes = 0;
	idlemask_rebuild(&tv->idle, t, &tv->busy);
}

void tview_sync(struct tview *tv)
{
	idlemask_rebuild(&tv->idle, tv->v.topo, &tv->busy);
	tv->v.probes = 0;
}

void tview_release(struct tview *tv)
{
	idlemask_release(&tv->idle);
}

/* <root>/sched/features, or <root>/sched itself: @rel "" */
static void
features_path(char *buf, size_t len, const char *root, const char *rel)
{
	ck_assert_int_lt(snprintf(buf, len, "%s/sched%s", root, rel), (int)len);
}

void sched_features_put(const char *root, const char *line)
{
	char dir[4096], path[4096];
	FILE *f;

	features_path(dir, sizeof(dir), root, "");
	features_path(path, sizeof(path), root, "/features");
	if (remove(path) < 0)		/* a file or an empty dir */
		ck_assert_int_eq(errno, ENOENT);
	if (!line)
		return;
	ck_assert_msg(mkdir(dir, 0700) == 0 || errno == EEXIST, "mkdir %s: %s",
	    dir, strerror(errno));
	if (!strcmp(line, SCHED_FEATURES_UNREADABLE)) {
		ck_assert_int_eq(mkdir(path, 0700), 0);
		return;
	}
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(line, f);
	fclose(f);
}

void sched_features_remove(const char *root)
{
	char path[4096];

	features_path(path, sizeof(path), root, "/features");
	remove(path);
	features_path(path, sizeof(path), root, "");
	remove(path);
	remove(root);
}

void tree_put(const char *root, const char *rel, const char *text)
{
	char path[4096], *slash;
	FILE *f;

	ck_assert_int_lt(snprintf(path, sizeof(path), "%s/%s", root, rel),
	    (int)sizeof(path));
	if (remove(path) < 0)		/* a file or an empty dir */
		ck_assert_int_eq(errno, ENOENT);
	if (!text)
		return;
	/* the folders on the way, each made if missing */
	for (slash = strchr(path + strlen(root) + 1, '/'); slash;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ck_assert_msg(mkdir(path, 0700) == 0 || errno == EEXIST,
		    "mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	if (!strcmp(text, TREE_UNREADABLE)) {
		ck_assert_int_eq(mkdir(path, 0700), 0);
		return;
	}
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static int
tree_rm_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void tree_remove(const char *root)
{
	nftw(root, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}
