/*
 * reload.h - SIGHUP and the "reload" command (reload.c).
 */
#ifndef VP_RELOAD_H
#define VP_RELOAD_H

struct vp_daemon;

/* Rereads the policies and the topology, keeping placements. */
void reload_all(struct vp_daemon *d);

#endif /* VP_RELOAD_H */
