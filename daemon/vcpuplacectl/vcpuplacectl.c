/*
 * vcpuplacectl - the command-line client of vcpuplace: its grammar, and
 * the dispatch to one ctl_*.c per subcommand family.
 *
 *   vcpuplacectl [OPTION]... COMMAND [ARG]... [OPTION]...
 *
 * Options may come anywhere on the line, as GNU tools take them: before
 * the command (as `virsh -c URI list` does), among its arguments or
 * after them; "--" ends them, so a VM named "-x" can be given.  One table
 * lists every option and one the commands with the options each takes;
 * the line is read once, then checked against the command it names.
 *
 * Exit status: 0 success, 1 bad input or failure, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcpuplacectl/ctl.h"
#include "host/hwtopo.h"

/* Usage lists a command's options in this order. */
enum opt_id {
	OPT_HELP,
	OPT_SOCKET,
	OPT_CONNECT,
	OPT_POLICIES,
	OPT_TOPOLOGY,
	OPT_SCENARIO,
	OPT_DOMAINS,
	OPT_JSON,
	OPT_FRAMES,
	NOPTS
};

#define O(id)		(1u << (id))
/* getopt_long's answer for --name: above every letter it can return */
#define LONG_BASE	256

static const struct ctl_option {
	const char *name;	/* --name */
	char letter;		/* -l */
	const char *arg;	/* its argument's name; NULL: a flag */
	const char *help;
} options[NOPTS] = {
	[OPT_HELP] = { "help", 'h', NULL,
	    "this text; after a command, only that command's" },
	[OPT_SOCKET] = { "socket", 's', "PATH",
	    "the daemon's control socket; default " VP_DEFAULT_SOCKET },
	[OPT_CONNECT] = { "connect", 'c', "URI",
	    "libvirt to connect to; default " VP_DEFAULT_URI },
	[OPT_POLICIES] = { "policies", 'p', "DIR",
	    "the profiles and policy.rng; default " VP_DEFAULT_POLICY_DIR },
	[OPT_TOPOLOGY] = { "topology", 't', "FILE.xml",
	    "an hwloc XML export instead of the live host" },
	/* -s was --scenario for plan and --socket elsewhere; it still is */
	[OPT_SCENARIO] = { "scenario", 's', "FILE.json",
	    "the VMs, busy and reserved CPUs to plan for" },
	[OPT_DOMAINS] = { "domains", 'd', "DIR",
	    "domain XML files (virsh dumpxml) to plan for, each VM's "
	    "profile chosen as the daemon chooses it under --policies" },
	[OPT_JSON] = { "json", 'j', NULL, "JSON instead of a table" },
	[OPT_FRAMES] = { "frames", 'n', "N",
	    "quit after N frames (one a tick); default: on q" },
};

static const struct ctl_command {
	const char *name;	/* "status", or two words: "policy get" */
	unsigned int opts;	/* O(id) of each option it takes, but help */
	unsigned int needs;	/* the options it cannot do without */
	unsigned int one_of;	/* it needs exactly one of these */
	const char *args;	/* its operands, for the usage */
	int min_args, max_args;	/* max -1: no limit */
	int (*run)(const struct ctl_opts *o, int argc, char **argv);
} commands[] = {
	{ "topology", O(OPT_TOPOLOGY) | O(OPT_JSON), 0, 0, "", 0, 0,
	    ctl_topology },
	{ "plan", O(OPT_TOPOLOGY) | O(OPT_SCENARIO) | O(OPT_DOMAINS) |
	    O(OPT_POLICIES) | O(OPT_JSON), 0, O(OPT_SCENARIO) | O(OPT_DOMAINS),
	    "", 0, 0, ctl_plan },
	{ "policy get", O(OPT_CONNECT) | O(OPT_POLICIES), 0, 0, "VM", 1, 1,
	    ctl_policy_get },
	{ "policy set", O(OPT_CONNECT) | O(OPT_POLICIES), 0, 0,
	    "VM PROFILE [field=value ...]", 2, -1, ctl_policy_set },
	{ "status", O(OPT_SOCKET) | O(OPT_JSON), 0, 0, "", 0, 0, ctl_status },
	{ "metrics", O(OPT_SOCKET), 0, 0, "", 0, 0, ctl_metrics },
	{ "explain", O(OPT_SOCKET), 0, 0, "VM VCPU", 2, 2, ctl_explain },
	{ "reload", O(OPT_SOCKET), 0, 0, "", 0, 0, ctl_reload },
	{ "pause", O(OPT_SOCKET), 0, 0, "", 0, 0, ctl_pause },
	{ "resume", O(OPT_SOCKET), 0, 0, "", 0, 0, ctl_resume },
	{ "top", O(OPT_SOCKET) | O(OPT_FRAMES), 0, 0, "", 0, 0, ctl_top },
};
#define NCOMMANDS	(int)(sizeof(commands) / sizeof(commands[0]))

