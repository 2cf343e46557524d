#!/usr/bin/python3
"""The shapes of ./bench in PyTorch, printed as the same table; --compare runs both side by side.

    /usr/bin/python3 scripts/bench_torch.py [--threads 1,2] [--runs 5] [--only toy,...]
    /usr/bin/python3 scripts/bench_torch.py --compare [--bench build/opt/bin/bench] ...

Needs the Debian packages python3-torch and libopenblas0-openmp; never part of `make test`.
The models mirror src/models (pre-LN encoder/decoder, RoPE on self-attention, dropout 0.1,
label smoothing 0.1, AdamW, global-norm clipping; the llama shape with RMSNorm, SwiGLU and no
biases) and the batches are the same as bench.c's.
Every measurement runs in a child process of its own (its peak RSS is its own). --compare
alternates one C run and one PyTorch run per repetition, so both see the same machine load,
and prints the medians and their ratio (C / PyTorch; higher is better for C).

Both sides get the same OpenMP waiting (--wait; PyTorch's Debian build uses libgomp too):
by default the C tools' own, a short spin then sleep (OMP_WAIT_POLICY=passive
GOMP_SPINCOUNT=3000, src/core/runtime.h). `--wait short-spin,libgomp` gives PyTorch
libgomp's default instead (a 3 ms spin: fastest on an idle machine, many times slower when
other processes use the cores, as spinning threads hold the cores the working ones need).

OpenBLAS 0.3.21 does not know recent Xeons and falls back to its slow generic (Prescott)
kernels, so unless --blas-core detect is given the PyTorch children run with
OPENBLAS_CORETYPE=SkylakeX on AVX-512 machines (Haswell on AVX2 ones); the core actually
used is printed.
"""
import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time

SHAPES = {  # name: the same fields as SHAPES[] in src/tools/bench.c
    "toy": dict(label="toy translator d64 h4 2+2 ff256 B64", model="translator", d=64, heads=4, enc=2, dec=2,
                ff=256, B=64, V_src=95, V_tgt=76, src=(6, 24), tgt=(6, 22), T=0, steps=10),
    "multi30k": dict(label="multi30k-sized d256 h8 3+3 ff1024 B64 V8k", model="translator", d=256, heads=8, enc=3,
                     dec=3, ff=1024, B=64, V_src=8000, V_tgt=8000, src=(8, 18), tgt=(8, 18), T=0, steps=3),
    "lm": dict(label="lm d128 h4 2L ff512 B8 T512 V1k", model="lm", d=128, heads=4, enc=0, dec=2, ff=512, B=8,
               V_src=1000, V_tgt=1000, src=(0, 0), tgt=(0, 0), T=512, steps=3),
    "llama": dict(label="lm llama d128 h4 2L swiglu352 B8 T512 V1k", model="lm", d=128, heads=4, enc=0, dec=2, ff=352,
                  B=8, V_src=1000, V_tgt=1000, src=(0, 0), tgt=(0, 0), T=512, steps=3, llama=True),
    # the wide language models: GELU, a 32-row learned position table that wraps, no dropout
    "lm256": dict(label="lm d256 h4 4L ff1024 B8 T256 gelu", model="lm", d=256, heads=4, enc=0, dec=4, ff=1024, B=8,
                  V_src=76, V_tgt=76, src=(0, 0), tgt=(0, 0), T=256, steps=3, pos="learned", act="gelu", p=0.0,
                  smoothing=0.0),
    "lm768": dict(label="lm d768 h12 2L ff3072 B4 T256 gelu", model="lm", d=768, heads=12, enc=0, dec=2, ff=3072, B=4,
                  V_src=76, V_tgt=76, src=(0, 0), tgt=(0, 0), T=256, steps=2, pos="learned", act="gelu", p=0.0,
                  smoothing=0.0),
    "lm768x4": dict(label="lm d768 h12 4L ff3072 B8 T128 gelu", model="lm", d=768, heads=12, enc=0, dec=4, ff=3072,
                    B=8, V_src=76, V_tgt=76, src=(0, 0), tgt=(0, 0), T=128, steps=2, pos="learned", act="gelu", p=0.0,
                    smoothing=0.0),
}
for _s in SHAPES.values():  # the defaults of the first three: RoPE, ReLU, dropout and label smoothing 0.1
    _s.setdefault("pos", "rope"), _s.setdefault("act", "relu"), _s.setdefault("p", 0.1), _s.setdefault("smoothing", 0.1)
