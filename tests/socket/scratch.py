"""Scratch folders that processes of other uids can reach: uid 65534 in
the socket tests' permission checks, QEMU (libvirt-qemu) in the
integration tests.  The checkout itself may sit under a folder only
root can enter (/root is 0700), so nothing such a process needs may be
read from there: it is copied into one of these folders instead."""
import os
import shutil
import tempfile


def _reachable(path):
    """True if every folder from / down to @path lets others through."""
    path = os.path.realpath(path)
    while True:
        try:
            if not os.stat(path).st_mode & 0o001:
                return False
        except OSError:
            return False
        if path == "/":
            return True
        path = os.path.dirname(path)


def mkdtemp(prefix):
    """A new 0755 folder under $TMPDIR, or under /tmp when $TMPDIR is
    not reachable by others; the caller removes it."""
    for base in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm"):
        if _reachable(base):
            path = tempfile.mkdtemp(prefix=prefix, dir=base)
            os.chmod(path, 0o755)
            return path
    raise RuntimeError("no temporary folder that other users can reach "
                       "(tried $TMPDIR, /tmp, /var/tmp, /dev/shm)")


def copy_in(src, folder, mode=0o644):
    """Copies file @src into @folder (made 0755 if missing) with @mode;
    returns the copy's path."""
    os.makedirs(folder, exist_ok=True)
    os.chmod(folder, 0o755)
    dst = os.path.join(folder, os.path.basename(src))
    shutil.copyfile(src, dst)
    os.chmod(dst, mode)
    return dst
