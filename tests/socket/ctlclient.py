"""The test side of vcpuplaced's control socket: one request, the whole
answer (the protocol is one line in, one answer out, then close)."""
import socket


def read_all(s):
    """Everything the daemon sends on @s until it closes; closes @s."""
    out = b""
    while True:
        b = s.recv(1 << 16)
        if not b:
            break
        out += b
    s.close()
    return out


def ask(path, data, timeout=20.0):
    """Sends @data (bytes) to the socket at @path and reads the answer to
    EOF; returns it as text."""
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(timeout)
    s.connect(path)
    try:
        s.sendall(data)
    except BrokenPipeError:
        # refused at accept (a full table, a person over its share): the
        # daemon's one error line may already wait, closed, unread
        pass
    return read_all(s).decode("utf-8", "replace")