LEARNED_ROWS = 32  # model.max_len's default; positions wrap around the table (model.pos_wrap)


def model_flops_per_token(s):
    """As bench.c: 6 per weight of every matrix product + 12 L T d for attention; 0 for translators."""
    if s["model"] != "lm":
        return 0.0
    d, L = s["d"], s["dec"]
    ffn = (3 if s.get("llama") else 2) * d * s["ff"]  # swiglu: gate, up and down
    return 6.0 * (L * (4 * d * d + ffn) + d * s["V_tgt"]) + 12.0 * L * s["T"] * d


ATT = dict(B=8, H=8, T=256, D=32)
PAD, BOS, EOS = 0, 2, 3


WAITS = {  # --wait: OpenMP waiting as environment variables
    "short-spin": dict(OMP_WAIT_POLICY="passive", GOMP_SPINCOUNT="3000"),   # the C tools' default
    "passive": dict(OMP_WAIT_POLICY="passive", GOMP_SPINCOUNT="0"),        # sleep at once
    "libgomp": dict(GOMP_SPINCOUNT="300000"),                               # libgomp's default, ~3 ms
}


def wait_env(wait):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    env.update(WAITS[wait])
    return env


def blas_env(choice, wait):
    env = wait_env(wait)
    if choice == "detect":
        return env
    if choice == "auto":
        flags = open("/proc/cpuinfo").read()
        choice = "SkylakeX" if " avx512f" in flags else "Haswell" if " avx2" in flags else None
    if choice:
        env["OPENBLAS_CORETYPE"] = choice
        env.pop("OPENBLAS_L2_SIZE", None)
    return env


# --- the child: one measurement in PyTorch ------------------------------------------------

