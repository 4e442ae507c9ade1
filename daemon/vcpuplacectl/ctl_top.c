/*
 * ctl_top.c - vcpuplacectl top: the host as the daemon sees it, live.
 *
 * Packages and LLCs are boxes, clusters of several cores are
 * parenthesised, cores are bracketed and every PU is a cell:
 *
 *     ( [A0  # |B1  : ] [ .    | .    ] )
 *
 * A cell names the VM (a letter, two past 26 VMs, with its colour, as
 * listed in the legend)
 * and the vCPU whose home it is ('+': more than one), then how busy the
 * PU was over the last tick (' ' . : * # in fifths), then '!' for an
 * SMT conflict: a busy
 * vCPU next to a busy sibling while its allowed set has an idle core.
 * 'h' is work that is not a managed vCPU, 'r' a reserved PU.  The data
 * is the daemon's "status" answer, refreshed every tick; q quits, arrow
 * keys (or j/k) scroll a host taller than the screen.
 */
#include <curses.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "vcpuplacectl/ctl.h"

#define CELL_W	6
#define NCOLORS	6

struct pu_cell {
	int cpu, package, llc, cluster, core;
	double busy;
	bool reserved;
	int vm;			/* index into the VM list, or -1 */
	int vcpu;
	int nvcpus;		/* vCPUs whose current PU this is */
	bool conflict;
};

struct screen {
	struct pu_cell *pu;
	int npus;
	int nvms;		/* over 26: two-letter VM codes */
	int scroll;
	int y;			/* canvas row being drawn */
};

static int
jint(json_object *o, const char *k, int dflt)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) && v ?
	    json_object_get_int(v) : dflt;
}

static const char *
jstr(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) && v ?
	    json_object_get_string(v) : "";
}

/* Canvas row @y to the screen, if visible; clipped to the width. */
static void
put(struct screen *s, int x, const char *text, attr_t attr)
{
	int row = s->y - s->scroll;

	if (row < 0 || row >= LINES || x >= COLS)
		return;
	attron(attr);
	mvaddnstr(row, x, text, COLS - x);
	attroff(attr);
}

static void
put_ch(struct screen *s, int x, chtype ch)
{
	int row = s->y - s->scroll;

	if (row >= 0 && row < LINES && x < COLS)
		mvaddch(row, x, ch);
}

static int
find_pu(const struct screen *s, int cpu)
{
	int i;

	for (i = 0; i < s->npus; i++)
		if (s->pu[i].cpu == cpu)
			return i;
	return -1;
}

/* Fills s->pu from the status' PU list and marks where vCPUs run. */
static int
load_cells(struct screen *s, json_object *st)
{
	json_object *host, *pus, *vms;
	size_t i, k;

	if (!json_object_object_get_ex(st, "host", &host) ||
	    !json_object_object_get_ex(host, "pus", &pus) ||
	    !json_object_object_get_ex(st, "vms", &vms))
		return -1;
	free(s->pu);
	s->npus = (int)json_object_array_length(pus);
	s->nvms = (int)json_object_array_length(vms);
	s->pu = calloc(s->npus ? s->npus : 1, sizeof(*s->pu));
	if (!s->pu)
		return -1;
	for (i = 0; i < (size_t)s->npus; i++) {
		json_object *p = json_object_array_get_idx(pus, i);
		struct pu_cell *c = &s->pu[i];

		c->cpu = jint(p, "cpu", -1);
		c->package = jint(p, "package", 0);
		c->llc = jint(p, "llc", 0);
		c->cluster = jint(p, "cluster", 0);
		c->core = jint(p, "core", 0);
		c->busy = json_object_get_double(json_object_object_get(p,
		    "busy"));
		c->reserved = json_object_get_boolean(json_object_object_get(p,
		    "reserved"));
		c->vm = -1;
	}
	for (i = 0; i < json_object_array_length(vms); i++) {
		json_object *vcpus = json_object_object_get(
		    json_object_array_get_idx(vms, i), "vcpus");

		for (k = 0; k < json_object_array_length(vcpus); k++) {
			json_object *c = json_object_array_get_idx(vcpus, k);
			/* its home: where vcpuplace put it, not where the
			 * kernel ran it last (that moves within the allowed
			 * set from one wake-up to the next) */
			int at = find_pu(s, jint(c, "home", jint(c, "current",
			    -1)));

			if (at < 0)
				continue;
			if (s->pu[at].vm < 0) {
				s->pu[at].vm = (int)i;
				s->pu[at].vcpu = jint(c, "vcpu", 0);
			}
			s->pu[at].nvcpus++;
			s->pu[at].conflict |= json_object_get_boolean(
			    json_object_object_get(c, "smt_conflict"));
		}
	}
	return 0;
}

