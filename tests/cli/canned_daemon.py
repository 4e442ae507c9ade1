#!/usr/bin/env python3
"""A canned vcpuplaced for the CLI tests: no placement, no libvirt, just
the control socket's framing (one request line, the answer, EOF, as
daemon/vcpuplacectl/client.c reads it).

    canned_daemon.py SOCK ANSWER

Answers every request with the bytes of the file ANSWER, read again on
each connection, so a test changes the answer between two runs of the
CLI without a restart; appends each request line to SOCK.log.  The
socket is bound under a temporary name and renamed to SOCK once it
listens, so a test that waits for SOCK to exist never connects too
early.  Exits when killed, or after 60 s without a connection, so a
test that dies leaves nothing behind.
"""
import os
import socket
import sys

IDLE_S = 60


def main():
    path, answer = sys.argv[1], sys.argv[2]
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".tmp")
    srv.listen(4)
    os.rename(path + ".tmp", path)
    srv.settimeout(IDLE_S)
    while True:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            return
        with conn:
            conn.settimeout(5)
            line = b""
            while not line.endswith(b"\n"):
                got = conn.recv(4096)
                if not got:
                    break
                line += got
            with open(path + ".log", "ab") as log:
                log.write(line)
            with open(answer, "rb") as f:
                conn.sendall(f.read())


if __name__ == "__main__":
    main()
