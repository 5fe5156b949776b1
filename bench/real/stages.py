# A Python script with four distinct stages, for bench/real-programs.sh:
# number crunching in pure Python loops, string building and regular
# expressions, sorting tuples, and JSON encoding and decoding.  Before each
# stage it appends the wall-clock time to the file $MARKS.
import json
import os
import random
import re
import sys
import time

SCALE = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


def mark():
    with open(os.environ["MARKS"], "a") as f:
        f.write("%.9f\n" % time.time())


def cpu_until(secs):
    t0 = time.process_time()
    return lambda: time.process_time() - t0 < secs


mark()
go = cpu_until(SCALE)
primes = 0
while go():
    n = 2
    sieve = [True] * 20000
    for i in range(2, 20000):
        if sieve[i]:
            primes += 1
            for j in range(i * i, 20000, i):
                sieve[j] = False

mark()
go = cpu_until(SCALE)
words = re.compile(r"[a-z]+ing\b")
hits = 0
while go():
    text = " ".join("%s%sing" % (chr(97 + i % 26), "ab" * (i % 5)) for i in range(20000))
    hits += len(words.findall(text))

mark()
go = cpu_until(SCALE)
rng = random.Random(1)
total = 0
while go():
    rows = [(rng.random(), rng.randrange(1000), str(i)) for i in range(50000)]
    rows.sort(key=lambda r: (r[1], r[0]))
    total += rows[0][1]

mark()
go = cpu_until(SCALE)
size = 0
while go():
    doc = {"items": [{"id": i, "name": "item%d" % i, "tags": ["a", "b"], "v": i * 0.5}
                     for i in range(5000)]}
    size += len(json.loads(json.dumps(doc))["items"])
print(primes, hits, total, size)