def child(kind, name, threads, runs):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    torch.manual_seed(1)

    def token(b, t, step, V):
        return EOS + 1 + (b * 131 + t * 31 + step * 17) % (V - EOS - 1)

    def make_batch(s, step):
        B = s["B"]
        if s["model"] == "lm":
            T = s["T"]
            ids = torch.tensor([[token(b, t, step, s["V_src"]) for t in range(T + 1)] for b in range(B)])
            return None, ids[:, :T].contiguous(), ids[:, 1:].contiguous(), B * T
        (s0, s1), (t0, t1) = s["src"], s["tgt"]
        Ts, Tt = s1 + 1, t1 + 1
        src = torch.zeros(B, Ts, dtype=torch.long)
        tin = torch.zeros(B, Tt, dtype=torch.long)
        tout = torch.zeros(B, Tt, dtype=torch.long)
        tokens = 0
        for b in range(B):
            ns = s0 + (7 * b) % (s1 - s0 + 1)
            nt = t0 + (5 * b + 3) % (t1 - t0 + 1)
            src[b, :ns] = torch.tensor([token(b, t, step, s["V_src"]) for t in range(ns)])
            src[b, ns] = EOS
            ids = torch.tensor([token(b, t + 100, step, s["V_tgt"]) for t in range(nt)])
            tin[b, 0] = BOS
            tin[b, 1:nt + 1] = ids
            tout[b, :nt] = ids
            tout[b, nt] = EOS
            tokens += ns + 1 + nt + 1
        return src, tin, tout, tokens

    def dropout(x, p, training):  # p = 0: no op at all (F.dropout would still sweep the tensor)
        return F.dropout(x, p, training) if p > 0 else x

    def rope_tables(T, D, base=10000.0):
        inv = base ** (-torch.arange(0, D, 2, dtype=torch.float64) / D)
        ang = torch.arange(T, dtype=torch.float64)[:, None] * inv[None, :]
        return torch.cos(ang).float(), torch.sin(ang).float()

    def rope(x, cs, sn):  # x (B,H,T,D): rotate pairs (2i, 2i+1)
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack((x1 * cs - x2 * sn, x1 * sn + x2 * cs), dim=-1).flatten(-2)

    class RMSNorm(nn.Module):  # torch 1.13 has no nn.RMSNorm
        def __init__(self, d):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))
        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight
    class SwiGLU(nn.Module):
        def __init__(self, d, ff):
            super().__init__()
            self.gate, self.up, self.down = nn.Linear(d, ff, bias=False), nn.Linear(d, ff, bias=False), nn.Linear(ff, d, bias=False)
        def forward(self, x):
            return self.down(F.silu(self.gate(x)) * self.up(x))
    def norm(d, llama):
        return RMSNorm(d) if llama else nn.LayerNorm(d)
    class MHA(nn.Module):
        def __init__(self, d, h, bias=True):
            super().__init__()
            self.h = h
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=bias) for _ in range(4))

        def forward(self, xq, xkv, mask, rot, p):
            B, Tq, d = xq.shape
            Tk, h = xkv.shape[1], self.h
            q = self.q(xq).view(B, Tq, h, -1).transpose(1, 2)
            k = self.k(xkv).view(B, Tk, h, -1).transpose(1, 2)
            v = self.v(xkv).view(B, Tk, h, -1).transpose(1, 2)
            if rot is not None:
                q, k = rope(q, *rot[0]), rope(k, *rot[1])
            s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
            if mask is not None:
                s = s + mask
            a = dropout(torch.softmax(s, dim=-1), p, self.training)
            return self.o(torch.matmul(a, v).transpose(1, 2).reshape(B, Tq, d))

    class Layer(nn.Module):
        def __init__(self, d, h, ff, cross, act, llama):
            super().__init__()
            self.self_attn = MHA(d, h, not llama)
            self.cross_attn = MHA(d, h, not llama) if cross else None
            self.norms = nn.ModuleList(norm(d, llama) for _ in range(3 if cross else 2))
            self.ffn = SwiGLU(d, ff) if llama else \
                nn.Sequential(nn.Linear(d, ff), nn.GELU() if act == "gelu" else nn.ReLU(), nn.Linear(ff, d))

        def forward(self, x, mask, rot, memory, memory_mask, p):
            h = self.norms[0](x)
            x = x + dropout(self.self_attn(h, h, mask, rot, p), p, self.training)
            if self.cross_attn is not None:
                h = self.norms[1](x)
                x = x + dropout(self.cross_attn(h, memory, memory_mask, None, p), p, self.training)
            return x + dropout(self.ffn(self.norms[-1](x)), p, self.training)

    class Model(nn.Module):
        def __init__(self, s):
            super().__init__()
            d, h = s["d"], s["heads"]
            self.s, self.p = s, s["p"]
            self.src_embed = nn.Embedding(s["V_src"], d)
            self.pos_table = nn.Embedding(LEARNED_ROWS, d) if s["pos"] == "learned" else None
            self.tgt_embed = nn.Embedding(s["V_tgt"], d) if s["model"] == "translator" else None
            llama = s.get("llama", False)
            self.enc = nn.ModuleList(Layer(d, h, s["ff"], False, s["act"], llama) for _ in range(s["enc"]))
            self.dec = nn.ModuleList(Layer(d, h, s["ff"], s["model"] == "translator", s["act"], llama)
                                     for _ in range(s["dec"]))
            self.enc_norm, self.dec_norm = norm(d, llama), norm(d, llama)
            self.generator = nn.Linear(d, s["V_tgt"], bias=not llama)

        def stack(self, layers, norm, x, mask, rot, memory=None, memory_mask=None):
            x = dropout(x, self.p, self.training)
            for layer in layers:
                x = layer(x, mask, rot, memory, memory_mask, self.p)
            return norm(x)

        def forward(self, src, tin):
            d, H = self.s["d"], self.s["heads"]
            scale = math.sqrt(d)
            Tt = tin.shape[1]
            causal = torch.full((Tt, Tt), float("-inf")).triu(1)
            cs, sn = rope_tables(max(Tt, src.shape[1] if src is not None else 0), d // H)
            rot_t = ((cs[:Tt], sn[:Tt]),) * 2
            if src is None and self.pos_table is not None:  # lm, learned positions (no translator uses them here)
                x = self.src_embed(tin) * scale + self.pos_table(torch.arange(Tt) % LEARNED_ROWS)
                y = self.stack(self.dec, self.dec_norm, x, causal, None)
            elif src is None:  # lm
                y = self.stack(self.dec, self.dec_norm, self.src_embed(tin) * scale, causal, rot_t)
            else:
                Ts = src.shape[1]
                src_mask = torch.zeros(src.shape).masked_fill(src == PAD, float("-inf"))[:, None, None, :]
                tgt_mask = causal + torch.zeros(tin.shape).masked_fill(tin == PAD, float("-inf"))[:, None, None, :]
                rot_s = ((cs[:Ts], sn[:Ts]),) * 2
                memory = self.stack(self.enc, self.enc_norm, self.src_embed(src) * scale, src_mask, rot_s)
                y = self.stack(self.dec, self.dec_norm, self.tgt_embed(tin) * scale, tgt_mask, rot_t, memory, src_mask)
            return self.generator(y)

    result = {}
    if kind == "train":
        s = SHAPES[name]
        model = Model(s)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
        batches = [make_batch(s, i) for i in range(4)]

        def step(batch):
            src, tin, tout, _ = batch
            opt.zero_grad(set_to_none=True)
            logits = model(src, tin)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), tout.view(-1), ignore_index=PAD,
                                   label_smoothing=s["smoothing"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        for i in range(2):
            step(batches[i])
        ms, tps, cpu = [], [], []
        for _ in range(runs):
            n, t0, c0 = 0, time.perf_counter(), time.process_time()
            for i in range(s["steps"]):
                step(batches[i % 4])
                n += batches[i % 4][3]
            dt = time.perf_counter() - t0
            ms.append(dt * 1000 / s["steps"])
            cpu.append((time.process_time() - c0) * 1000 / s["steps"])
            tps.append(n / dt)
        result = dict(value=statistics.median(tps), aux=statistics.median(ms), cpu=statistics.median(cpu), base=base)
    elif kind == "matmul":
        n = int(name)
        a, b = torch.rand(n, n) - 0.5, torch.rand(n, n) - 0.5
        reps = int(4e8 / (2.0 * n ** 3)) + 1
        torch.mm(a, b)
        g = []
        for _ in range(runs):
            t0 = time.perf_counter()
            for _ in range(reps):
                torch.mm(a, b)
            g.append(2.0 * n ** 3 * reps / (time.perf_counter() - t0) / 1e9)
        result = dict(value=statistics.median(g), aux=0)
    elif kind == "attention":
        B, H, T, D = ATT["B"], ATT["H"], ATT["T"], ATT["D"]
        flops = 12.0 * B * H * T * T * D
        reps = int(4e8 / flops) + 1
        causal = torch.full((T, T), float("-inf")).triu(1)
        ms = []
        for r in range(runs + 1):
            t0 = time.perf_counter()
            for _ in range(reps):
                q, k, v = (torch.rand(B, H, T, D, requires_grad=True) for _ in range(3))
                s = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D) + causal
                y = torch.matmul(torch.softmax(s, dim=-1), v)
                y.backward(torch.ones_like(y))
            if r:
                ms.append((time.perf_counter() - t0) * 1000 / reps)
        m = statistics.median(ms)
        result = dict(value=flops / (m / 1000) / 1e9, aux=m)
    result["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        import ctypes
        lib = [l.split()[-1] for l in open("/proc/self/maps") if "libopenblas" in l][0]
        f = ctypes.CDLL(lib).openblas_get_corename
        f.restype = ctypes.c_char_p
        result["blas"] = f().decode()
    except Exception:
        result["blas"] = "?"
    print(json.dumps(result))


# --- the parent: children, tables, comparison -------------------------------------------

def run_torch(args, kind, name, threads, runs):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", kind, name, str(threads), str(runs)],
                         env=blas_env(args.blas_core, args.torch_wait), capture_output=True, text=True)
    if out.returncode:
        sys.exit("bench_torch: child failed: " + out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_c(args, only, threads):
    env = wait_env(args.c_wait)
    out = subprocess.run([args.bench, "--only", only, "--threads", str(threads), "--runs", "1", "--tsv"], env=env,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("bench_torch: %s failed: %s" % (args.bench, out.stderr[-2000:]))
    rows = {}
    for line in out.stdout.splitlines():
        f = line.split("\t")
        rows[(f[0], f[1])] = dict(value=float(f[3]), aux=float(f[5]), peak=float(f[7]),
                                  cpu=float(f[8]) if len(f) > 8 else 0, base=float(f[9]) if len(f) > 9 else 0,
                                  peak_frac=float(f[11]) / 100 if len(f) > 11 else 0)
    return rows


def warn_blas(blas):
    """PyTorch without OpenBLAS falls back to the reference (netlib) BLAS, ~100x slower: say so."""
    if blas == "?":
        print("WARNING: PyTorch did not load OpenBLAS (libopenblas0-openmp not installed?); it runs the reference BLAS "
              "and its numbers are not a fair baseline", flush=True)


def wanted(args, name):
    return not args.only or name in args.only.split(",")


def table(args):
    print("bench_torch: PyTorch, median of %d runs" % args.runs)
    blas = None
    if any(wanted(args, n) for n in SHAPES):
        print("\n%-44s %7s %10s %9s %9s %9s %9s" % ("training step", "threads", "tokens/s", "ms/step", "cpu ms", "peak MiB",
                                                 "base MiB"))
    for name, s in SHAPES.items():
        if not wanted(args, name):
            continue
        for t in args.threads:
            r = run_torch(args, "train", name, t, args.runs)
            blas = r["blas"]
            print("%-44s %7d %10.0f %9.2f %9.2f %9.0f %9.0f" % (s["label"], t, r["value"], r["aux"], r["cpu"], r["peak"],
                                                              r["base"]), flush=True)
    if wanted(args, "matmul"):
        print("\n%-44s %7s %12s" % ("matmul C = A B (n x n)", "threads", "GFLOP/s"))
        for n in (64, 128, 256, 512, 1024):
            for t in args.threads:
                r = run_torch(args, "matmul", str(n), t, args.runs)
                blas = r["blas"]
                print("%-44d %7d %12.1f" % (n, t, r["value"]), flush=True)
    if wanted(args, "attention"):
        print("\n%-44s %7s %12s %10s" % ("attention", "threads", "GFLOP/s", "ms"))
        for t in args.threads:
            r = run_torch(args, "attention", "causal", t, args.runs)
            label = "attention fwd+bwd B%(B)d H%(H)d T%(T)d D%(D)d causal" % ATT
            print("%-44s %7d %12.1f %10.2f" % (label, t, r["value"], r["aux"]), flush=True)
    print("\nOpenBLAS core: %s; OpenMP waiting: %s" % (blas, args.torch_wait))
    warn_blas(blas)


def compare(args):
    print("bench_torch --compare: C (%s) and PyTorch alternating, %d runs each, medians; ratio = C / PyTorch%s"
          % (args.bench, args.runs, "; a competing process spins on one core" if args.busy else ""))
    rows, blas = [], None

    # The machine's peak per thread count (./bench --only peak: a register-only FMA loop), for
    # the model FLOP/s of the language models as a fraction of it, C and PyTorch alike.
    peak = {}
    if any(wanted(args, n) and model_flops_per_token(s) for n, s in SHAPES.items()):
        print("\n%-44s %7s %12s" % ("peak: register-only FMA loop (./bench)", "threads", "GFLOP/s"))
        for t in args.threads:
            peak[t] = statistics.median(run_c(args, "peak", t)[("peak", "fma")]["value"] for _ in range(args.runs))
            print("%-44s %7d %12.1f" % ("fused multiply-adds", t, peak[t]), flush=True)

    def both(c_only, c_key, kind, name, t, label, unit, flops=0.0):
        nonlocal blas
        c, p, c_frac, p_frac = [], [], [], []
        for _ in range(args.runs):
            c.append(run_c(args, c_only, t)[c_key])
            c_frac.append(c[-1]["peak_frac"])  # ./bench pairs each of its runs with a peak loop just before it
            if flops:  # the same for PyTorch: the peak loop just before its run
                pk = run_c(args, "peak", t)[("peak", "fma")]["value"]
            p.append(run_torch(args, kind, name, t, 1))
            if flops:
                p_frac.append(p[-1]["value"] * flops / 1e9 / pk)
        blas = p[-1]["blas"]
        cv, pv = statistics.median(x["value"] for x in c), statistics.median(x["value"] for x in p)
        cpk, ppk = max(x["peak"] for x in c), max(x["peak"] for x in p)
        cf = statistics.median(c_frac) if flops else None
        pf = statistics.median(p_frac) if flops else None
        frac = "%5.1f%% %5.1f%%" % (100 * cf, 100 * pf) if flops else "%6s %6s" % ("-", "-")
        print("%-44s %7d %12.1f %12.1f %8.2fx %9.0f %9.0f %s   %s" % (label, t, cv, pv, cv / pv, cpk, ppk, frac, unit),
              flush=True)
        rows.append(dict(label=label, threads=t, c=cv, torch=pv, ratio=cv / pv, c_peak=cpk, torch_peak=ppk, unit=unit,
                         c_peak_frac=cf, torch_peak_frac=pf))

    print("\n%-44s %7s %12s %12s %9s %9s %9s %6s %6s" % ("", "threads", "C", "PyTorch", "ratio", "C MiB", "torch MiB",
                                                         "C pk", "pt pk"))
    for name, s in SHAPES.items():
        if wanted(args, name):
            for t in args.threads:
                both(name, ("train", name), "train", name, t, s["label"], "tokens/s", model_flops_per_token(s))
    if wanted(args, "matmul"):
        for n in args.sizes:
            for t in args.threads:
                both("matmul", ("matmul", str(n)), "matmul", str(n), t, "matmul %d^3" % n, "GFLOP/s")
    if wanted(args, "attention"):
        for t in args.threads:
            both("attention", ("attention", "causal"), "attention", "causal", t,
                 "attention fwd+bwd B%(B)d H%(H)d T%(T)d D%(D)d causal" % ATT, "GFLOP/s")
    print("\nOpenBLAS core: %s; OpenMP waiting: C %s, PyTorch %s" % (blas, args.c_wait, args.torch_wait))
    print("MiB: peak resident memory of the run; pk: model FLOP/s (6 per weight + 12 L T d per token) as a fraction "
          "of the peak loop run just before each run (median of the runs' ratios; the table above is for reference)")
    warn_blas(blas)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.markdown:
        write_markdown(args, rows, peak, blas)


def cpu_description():
    """The CPU as /proc/cpuinfo names it: model name, family and model, logical CPUs, the widest
    vector extension; a table's numbers only mean something beside the machine that made them."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        return "not recorded"
    flags = info.get("flags", "").split()
    vector = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return "%s, family %s model %s, %d logical CPUs, %s" % (
        info.get("model name", "unknown"), info.get("cpu family", "?"), info.get("model", "?"),
        os.cpu_count() or 0, vector)


def write_markdown(args, rows, peak, blas):
    """The --compare rows as the Markdown table of docs/performance.md, with the command,
    the commit and the peak it was measured against."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    lines = ["CPU: %s." % cpu_description(), "",
             "Command: `/usr/bin/python3 scripts/bench_torch.py %s` (commit %s); medians of %d runs a side; "
             "OpenBLAS core %s; OpenMP waiting: C %s, PyTorch %s; %% peak: against the peak loop run just before "
             "each run, median of the runs' ratios; the peak loop at the start (`bench --only peak`): %s." % (
                 " ".join(sys.argv[1:]), commit or "?", args.runs, blas, args.c_wait, args.torch_wait,
                 ", ".join("%.1f GFLOP/s on %d thread%s" % (v, t, "s" if t > 1 else "") for t, v in sorted(peak.items()))
                 or "not measured"),
             "",
             "| shape | threads | C | PyTorch | unit | C / PyTorch | C % peak | PyTorch % peak | peak MiB C / PyTorch |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    pct = lambda x: "%.1f%%" % (100 * x) if x is not None else "–"
    for r in rows:
        lines.append("| %s | %d | %s | %s | %s | %.2f× | %s | %s | %.0f / %.0f |" % (
            r["label"], r["threads"], "{:,.0f}".format(r["c"]) if r["c"] >= 100 else "%.1f" % r["c"],
            "{:,.0f}".format(r["torch"]) if r["torch"] >= 100 else "%.1f" % r["torch"], r["unit"], r["ratio"],
            pct(r["c_peak_frac"]), pct(r["torch_peak_frac"]), r["c_peak"], r["torch_peak"]))
    with open(args.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="toy,multi30k,lm,llama,lm256,lm768,lm768x4,matmul,attention")
    ap.add_argument("--compare", action="store_true", help="alternate with the C bench, print ratios")
    ap.add_argument("--bench", default="build/opt/bin/bench")
    ap.add_argument("--sizes", default="64,256,1024", help="matmul sizes for --compare")
    ap.add_argument("--blas-core", default="auto", help="auto | detect | an OPENBLAS_CORETYPE name")
    ap.add_argument("--wait", default="short-spin",
                    help="OpenMP waiting of both sides, or C,PyTorch: short-spin (the C default) | passive | libgomp")
    ap.add_argument("--busy", action="store_true", help="a competing process spins on one core throughout")
    ap.add_argument("--json", default="", help="--compare: also write the rows to this file")
    ap.add_argument("--markdown", default="", help="--compare: also write the rows as a Markdown table to this file")
    args = ap.parse_args()
    args.threads = [int(t) for t in args.threads.split(",")]
    waits = args.wait.split(",")
    if len(waits) > 2 or any(w not in WAITS for w in waits):
        ap.error("--wait: one or two of " + ", ".join(WAITS))
    args.c_wait, args.torch_wait = waits[0], waits[-1]
    args.sizes = [int(n) for n in args.sizes.split(",")]
    competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        compare(args) if args.compare else table(args)
    finally:
        if competitor:
            competitor.kill()
            competitor.wait()


if __name__ == "__main__":
    main()