/* An option as given: getopt_long's code for it, and its argument. */
struct given {
	int code;		/* LONG_BASE + id, or the letter */
	const char *arg;
};

/* The line, read: main() owns the arrays, argv the strings. */
struct line {
	char **pos;		/* the operands in order, command words first */
	int npos;
	struct given *given;	/* options but --help, in order */
	int ngiven;
	bool help;
	bool failed;		/* an error is printed: say no more */
	const struct ctl_command *cmd;
	const char *group;	/* a command's first word, once known */
};

/* Does @c's name begin with the words of @prefix (NULL: everything)? */
static bool
named(const struct ctl_command *c, const char *prefix)
{
	size_t n;

	if (!prefix)
		return true;
	n = strlen(prefix);
	return !strncmp(c->name, prefix, n) &&
	    (c->name[n] == '\0' || c->name[n] == ' ');
}

static void
usage_line(FILE *f, const char *lead, const struct ctl_command *c)
{
	const struct ctl_option *p;
	int i;

	fprintf(f, "%s vcpuplacectl %s", lead, c->name);
	for (i = 0; i < NOPTS; i++) {
		if (!(c->opts & O(i)))
			continue;
		p = &options[i];
		fprintf(f, c->needs & O(i) ? " --%s%s%s" : " [--%s%s%s]",
		    p->name, p->arg ? " " : "", p->arg ? p->arg : "");
	}
	fprintf(f, "%s%s\n", *c->args ? " " : "", c->args);
}

/* The usage of the commands named @prefix (NULL: all); with @verbose,
 * what their options mean, for --help. */
static void
usage(FILE *f, const char *prefix, bool verbose)
{
	unsigned int taken = O(OPT_HELP);
	char flag[64];
	int i, n = 0;

	for (i = 0; i < NCOMMANDS; i++) {
		if (!named(&commands[i], prefix))
			continue;
		usage_line(f, n++ ? "      " : "usage:", &commands[i]);
		taken |= commands[i].opts;
	}
	if (!verbose)
		return;
	fputs("\nOptions may come anywhere: before the command, among its "
	    "arguments or\nafter them; \"--\" ends them.\n", f);
	for (i = 0; i < NOPTS; i++) {
		if (!(taken & O(i)))
			continue;
		snprintf(flag, sizeof(flag), "-%c, --%s%s%s",
		    options[i].letter, options[i].name,
		    options[i].arg ? " " : "",
		    options[i].arg ? options[i].arg : "");
		fprintf(f, "  %-26s %s\n", flag, options[i].help);
	}
	fputs("See vcpuplacectl(1).\n", f);
}

/* getopt_long said '?' (opterr is 0): name the option at fault. */
static void
option_error(char **argv)
{
	const char *a = argv[optind - 1];
	int i, len, n = 0;

	if (optopt >= LONG_BASE) {
		i = optopt - LONG_BASE;
		fprintf(stderr, options[i].arg ? "vcpuplacectl: option '--%s' "
		    "needs an argument\n" : "vcpuplacectl: option '--%s' "
		    "takes no argument\n", options[i].name);
		return;
	}
	for (i = 0; optopt && i < NOPTS; i++)
		if (options[i].letter == optopt && options[i].arg) {
			fprintf(stderr, "vcpuplacectl: option '-%c' needs an "
			    "argument\n", optopt);
			return;
		}
	if (optopt) {
		fprintf(stderr, "vcpuplacectl: unknown option '-%c'\n", optopt);
		return;
	}
	/* a long one, unknown or the start of several: "--s" */
	len = (int)strcspn(a + 2, "=");
	for (i = 0; i < NOPTS; i++)
		n += !strncmp(options[i].name, a + 2, (size_t)len);
	if (n < 2) {
		fprintf(stderr, "vcpuplacectl: unknown option '%.*s'\n",
		    len + 2, a);
		return;
	}
	fprintf(stderr, "vcpuplacectl: option '%.*s' is ambiguous:", len + 2,
	    a);
	for (i = 0; i < NOPTS; i++)
		if (!strncmp(options[i].name, a + 2, (size_t)len))
			fprintf(stderr, " --%s", options[i].name);
	fputc('\n', stderr);
}

