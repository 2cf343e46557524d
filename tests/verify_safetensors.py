#!/usr/bin/env python3
"""Manual cross-check of a .safetensors file with nothing but the standard library.

Reads the file the way `numpy + json` users do (u64 little-endian length, json.loads of the
header, raw little-endian float32 data), applies the reference reader's validation rules
(100 MB header limit, offsets sorted with no holes or overlaps, end of last tensor = end of
file, size = 4 * prod(shape)), and prints each tensor. Not part of `make test`.

    python3 tests/verify_safetensors.py FILE [--pattern]

--pattern additionally checks the values written by the generator in this script's
companion C snippet (see the report): element i of the k-th tensor is
float32(i * 0.37 - 2.5 + k).
"""
import json
import struct
import sys
from array import array


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n <= 100_000_000, "header too large"
    assert 8 + n <= len(raw), "header length beyond file"
    assert n % 8 == 0, "header not padded to 8 bytes"
    header = json.loads(raw[8 : 8 + n].decode("utf-8"))
    data = raw[8 + n :]
    meta = header.pop("__metadata__", {})
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in meta.items())
    spans = sorted((v["data_offsets"], k) for k, v in header.items())
    cursor = 0
    tensors = {}
    for (b, e), name in spans:
        info = header[name]
        assert info["dtype"] == "F32", info
        assert b == cursor and e >= b, f"{name}: offsets {b},{e} at cursor {cursor}"
        numel = 1
        for d in info["shape"]:
            numel *= d
        assert e - b == 4 * numel, f"{name}: size mismatch"
        values = array("f")
        values.frombytes(data[b:e])
        if sys.byteorder != "little":
            values.byteswap()
        tensors[name] = (info["shape"], values)
        cursor = e
    assert cursor == len(data), "data region not exactly covered"
    return meta, list(header.keys()), tensors


def main():
    meta, order, tensors = read(sys.argv[1])
    for k, v in meta.items():
        print(f"meta {k!r} = {v!r}")
    for k, name in enumerate(order):
        shape, values = tensors[name]
        print(f"tensor {name!r} shape {shape} first values {list(values[:4])}")
        if "--pattern" in sys.argv:
            for i, x in enumerate(values):
                (want,) = struct.unpack("<f", struct.pack("<f", i * 0.37 - 2.5 + k))
                assert x == want, f"{name}[{i}] = {x}, expected {want}"
    print("OK", len(tensors), "tensors,", len(meta), "metadata entries")


if __name__ == "__main__":
    main()