static char
busy_glyph(double busy)
{
	static const char g[] = " .:*#";
	int i = (int)(busy * 5);

	return g[i < 0 ? 0 : i > 4 ? 4 : i];
}

/*
 * A VM's code in cells and legend: A..Z, or AA..ZZ on a host with more
 * than 26 VMs (a dense host is what this is for), so codes never repeat
 * below 676 VMs.
 */
static void
vm_code(const struct screen *s, int vm, char code[3])
{
	if (s->nvms <= 26) {
		code[0] = (char)('A' + vm % 26);
		code[1] = '\0';
	} else {
		code[0] = (char)('A' + vm / 26 % 26);
		code[1] = (char)('A' + vm % 26);
		code[2] = '\0';
	}
}

static attr_t
vm_attr(int vm)
{
	return has_colors() ? COLOR_PAIR(1 + vm % NCOLORS) | A_BOLD : A_BOLD;
}

static void
draw_cell(struct screen *s, int x, const struct pu_cell *c)
{
	char buf[CELL_W + 8];	/* room for what snprintf fears */
	attr_t attr = A_NORMAL;

	if (c->vm >= 0) {
		char code[3], who[8];

		vm_code(s, c->vm, code);
		/* code and vCPU in 4 columns: "A12 ", "AB12", "AB99" */
		snprintf(who, sizeof(who), "%s%d", code, c->vcpu % 100);
		snprintf(buf, sizeof(buf), "%-4.4s%c%c", who,
		    busy_glyph(c->busy), c->conflict ? '!' :
		    c->nvcpus > 1 ? '+' : ' ');
		attr = vm_attr(c->vm);
		if (c->conflict)
			attr |= A_REVERSE;
	} else {
		snprintf(buf, sizeof(buf), "%c   %c ", c->reserved ? 'r' :
		    c->busy > 0.5 ? 'h' : '.', busy_glyph(c->busy));
		attr = A_DIM;
	}
	put(s, x, buf, attr);
}

/* Width of core @first's cell group: "[" cells separated by "|" "]". */
static int
core_width(const struct screen *s, int first)
{
	int i, n = 0;

	for (i = first; i < s->npus && s->pu[i].core == s->pu[first].core; i++)
		n++;
	return 2 + n * CELL_W + (n - 1);
}

/* Draws core @first at x. */
static void
draw_core(struct screen *s, int x, int first)
{
	int i;

	put(s, x++, "[", A_NORMAL);
	for (i = first; i < s->npus && s->pu[i].core == s->pu[first].core;
	    i++) {
		if (i > first)
			put(s, x++, "|", A_NORMAL);
		draw_cell(s, x, &s->pu[i]);
		x += CELL_W;
	}
	put(s, x, "]", A_NORMAL);
}

static int
cores_in_cluster(const struct screen *s, int first)
{
	int i, n = 0;

	for (i = first; i < s->npus && s->pu[i].cluster == s->pu[first].cluster;
	    i++)
		if (i == first || s->pu[i].core != s->pu[i - 1].core)
			n++;
	return n;
}

static int
core_end(const struct screen *s, int i)
{
	int core = s->pu[i].core;

	while (i < s->npus && s->pu[i].core == core)
		i++;
	return i;
}