/*
 * Reads the whole line with getopt_long in RETURN_IN_ORDER mode ('-'
 * first): operands come back as code 1 in order, wherever the options
 * are.  Unlike the default, this mode does not turn into "stop at the
 * first operand" when POSIXLY_CORRECT is set.  Prints the first error and
 * returns -EINVAL; reads on to the end so the usage can name the command.
 */
static int
read_line(int argc, char **argv, struct line *l)
{
	static struct option longs[NOPTS + 1];
	char shorts[2 + 2 * NOPTS] = "-", *s = shorts + 1;
	int i, c;

	for (i = 0; i < NOPTS; i++) {
		longs[i] = (struct option){ options[i].name,
		    options[i].arg ? required_argument : no_argument, NULL,
		    LONG_BASE + i };
		if (!strchr(shorts, options[i].letter)) {
			*s++ = options[i].letter;
			if (options[i].arg)
				*s++ = ':';
		}
	}
	*s = '\0';
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		if (c == 1)
			l->pos[l->npos++] = optarg;
		else if (c == '?' && !l->failed) {
			option_error(argv);
			l->failed = true;
		} else if (c == 'h' || c == LONG_BASE + OPT_HELP)
			l->help = true;
		else if (c != '?')
			l->given[l->ngiven++] = (struct given){ c, optarg };
	}
	/* after "--": operands all */
	while (optind < argc)
		l->pos[l->npos++] = argv[optind++];
	return l->failed ? -EINVAL : 0;
}

/* Is @word the first word of @c's name? */
static bool
in_group(const struct ctl_command *c, const char *word)
{
	size_t n = strcspn(c->name, " ");

	return strlen(word) == n && !strncmp(c->name, word, n);
}

