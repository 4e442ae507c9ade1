/*
 * status.h - the daemon's state as JSON (status.c, json-c).
 */
#ifndef VP_STATUS_H
#define VP_STATUS_H

struct vp_daemon;
struct json_object;

/* The "status" document; the caller puts it. */
struct json_object *status_json(const struct vp_daemon *d);
/* Writes status_json() atomically to --status-file, if one was given
 * (atomicfile_write(): a planted symlink is never followed); -errno. */
int status_write(const struct vp_daemon *d);

#endif /* VP_STATUS_H */