/*
 * The cores of the LLC starting at PU @first, flowed into rows of
 * @width columns from @x0, clusters of several cores in parentheses.
 * With @draw false it only counts the rows.  Returns the rows; *next is
 * the first PU after the LLC.
 */
static int
flow_llc(struct screen *s, int x0, int width, int first, bool draw,
    int *next)
{
	int llc = s->pu[first].llc, i = first, x = x0, rows = 1;

	while (i < s->npus && s->pu[i].llc == llc) {
		int cluster = s->pu[i].cluster, j, cw = 0;
		bool group = cores_in_cluster(s, i) > 1, open = group;

		/* a cluster that fits on a row is not split across two */
		for (j = i; j < s->npus && s->pu[j].cluster == cluster;
		    j = core_end(s, j))
			cw += core_width(s, j) + 1;
		if (group && x > x0 && x + cw + 1 > x0 + width &&
		    cw + 1 <= width) {
			x = x0;
			rows++;
			if (draw)
				s->y++;
		}

		while (i < s->npus && s->pu[i].cluster == cluster) {
			cw = core_width(s, i);

			if (x + cw + open + group > x0 + width && x > x0) {
				x = x0;
				rows++;
				if (draw)
					s->y++;
			}
			if (open) {
				if (draw)
					put(s, x, "(", A_NORMAL);
				x++;
				open = false;
			}
			if (draw)
				draw_core(s, x, i);
			i = core_end(s, i);
			x += cw + 1;
		}
		if (group) {
			if (draw)
				put(s, x - 1, ")", A_NORMAL);
			x += 1;
		}
	}
	*next = i;
	return rows;
}

static void
box_line(struct screen *s, int x, int w, chtype l, chtype r, const char *t)
{
	int i;

	put_ch(s, x, l);
	for (i = 1; i < w - 1; i++)
		put_ch(s, x + i, ACS_HLINE);
	put_ch(s, x + w - 1, r);
	if (t)
		put(s, x + 2, t, A_BOLD);
}

static void
draw_sides(struct screen *s, int x, int w, int rows)
{
	int i;

	for (i = 0; i < rows; i++, s->y++) {
		put_ch(s, x, ACS_VLINE);
		put_ch(s, x + w - 1, ACS_VLINE);
	}
	s->y -= rows;
}

/* One LLC box at @x, @w wide; returns the PU after it. */
static int
draw_llc(struct screen *s, int x, int w, int first)
{
	char title[64];
	int next, rows = flow_llc(s, x + 2, w - 4, first, false, &next);

	snprintf(title, sizeof(title), " LLC %d ", s->pu[first].llc);
	box_line(s, x, w, ACS_ULCORNER, ACS_URCORNER, title);
	s->y++;
	draw_sides(s, x, w, rows);
	flow_llc(s, x + 2, w - 4, first, true, &next);
	s->y++;
	box_line(s, x, w, ACS_LLCORNER, ACS_LRCORNER, NULL);
	s->y++;
	return next;
}

static int
package_rows(struct screen *s, int w, int first)
{
	int i = first, rows = 0, next;

	while (i < s->npus && s->pu[i].package == s->pu[first].package) {
		rows += 2 + flow_llc(s, 4, w - 8, i, false, &next);
		i = next;
	}
	return rows;
}

static int
draw_package(struct screen *s, int w, int first)
{
	char title[64];
	int i = first, rows = package_rows(s, w, first);

	snprintf(title, sizeof(title), " package %d ", s->pu[first].package);
	box_line(s, 0, w, ACS_ULCORNER, ACS_URCORNER, title);
	s->y++;
	draw_sides(s, 0, w, rows);
	while (i < s->npus && s->pu[i].package == s->pu[first].package)
		i = draw_llc(s, 2, w - 4, i);
	box_line(s, 0, w, ACS_LLCORNER, ACS_LRCORNER, NULL);
	s->y++;
	return i;
}

