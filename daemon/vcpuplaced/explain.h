/*
 * explain.h - why one vCPU is where it is, in words (explain.c).
 */
#ifndef VP_EXPLAIN_H
#define VP_EXPLAIN_H

#include <stdio.h>

struct vp_daemon;

/* Writes the explanation to @f; -ENOENT (with a message) if no such vCPU. */
int explain_vcpu(const struct vp_daemon *d, const char *vm, int vcpu, FILE *f);

#endif /* VP_EXPLAIN_H */