/* An error about the command words, unless one was printed already. */
static void __attribute__((format(printf, 2, 3)))
say(const struct line *l, const char *fmt, ...)
{
	va_list ap;

	if (l->failed)
		return;
	va_start(ap, fmt);
	fputs("vcpuplacectl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * Finds the command the first operands name and takes them off l->pos;
 * sets l->group once the first word is known, so that errors and --help
 * show the usage of that family.  Returns -ENOENT when the words stop
 * short ("policy"), which --help does not count as an error, and -EINVAL
 * for a word that names no command.
 */
static int
find_command(struct line *l)
{
	int i, words;

	if (l->npos == 0) {
		if (!l->help)
			say(l, "no command given");
		return -ENOENT;
	}
	for (i = 0; i < NCOMMANDS && !in_group(&commands[i], l->pos[0]); i++)
		;
	if (i == NCOMMANDS) {
		say(l, "unknown command '%s'", l->pos[0]);
		return -EINVAL;
	}
	l->group = l->pos[0];
	words = strchr(commands[i].name, ' ') ? 2 : 1;
	if (l->npos < words) {
		if (!l->help)
			say(l, "%s needs a command", l->group);
		return -ENOENT;
	}
	while (words == 2 && i < NCOMMANDS && !(in_group(&commands[i],
	    l->group) && !strcmp(commands[i].name + strlen(l->group) + 1,
	    l->pos[1])))
		i++;
	if (i == NCOMMANDS) {
		say(l, "%s: unknown command '%s'", l->group, l->pos[1]);
		return -EINVAL;
	}
	l->cmd = &commands[i];
	l->pos += words;
	l->npos -= words;
	return 0;
}

/* The option @g stands for under @c, or -1 if @c takes none such: -s is
 * whichever of --socket and --scenario @c takes. */
static int
option_for(const struct ctl_command *c, const struct given *g)
{
	int i;

	if (g->code >= LONG_BASE)
		return c->opts & O(g->code - LONG_BASE) ?
		    g->code - LONG_BASE : -1;
	for (i = 0; i < NOPTS; i++)
		if (options[i].letter == g->code && c->opts & O(i))
			return i;
	return -1;
}

static int
set_option(struct ctl_opts *o, int id, const char *arg)
{
	char *end;
	long v;

	switch (id) {
	case OPT_SOCKET:
		o->socket = arg;
		break;
	case OPT_CONNECT:
		o->uri = arg;
		break;
	case OPT_POLICIES:
		o->policy_dir = arg;
		break;
	case OPT_TOPOLOGY:
		o->topology = arg;
		break;
	case OPT_SCENARIO:
		o->scenario = arg;
		break;
	case OPT_DOMAINS:
		o->domains = arg;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_FRAMES:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 0 || v > INT_MAX) {
			fprintf(stderr, "vcpuplacectl: --frames '%s': not a "
			    "number of frames\n", arg);
			return -EINVAL;
		}
		o->frames = (int)v;
		break;
	}
	return 0;
}

/* Applies the options given, in order (the last of a kind wins), and
 * checks the command has what it needs.  Prints any error; -EINVAL. */
static int
take_options(const struct line *l, struct ctl_opts *o)
{
	const struct ctl_command *c = l->cmd;
	unsigned int seen = 0;
	int i, id;

	for (i = 0; i < l->ngiven; i++) {
		const struct given *g = &l->given[i];

		id = option_for(c, g);
		if (id < 0 && g->code >= LONG_BASE)
			fprintf(stderr, "vcpuplacectl: %s does not take --%s\n",
			    c->name, options[g->code - LONG_BASE].name);
		else if (id < 0)
			fprintf(stderr, "vcpuplacectl: %s does not take -%c\n",
			    c->name, g->code);
		if (id < 0 || set_option(o, id, g->arg) < 0)
			return -EINVAL;
		seen |= O(id);
	}
	/* "plan needs --scenario FILE.json or --domains DIR" */
	if (c->one_of && __builtin_popcount(seen & c->one_of) != 1) {
		const char *sep = "";

		fprintf(stderr, "vcpuplacectl: %s %s", c->name,
		    seen & c->one_of ? "takes only one of" : "needs");
		for (i = 0; i < NOPTS; i++)
			if (c->one_of & O(i)) {
				fprintf(stderr, "%s --%s %s", sep,
				    options[i].name, options[i].arg);
				sep = " or";
			}
		fputc('\n', stderr);
		return -EINVAL;
	}
	for (i = 0; i < NOPTS; i++)
		if (c->needs & O(i) && !(seen & O(i))) {
			fprintf(stderr, "vcpuplacectl: %s needs --%s %s\n",
			    c->name, options[i].name,
			    options[i].arg ? options[i].arg : "");
			return -EINVAL;
		}
	return 0;
}

static int
check_operands(const struct line *l)
{
	const struct ctl_command *c = l->cmd;

	if (l->npos < c->min_args) {
		fprintf(stderr, "vcpuplacectl: %s needs %s\n", c->name,
		    c->args);
		return -EINVAL;
	}
	if (c->max_args >= 0 && l->npos > c->max_args) {
		fprintf(stderr, "vcpuplacectl: %s: unexpected argument '%s'\n",
		    c->name, l->pos[c->max_args]);
		return -EINVAL;
	}
	return 0;
}

int
ctl_load_topo(const char *path, struct vp_topo **ret_topo)
{
	char err[256] = "";
	int r;

	r = path ? hwtopo_load_xml(path, ret_topo, err, sizeof(err)) :
	    hwtopo_load_host(ret_topo, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "vcpuplacectl: topology %s: %s\n",
		    path ? path : "(live host)", *err ? err : strerror(-r));
	return r;
}

int
main(int argc, char **argv)
{
	struct ctl_opts o = {
		.socket = VP_DEFAULT_SOCKET,
		.uri = VP_DEFAULT_URI,
		.policy_dir = VP_DEFAULT_POLICY_DIR,
	};
	struct line l = { 0 };
	char **pos;
	int r = 2;

	/* at most argc operands and argc options: no count to check */
	pos = l.pos = calloc((size_t)argc, sizeof(*l.pos));
	l.given = calloc((size_t)argc, sizeof(*l.given));
	if (!l.pos || !l.given) {
		fprintf(stderr, "vcpuplacectl: %s\n", strerror(ENOMEM));
		r = 1;
	} else if (read_line(argc, argv, &l) < 0) {
		find_command(&l);	/* for the usage only */
		usage(stderr, l.cmd ? l.cmd->name : l.group, false);
	} else if ((r = find_command(&l)) == -EINVAL || (r < 0 && !l.help)) {
		usage(stderr, l.group, false);
		r = 2;
	} else if (l.help) {
		usage(stdout, l.cmd ? l.cmd->name : l.group, true);
		r = 0;
	} else if (take_options(&l, &o) < 0 || check_operands(&l) < 0) {
		usage(stderr, l.cmd->name, false);
		r = 2;
	} else
		r = l.cmd->run(&o, l.npos, l.pos);
	free(pos);
	free(l.given);
	return r;
}
