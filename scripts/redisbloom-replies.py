#!/usr/bin/env python3
"""Records RedisBloom's reply to each command of the differential test, byte for byte.

Reads the cases (idem-server/src/test/resources/redisbloom/cases.txt: one command a line, a blank
line between cases, '#' comments) and sends them over RESP2 to a redis-server with RedisBloom 2.6
loaded (built from RedisBloom's source on the developer's machine; neither the module nor a recipe
for it is in this repository), FLUSHALL before each case. Writes one line per command: the
command, a tab, and the raw reply with \\r, \\n, \\\\ and bytes outside printable ASCII escaped.

Usage: /usr/bin/python3 scripts/redisbloom-replies.py PORT CASES OUT
"""
import socket
import sys


def escape(data):
    out = []
    for byte in data:
        if byte == 13:
            out.append("\\r")
        elif byte == 10:
            out.append("\\n")
        elif byte == 92:
            out.append("\\\\")
        elif 32 <= byte < 127:
            out.append(chr(byte))
        else:
            out.append("\\x%02x" % byte)
    return "".join(out)


class Raw:
    """Reads whole RESP2 replies and keeps their bytes."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def need(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("server closed")
            self.buf += chunk

    def line_end(self, start):
        while True:
            i = self.buf.find(b"\r\n", start)
            if i >= 0:
                return i + 2
            self.need(len(self.buf) + 1)

    def reply_end(self, start):
        end = self.line_end(start)
        kind = self.buf[start:start + 1]
        if kind in (b"+", b"-", b":"):
            return end
        n = int(self.buf[start + 1:end - 2])
        if kind == b"$":
            if n < 0:
                return end
            self.need(end + n + 2)
            return end + n + 2
        if kind == b"*":
            for _ in range(max(n, 0)):
                end = self.reply_end(end)
            return end
        raise ValueError("unexpected reply type %r" % kind)

    def call(self, words):
        cmd = b"*%d\r\n" % len(words) + b"".join(
            b"$%d\r\n%s\r\n" % (len(w), w) for w in words)
        self.sock.sendall(cmd)
        self.need(1)
        end = self.reply_end(0)
        reply, self.buf = self.buf[:end], self.buf[end:]
        return reply


def main():
    port, cases, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    r = Raw(port)
    lines = []
    fresh = True
    for text in open(cases).read().split("\n"):
        if text.startswith("#"):
            continue
        if not text.strip():
            fresh = True
            continue
        if fresh:
            r.call([b"FLUSHALL"])
            fresh = False
        words = [w.encode() for w in text.split(" ")]
        lines.append(text + "\t" + escape(r.call(words)))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(len(lines), "replies recorded")


if __name__ == "__main__":
    main()
