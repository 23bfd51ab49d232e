#!/usr/bin/env python3
"""Records the golden files of RedisBloom's Bloom filters that Idem's tests check against.

It talks to a running redis-server with RedisBloom 2.6 loaded (built from RedisBloom's source on
the developer's machine; neither the module nor a recipe for it is in this repository) and, for each
filter below, writes to the output directory:

  NAME.chunks   the BF.SCANDUMP of the filter: one line per chunk, "iterator<TAB>base64(bytes)",
                the header first (iterator 1), then every data chunk with the iterator that
                SCANDUMP replied with it (what BF.LOADCHUNK takes);
  NAME.adds     the reply (0 or 1) of each BF.ADD, in order, as one line of digits;
  NAME.probes   the reply of BF.EXISTS for the items absent-0 .. absent-4999, as one line of digits.

For cuckoo filters (names starting cf-) the same files, with CF.SCANDUMP, CF.ADD (or CF.ADDNX
where said) and CF.EXISTS; replies that are errors are written as E; and for cf-mixed also
NAME.dels (CF.DEL of item-100 .. item-149) and NAME.counts (CF.COUNT of item-0 .. item-299).

Usage: /usr/bin/python3 scripts/redisbloom-golden.py PORT OUT_DIR
(Debian's python3-redis; the server: redis-server --port PORT --loadmodule PATH/redisbloom.so).
"""
import base64
import os
import sys

import redis

# name, the BF.RESERVE arguments after the key (None: the first BF.ADD creates it), items to add
FILTERS = [
    ("scaling", ["0.01", "1000"], 3500),
    ("nonscaling", ["0.001", "500", "NONSCALING"], 400),
    ("expansion4", ["0.1", "100", "EXPANSION", "4"], 1000),
    ("default", None, 250),
    ("tight", ["0.0000001", "200"], 300),
    ("loose", ["0.25", "64"], 200),
]


# name, the CF.RESERVE arguments after the key (None: the first CF.ADD creates it), items to add
CUCKOOS = [
    ("cf-basic", ["1000"], 800),
    ("cf-grow", ["100", "EXPANSION", "2"], 600),
    ("cf-bucket4", ["1000", "BUCKETSIZE", "4", "MAXITERATIONS", "50"], 900),
    ("cf-full", ["64", "EXPANSION", "0"], 200),
    ("cf-default", None, 300),
    ("cf-mixed", ["500"], 300),
]


def reply_digit(r, *command):
    try:
        return str(int(r.execute_command(*command)))
    except redis.ResponseError:
        return "E"


def write(out, name, suffix, text):
    with open(os.path.join(out, name + suffix), "w") as f:
        f.write(text + "\n")


def record_cuckoos(r, out):
    for name, reserve, count in CUCKOOS:
        key = "golden:" + name
        r.delete(key)
        if reserve is not None:
            r.execute_command("CF.RESERVE", key, *reserve)
        adds = "".join(reply_digit(r, "CF.ADD", key, "item-%d" % i) for i in range(count))
        if name == "cf-mixed":
            # Duplicates, adds only if absent, then deletes: counts move up and down.
            adds += "".join(reply_digit(r, "CF.ADD", key, "item-%d" % i) for i in range(50))
            adds += "".join(reply_digit(r, "CF.ADDNX", key, "item-%d" % i) for i in range(100))
            dels = "".join(reply_digit(r, "CF.DEL", key, "item-%d" % i) for i in range(100, 150))
            counts = "".join(
                reply_digit(r, "CF.COUNT", key, "item-%d" % i) for i in range(count))
            write(out, name, ".dels", dels)
            write(out, name, ".counts", counts)
        probes = "".join(reply_digit(r, "CF.EXISTS", key, "absent-%d" % i) for i in range(5000))
        lines = []
        it = 0
        while True:
            it, data = r.execute_command("CF.SCANDUMP", key, it)
            if it == 0:
                break
            lines.append("%d\t%s" % (it, base64.b64encode(data).decode("ascii")))
        write(out, name, ".chunks", "\n".join(lines))
        write(out, name, ".adds", adds)
        write(out, name, ".probes", probes)
        info = r.execute_command("CF.INFO", key)
        print(name, dict(zip(info[0::2], info[1::2])), "chunks:", len(lines))


def main():
    port, out = int(sys.argv[1]), sys.argv[2]
    r = redis.Redis(port=port)
    # Each module is a flat list of fields: name, bf, ver, 20628, ...
    modules = {}
    for m in r.execute_command("MODULE", "LIST"):
        fields = dict(zip(m[0::2], m[1::2]))
        modules[fields[b"name"]] = fields[b"ver"]
    assert modules.get(b"bf") is not None, "RedisBloom is not loaded"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "VERSION"), "w") as f:
        f.write("RedisBloom module version %d\n" % modules[b"bf"])
    for name, reserve, count in FILTERS:
        key = "golden:" + name
        r.delete(key)
        if reserve is not None:
            r.execute_command("BF.RESERVE", key, *reserve)
        adds = "".join(str(r.execute_command("BF.ADD", key, "item-%d" % i)) for i in range(count))
        probes = "".join(
            str(r.execute_command("BF.EXISTS", key, "absent-%d" % i)) for i in range(5000))
        lines = []
        it = 0
        while True:
            it, data = r.execute_command("BF.SCANDUMP", key, it)
            if it == 0:
                break
            lines.append("%d\t%s" % (it, base64.b64encode(data).decode("ascii")))
        with open(os.path.join(out, name + ".chunks"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(out, name + ".adds"), "w") as f:
            f.write(adds + "\n")
        with open(os.path.join(out, name + ".probes"), "w") as f:
            f.write(probes + "\n")
        print(name, "links:", r.execute_command("BF.INFO", key, "FILTERS"), "chunks:", len(lines))
    record_cuckoos(r, out)


if __name__ == "__main__":
    main()
