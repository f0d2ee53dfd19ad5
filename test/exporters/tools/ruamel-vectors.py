"""Regenerate fixtures/exporters/ruamel-vectors.json: random plain-data documents and the exact
bytes real ruamel.yaml writes for them with conda's settings (YAML(typ="rt"),
indent(mapping=2, offset=2, sequence=4), width 80).

Run by hand (CI has no Python): Debian's `python3-ruamel.yaml` is 0.17.21, so the vectors pin
everything the emitter does except the >= 0.17.22 rule for words longer than the line (the tests
run them with `longWordsOnOwnLine: false`; the reference files cover the new rule).

    /usr/bin/python3 test/exporters/tools/ruamel-vectors.py 2026 160 > fixtures/exporters/ruamel-vectors.json

Mappings are written as {"map": [[key, value], ...]} so that key order survives JSON.parse.
"""
import io
import json
import random
import sys

import ruamel.yaml

seed, count = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
ALPHABET = list("abcxyz019 -_:#'\"=.*?!&|>%@`,[]{}~+/\\") + [
    "\n", "\t", "\r", "\x85", "\u2028", "\xa0", "\u00e9", "\u4e2d", "\U0001F600", "\ufeff", "\x7f", "\x00", "\x1b",
]
TRICKY = [
    "true", "false", "null", "~", "1.0", "3.13", "0755", "1e3", "2026-08-20", "2026-08-20T10:00:00Z", "yes", "no",
    "on", "<<", "=", "-", "- x", "a: b", "a #b", " x", "x ", "0x1F", "+1", "-1", ".inf", ".5", "1_000", "_1",
    "--- x", "... y", "?", "?x", ":", ":x", "a:", "1:2", ">=1", "<2", "*_cp313", "python 3.13.* *_cp313",
    "numpy[version='>=1.26']", "conda-forge::numpy==1.0", "", "'q'", "a'b",
]


def text():
    r = rnd.random()
    if r < 0.25:
        return rnd.choice(TRICKY)
    if r < 0.5:
        words = ["".join(rnd.choice("abcdefghij/.:-_") for _ in range(rnd.randint(1, 90))) for _ in range(rnd.randint(1, 5))]
        return rnd.choice([" ", " ", " ", "  "]).join(words)
    return "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 24)))


def key():
    r = rnd.random()
    if r < 0.6:
        return "".join(rnd.choice("abcdefgh_-") for _ in range(rnd.randint(1, 12)))
    if r < 0.65:
        return "k" * rnd.randint(118, 128)
    if r < 0.7:
        return str(rnd.randint(0, 99))
    return text()


def value(depth):
    r = rnd.random()
    if depth > 3 or r < 0.5:
        t = rnd.random()
        if t < 0.7:
            return text()
        if t < 0.8:
            return rnd.randint(-10**6, 10**12)
        if t < 0.9:
            return rnd.choice([True, False])
        return None
    if r < 0.75:
        return [value(depth + 1) for _ in range(rnd.randint(0, 3))]
    return {key(): value(depth + 1) for _ in range(rnd.randint(0, 3))}


def encode(v):
    if isinstance(v, dict):
        return {"map": [[k, encode(x)] for k, x in v.items()]}
    if isinstance(v, list):
        return [encode(x) for x in v]
    return v


yaml = ruamel.yaml.YAML(typ="rt")
yaml.indent(mapping=2, offset=2, sequence=4)
yaml.default_flow_style = False
yaml.sort_base_mapping_type_on_output = False
vectors = []
for _ in range(count):
    doc = {key(): value(0) for _ in range(rnd.randint(1, 4))} if rnd.random() < 0.85 else [value(0) for _ in range(rnd.randint(1, 3))]
    out = io.StringIO()
    yaml.dump(doc, out)
    vectors.append({"input": encode(doc), "output": out.getvalue()})
json.dump({"generator": f"ruamel.yaml {ruamel.yaml.__version__}", "seed": seed, "vectors": vectors}, sys.stdout, ensure_ascii=True)
sys.stdout.write("\n")
