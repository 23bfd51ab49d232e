#!/usr/bin/env python3
"""An independent writer of the seen-cache cookie format, version 1 (SeenCacheCodec's javadoc),
from its description alone: MurmurHash3 x64 128, fingerprints, Golomb codes, header, tag.
It prints the three values of idem-core/src/test/resources/golden/seen-cache-v1.txt; the test
SeenCacheTest.formatIsPinned checks the Java codec writes the same. Run:
  python3 scripts/golden/seen_cache_v1.py | diff - idem-core/src/test/resources/golden/seen-cache-v1.txt
"""
import base64, hashlib, hmac, math

M64 = (1 << 64) - 1

def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64

def fmix(k):
    k ^= k >> 33; k = (k * 0xff51afd7ed558ccd) & M64
    k ^= k >> 33; k = (k * 0xc4ceb9fe1a85ec53) & M64
    return k ^ (k >> 33)

def murmur3_128_h1(data):
    c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
    h1 = h2 = 0
    n = len(data) // 16
    for i in range(n):
        k1 = int.from_bytes(data[16 * i:16 * i + 8], 'little')
        k2 = int.from_bytes(data[16 * i + 8:16 * i + 16], 'little')
        k1 = (rotl((k1 * c1) & M64, 31) * c2) & M64; h1 ^= k1
        h1 = (rotl(h1, 27) + h2) & M64; h1 = (h1 * 5 + 0x52dce729) & M64
        k2 = (rotl((k2 * c2) & M64, 33) * c1) & M64; h2 ^= k2
        h2 = (rotl(h2, 31) + h1) & M64; h2 = (h2 * 5 + 0x38495ab5) & M64
    tail = data[16 * n:]
    k1 = int.from_bytes(tail[:8], 'little') if tail else 0
    k2 = int.from_bytes(tail[8:], 'little') if len(tail) > 8 else 0
    if len(tail) > 8:
        h2 ^= (rotl((k2 * c2) & M64, 33) * c1) & M64
    if tail:
        h1 ^= (rotl((k1 * c1) & M64, 31) * c2) & M64
    h1 ^= len(data); h2 ^= len(data)
    h1 = (h1 + h2) & M64; h2 = (h2 + h1) & M64
    h1 = fmix(h1); h2 = fmix(h2)
    return (h1 + h2) & M64

def golomb_m(count, rng):
    if count <= 0: return 1
    p = count / rng
    if p >= 0.5: return 1
    return max(1, min(math.ceil(math.log(2 - p) / -math.log1p(-p)), 1 << 30))

class Bits:
    def __init__(self): self.bits = []
    def put(self, v, n): self.bits += [(v >> i) & 1 for i in range(n - 1, -1, -1)]
    def gamma(self, v): w = v.bit_length(); self.put(0, w - 1); self.put(v, w)
    def golomb(self, values, m):
        b = 0 if m == 1 else (m - 1).bit_length(); cutoff = (1 << b) - m; prev = -1
        for v in values:
            gap = v - prev - 1; prev = v
            self.bits += [1] * (gap // m) + [0]
            r = gap % m
            if r < cutoff: self.put(r, b - 1)
            else: self.put(r + cutoff, b)
    def bytes(self):
        bits = self.bits + [1] * (-len(self.bits) % 8)
        return bytes(int(''.join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))

def check(capacity, rng):
    mix = ((rng * 0x9E3779B97F4A7C15) ^ (capacity * 0xC2B2AE3D27D4EB4F)) & M64
    return (((mix ^ (mix >> 29)) * 0xBF58476D1CE4E5B9) & M64) >> 59

def value(capacity, rate, newer, older=(), key=None, tag=12):
    rng = math.ceil(capacity / rate)
    fp = lambda item: (murmur3_128_h1(item) * rng) >> 64
    newer = sorted({fp(i) for i in newer}); older = sorted({fp(i) for i in older} - set(newer))
    w = Bits(); w.put(11, 8); w.put(1, 2); w.put(1 if older else 0, 1); w.put(check(capacity, rng), 5)
    if older:
        w.gamma(len(newer)); w.gamma(len(older))
        w.golomb(newer, golomb_m(len(newer), rng)); w.golomb(older, golomb_m(len(older), rng))
    else:
        w.gamma(capacity - len(newer) + 1)
        w.golomb(newer, golomb_m(len(newer), rng))
    data = w.bytes()
    if key is not None:
        context = capacity.to_bytes(4, 'big') + rng.to_bytes(4, 'big')
        data += hmac.new(key, context + data, hashlib.sha256).digest()[:tag]
    return base64.urlsafe_b64encode(data).decode().rstrip('=')

def url(i):
    return b'https://example.com/article/%d' % i

def older_kept(capacity, items):
    """Replays SeenCache's ageing for distinct items added in order: returns (newer, older)."""
    rng = math.ceil(capacity / 0.01)
    fp = lambda item: (murmur3_128_h1(item) * rng) >> 64
    newer, older = [], []
    for item in items:
        f = fp(item)
        newer = sorted(newer + [f])
        while len(newer) + len(older) > capacity:
            if not older:
                older = [x for x in newer if x != f]; newer = [f]
            else:
                mix = ((f + len(older)) * 0x9E3779B97F4A7C15) & M64
                del older[(mix ^ (mix >> 32)) % len(older)]
    return newer, older

print(value(100, 0.01, [url(i) for i in range(100)]))
# 15 items into a cache of 10: the ageing is replayed on fingerprints, then written directly.
n, o = older_kept(10, [url(i) for i in range(15)])
rng = math.ceil(10 / 0.01)
w = Bits(); w.put(11, 8); w.put(1, 2); w.put(1, 1); w.put(check(10, rng), 5)
w.gamma(len(n)); w.gamma(len(o)); w.golomb(n, golomb_m(len(n), rng)); w.golomb(o, golomb_m(len(o), rng))
print(base64.urlsafe_b64encode(w.bytes()).decode().rstrip('='))
print(value(10, 0.01, [url(0)], key=b'k' * 32))