static void
draw_legend(struct screen *s, json_object *vms)
{
	size_t i;
	int x = 0;

	for (i = 0; i < json_object_array_length(vms); i++) {
		json_object *vm = json_object_array_get_idx(vms, i);
		json_object *pol = json_object_object_get(vm, "policy");
		char buf[320], code[3];
		int len;

		vm_code(s, (int)i, code);
		len = snprintf(buf, sizeof(buf), "%s %s (%s, %zu vCPUs)",
		    code, jstr(vm, "name"), jstr(pol, "profile"),
		    json_object_array_length(json_object_object_get(vm,
		    "vcpus")));
		if (x && x + len + 2 > COLS) {
			x = 0;
			s->y++;
		}
		put(s, x, buf, vm_attr((int)i));
		x += len + 2;
	}
	s->y += 2;
}

static void
draw(struct screen *s, json_object *st, const char *sock)
{
	json_object *vms = json_object_object_get(st, "vms");
	json_object *host = json_object_object_get(st, "host");
	char head[512];
	int i = 0, w = COLS < 40 ? 40 : COLS;

	erase();
	s->y = 0;
	snprintf(head, sizeof(head), "vcpuplace top  %s  tick %d  VMs %zu  "
	    "SMT conflicts %d%s  (q quits; %s)", jstr(host, "hostname"),
	    jint(st, "tick", 0), json_object_array_length(vms),
	    jint(st, "smt_conflicts", 0), json_object_get_boolean(
	    json_object_object_get(st, "dry_run")) ? "  dry run" : "", sock);
	put(s, 0, head, A_REVERSE);
	s->y += 2;
	draw_legend(s, vms);
	while (i < s->npus)
		i = draw_package(s, w, i);
	refresh();
}

static void
show_error(const char *msg)
{
	erase();
	mvaddnstr(0, 0, msg, COLS);
	mvaddstr(2, 0, "retrying every second; q quits");
	refresh();
}

static int
loop(const char *sock, int once)
{
	struct screen s = { 0 };
	int tick_ms = 1000, ch, frames = 0;

	for (;;) {
		json_object *st = NULL;
		char *text;

		if (client_request(sock, "status", &text) == 0) {
			st = json_tokener_parse(text);
			free(text);
		}
		if (st && load_cells(&s, st) == 0) {
			tick_ms = jint(st, "tick_ms", 1000);
			draw(&s, st, sock);
		} else {
			show_error("vcpuplaced does not answer on the socket");
			tick_ms = 1000;
		}
		json_object_put(st);
		if (once && ++frames >= once)
			break;
		timeout(tick_ms);
		ch = getch();
		if (ch == 'q' || ch == 'Q')
			break;
		if (ch == KEY_DOWN || ch == 'j')
			s.scroll++;
		if ((ch == KEY_UP || ch == 'k') && s.scroll > 0)
			s.scroll--;
		if (ch == KEY_NPAGE)
			s.scroll += LINES / 2;
		if (ch == KEY_PPAGE)
			s.scroll = s.scroll > LINES / 2 ?
			    s.scroll - LINES / 2 : 0;
	}
	free(s.pu);
	return 0;
}

int
ctl_top(const struct ctl_opts *o, int argc, char **argv)
{
	char *text;
	int c, r;

	(void)argc;
	(void)argv;
	/* fail before taking the screen, so the error stays readable */
	if (client_request(o->socket, "status", &text) < 0)
		return 1;
	free(text);
	setlocale(LC_ALL, "");
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		static const short fg[NCOLORS] = { COLOR_GREEN, COLOR_CYAN,
			COLOR_YELLOW, COLOR_MAGENTA, COLOR_BLUE, COLOR_RED };

		start_color();
		use_default_colors();
		for (c = 0; c < NCOLORS; c++)
			init_pair((short)(1 + c), fg[c], -1);
	}
	r = loop(o->socket, o->frames);
	endwin();
	return r;
}
