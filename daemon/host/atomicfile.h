/*
 * atomicfile.h - a whole file replaced at once: written beside itself
 * under a name nobody can guess or pre-create, then renamed over it.
 */
#ifndef VP_HOST_ATOMICFILE_H
#define VP_HOST_ATOMICFILE_H

#include <sys/types.h>

#include "core/vcpuplace.h"

/*
 * Replaces @path with @text (borrowed, NUL-ended), mode @mode whatever the
 * umask.  The temporary file is made with mkostemp() (O_EXCL: a symlink or
 * file already at its name is never opened) in @path's folder, so the
 * rename stays on one filesystem; a symlink at @path itself is replaced,
 * not followed.  0 or -errno (-ENAMETOOLONG, the open, write or rename's
 * error); on failure @path is untouched and the temporary file removed.
 */
int atomicfile_write(const char *path, const char *text, mode_t mode)
	VP_MUST_CHECK;

#endif
