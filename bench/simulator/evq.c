/*
 * evq.c - the event queue: a binary min-heap on (time, sequence).
 *
 * The sequence number makes simultaneous events pop in the order they
 * were pushed, so a run is a pure function of its seed.  Cancelled PU
 * and timer events are not removed; they carry a generation number
 * that the consumer compares (lazy deletion, cheaper than a search).
 */
#include <errno.h>
#include <stdlib.h>

#include "sim.h"

int
evq_init(struct evq *q)
{
	q->cap = 1024;
	q->n = 0;
	q->seq = 0;
	q->h = malloc(q->cap * sizeof(*q->h));
	return q->h ? 0 : -ENOMEM;
}

void
evq_release(struct evq *q)
{
	free(q->h);
	q->h = NULL;
	q->n = q->cap = 0;
}

static bool
before(const struct event *a, const struct event *b)
{
	return a->t_ns < b->t_ns || (a->t_ns == b->t_ns && a->seq < b->seq);
}

int
evq_push(struct evq *q, uint64_t t_ns, enum ev_type type, int arg,
    uint32_t gen)
{
	struct event e = {
		.t_ns = t_ns, .seq = q->seq++, .type = type, .arg = arg,
		.gen = gen,
	};
	int i;

	if (q->n == q->cap) {
		struct event *h = realloc(q->h, 2 * q->cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		q->h = h;
		q->cap *= 2;
	}
	for (i = q->n++; i > 0 && before(&e, &q->h[(i - 1) / 2]);
	    i = (i - 1) / 2)
		q->h[i] = q->h[(i - 1) / 2];
	q->h[i] = e;
	return 0;
}

bool
evq_pop(struct evq *q, struct event *ret)
{
	struct event last;
	int i = 0, c;

	if (q->n == 0)
		return false;
	*ret = q->h[0];
	last = q->h[--q->n];
	for (;;) {
		c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->h[c + 1], &q->h[c]))
			c++;
		if (!before(&q->h[c], &last))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	q->h[i] = last;
	return true;
}
