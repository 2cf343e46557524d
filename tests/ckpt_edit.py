#!/usr/bin/env python3
"""Make hostile copies of a safetensors checkpoint for the robustness tests (json + struct only).

usage: ckpt_edit.py IN OUT OP [ARGS...]
  truncate N             keep the first N bytes
  header TEXT            replace the JSON header by TEXT (length field fixed up)
  dtype NAME DTYPE       set a tensor's dtype string
  overlap NAME           move tensor NAME to start at the previous tensor's start (same size)
  beyond NAME            push tensor NAME's end past the data region
  rename OLD NEW         rename a tensor
  reshape NAME           reverse a tensor's shape ([a, b] -> [b, a]; same data)
  meta KEY VALUE         set a metadata string (e.g. the stored config)
  fill NAME VALUE        set every element of a tensor to VALUE (nan, inf, 1e30, ...)
  info                   print the header length, the data offset and the file size
The header is re-written compactly and padded with spaces to a multiple of 8 bytes; the data
region is copied unchanged unless the operation edits it.
"""
import json
import struct
import sys


def read(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n]), bytearray(raw[8 + n:]), n


def write(path, header, data):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + bytes(data))


def tensor_names(header):
    return [k for k in header if k != "__metadata__"]


def main(argv):
    src, dst, op, args = argv[1], argv[2], argv[3], argv[4:]
    if op == "truncate":
        open(dst, "wb").write(open(src, "rb").read()[: int(args[0])])
        return
    if op == "header":
        raw = open(src, "rb").read()
        (n,) = struct.unpack("<Q", raw[:8])
        text = args[0].encode()
        open(dst, "wb").write(struct.pack("<Q", len(text)) + text + raw[8 + n:])
        return
    header, data, n = read(src)
    if op == "info":
        print(n, 8 + n, 8 + n + len(data))
        return
    if op == "dtype":
        header[args[0]]["dtype"] = args[1]
    elif op == "overlap":
        names = tensor_names(header)
        i = names.index(args[0])
        prev = header[names[i - 1]]["data_offsets"]
        b, e = header[args[0]]["data_offsets"]
        header[args[0]]["data_offsets"] = [prev[0], prev[0] + (e - b)]
    elif op == "beyond":
        b, e = header[args[0]]["data_offsets"]
        header[args[0]]["data_offsets"] = [b, len(data) + 4]
    elif op == "rename":
        header = {(args[1] if k == args[0] else k): v for k, v in header.items()}
    elif op == "reshape":
        header[args[0]]["shape"] = header[args[0]]["shape"][::-1]
    elif op == "meta":
        header["__metadata__"][args[0]] = args[1]
    elif op == "fill":
        b, e = header[args[0]]["data_offsets"]
        value = float(args[1])
        data[b:e] = struct.pack("<f", value) * ((e - b) // 4)
    else:
        sys.exit("unknown operation " + op)
    write(dst, header, data)


if __name__ == "__main__":
    main(sys.argv)
