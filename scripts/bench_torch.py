#!/usr/bin/python3
"""The shapes of ./bench in PyTorch, printed as the same table; --compare runs both side by side.

    /usr/bin/python3 scripts/bench_torch.py [--threads 1,2] [--runs 5] [--only toy,...] [--blas-core probe]
    /usr/bin/python3 scripts/bench_torch.py --compare [--bench build/opt/bin/bench] ...

Needs the Debian packages python3-torch and libopenblas0-openmp; never part of `make test`.
The models mirror src/models (pre-LN encoder/decoder, RoPE on self-attention, dropout 0.1,
label smoothing 0.1, AdamW, global-norm clipping; the llama shape with RMSNorm, SwiGLU and no
biases; the copy and lmcopy shapes of the algorithmic lab built by scripts/torch_model.py) and
the batches are the same as bench.c's.
Every measurement runs in a child process of its own (its peak RSS is its own). --compare
alternates one C run and one PyTorch run per repetition, so both see the same machine load,
and prints the medians and their ratio (C / PyTorch; higher is better for C).

Both sides get the same OpenMP waiting (--wait; PyTorch's Debian build uses libgomp too):
by default the C tools' own, a short spin then sleep (OMP_WAIT_POLICY=passive
GOMP_SPINCOUNT=3000, src/core/runtime.h). `--wait short-spin,libgomp` gives PyTorch
libgomp's default instead (a 3 ms spin: fastest on an idle machine, many times slower when
other processes use the cores, as spinning threads hold the cores the working ones need).

PyTorch's float products go to OpenBLAS (Debian's torch links libblas.so.3, which
libopenblas0-openmp provides; its oneDNN serves bf16 and convolutions, not this). Which kernels
OpenBLAS runs is its "core": its own pick from cpuid (a recent Xeon: generic Prescott; Zen 5:
Cooperlake) or OPENBLAS_CORETYPE. By default (--blas-core probe) each core this CPU can run and
OpenBLAS's own pick are timed (--probe-rounds alternating rounds, the best of each counts), one
thread, on the matmuls of --sizes and one training step of --probe-shape; the fastest runs every
PyTorch child, and the choice and the probe times are
printed (and head --markdown). An OPENBLAS_CORETYPE of the caller is never inherited. Where
OpenBLAS is missing or runs a generic core on an AVX2 machine, no ratio is printed.

PyTorch allocates every activation anew; glibc serves a block of 32 MiB or more (below that,
one above its sliding mmap threshold) with mmap, unmaps it when freed and trims the heap's top,
so each step faults those pages in again (system time, most of a T = 512 step). --malloc keep (the default) keeps freed memory in the
process, as the C side's arena does (MALLOC_MMAP_MAX_=0, a large MALLOC_TRIM_THRESHOLD_);
--malloc glibc leaves glibc's defaults.
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
    # the recurrent translator (model = lstm, torch.nn.LSTM with packed sequences, built by
    # scripts/torch_model.py): configs/lstm.ini on the toy batches, and the course's LSTM size on
    # the multi30k batches
    "lstm": dict(label="toy lstm d64 bi 2+2 B64", model="lstm", d=64, heads=4, enc=2, dec=2, ff=256, B=64,
                 V_src=95, V_tgt=76, src=(6, 24), tgt=(6, 22), T=0, steps=10, pos="none"),
    "lstm30k": dict(label="multi30k lstm d128 bi 1+1 B32 V8k", model="lstm", d=128, heads=4, enc=1, dec=1, ff=512,
                    B=32, V_src=8000, V_tgt=8000, src=(8, 18), tgt=(8, 18), T=0, steps=5, pos="none"),
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
    # the algorithmic length-generalisation lab (configs/algorithmic/copy.ini, lm_copy.ini): inputs of
    # 1..16 digits copied; built by scripts/torch_model.py from the config's keys (torch_model_cfg)
    "copy": dict(label="copy translator d64 h4 1+1 ff128 B64 n1-16", model="translator", d=64, heads=4, enc=1, dec=1,
                 ff=128, B=64, V_src=14, V_tgt=14, src=(1, 16), tgt=(1, 16), T=0, steps=10, p=0.0, smoothing=0.0,
                 copy=True),
    "lmcopy": dict(label="lm copy d64 h4 2L ff128 B64 n1-16", model="lm", d=64, heads=4, enc=0, dec=2, ff=128, B=64,
                   V_src=14, V_tgt=14, src=(1, 16), tgt=(0, 0), T=0, steps=10, p=0.0, smoothing=0.0, copy=True),
}
for _s in SHAPES.values():  # the defaults of the first three: RoPE, ReLU, dropout and label smoothing 0.1
    _s.setdefault("pos", "rope"), _s.setdefault("act", "relu"), _s.setdefault("p", 0.1), _s.setdefault("smoothing", 0.1)
LEARNED_ROWS = 32  # model.max_len's default; positions wrap around the table (model.pos_wrap)


def model_flops_sequence(s, S, T):
    """src/models/model_flops.c: one training step on a sequence of S source and T target positions.
    6 per weight of every matrix product per position through it (cross-attention: k, v per source,
    q, o per target position) + 12 d per query, key and layer for attention, nothing masked."""
    d, cross = s["d"], s["model"] == "translator"
    ffn = (3 if s.get("llama") else 2) * d * s["ff"]  # swiglu: gate, up and down
    enc, dec = (s["enc"] if cross else 0), s["dec"]
    S = S if cross else 0
    src_weights = enc * (4 * d * d + ffn) + (dec * 2 * d * d if cross else 0)
    tgt_weights = dec * ((6 if cross else 4) * d * d + ffn) + d * s["V_tgt"]
    attention = 12.0 * d * (enc * S * S + dec * T * T + (dec * T * S if cross else 0))
    return 6.0 * (src_weights * S + tgt_weights * T) + attention


def has_model_flops(s):
    return s["model"] in ("lm", "translator")


def torch_model_cfg(s):
    """The config keys scripts/torch_model.py builds a model from, as ./train's defaults fill them."""
    return dict(model=s["model"], d_model=s["d"], n_heads=s["heads"], d_ff=s["ff"], enc_layers=s["enc"],
                dec_layers=s["dec"], pos=s["pos"], activation=s["act"], dropout=s["p"],
                label_smoothing=s["smoothing"], norm="layernorm", bias=True, norm_first=True, embed_scale=True,
                max_len=LEARNED_ROWS, pos_wrap=True, pos_offset=0, rope_base=10000.0, rope_scaling="none",
                rope_factor=1.0, bidirectional=True, attention="dot", tie_embeddings=False)


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


MALLOCS = {  # --malloc: glibc's allocator as environment variables
    # Freed blocks stay in the process: no mmap for large blocks (an activation of 32 MiB or more
    # would always get one) and no trimming of the heap's top. By default glibc unmaps every
    # large tensor when it is freed and the next step faults its pages in again, zeroed by the
    # kernel: the lm (T 512) step spent most of its time in page faults (system time).
    "keep": dict(MALLOC_MMAP_MAX_="0", MALLOC_TRIM_THRESHOLD_=str(1 << 40), MALLOC_TOP_PAD_=str(64 << 20)),
    "glibc": {},
}

# OpenBLAS cores (OPENBLAS_CORETYPE) and the /proc/cpuinfo flags each needs; the probe tries those
# this CPU has, plus OpenBLAS's own pick ("detect": the variable unset). Older and generic cores
# (Prescott, Nehalem, Sandybridge) are never faster where AVX2 exists and are not probed.
BLAS_CORES = [("Haswell", {"avx2", "fma"}), ("Zen", {"avx2", "fma"}),
              ("SkylakeX", {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}),
              ("Cooperlake", {"avx512f", "avx512bw", "avx512vl", "avx512_bf16"}),
              ("SapphireRapids", {"avx512f", "avx512bw", "avx512vl", "avx512_bf16", "amx_tile"})]
GENERIC_CORES = {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "katmai", "coppermine",
                 "northwood", "banias", "opteron", "barcelona", "nano"}


def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def blas_candidates():
    flags = cpu_flags()
    return [name for name, need in BLAS_CORES if need <= flags]


def core_known_wrong(core):
    """No OpenBLAS at all, or a generic core on a machine with AVX2: PyTorch would run handicapped."""
    return core in (None, "?") or (core.lower() in GENERIC_CORES and "avx2" in cpu_flags())


def blas_env(core, wait, malloc="keep"):
    """The PyTorch child's environment: OpenMP waiting, the allocator, and OPENBLAS_CORETYPE = core
    ("detect": unset, OpenBLAS's own pick; the caller's value is never inherited silently)."""
    env = wait_env(wait)
    env.update(MALLOCS[malloc])
    env.pop("OPENBLAS_CORETYPE", None)
    if core and core != "detect":
        env["OPENBLAS_CORETYPE"] = core
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
        """(src, tgt_in, tgt_out, tokens, model FLOPs) as bench.c's make_batch."""
        B = s["B"]
        if s["model"] == "lm" and s.get("copy"):  # <eos> x <bos> x <eos>, scored on the second x
            s0, s1 = s["src"]
            ns = [s0 + (7 * b) % (s1 - s0 + 1) for b in range(B)]
            T = max(2 * n + 2 for n in ns)
            tin = torch.zeros(B, T, dtype=torch.long)
            tout = torch.zeros(B, T, dtype=torch.long)
            for b, n in enumerate(ns):
                x = torch.tensor([token(b, t, step, s["V_src"]) for t in range(n)])
                tin[b, 0], tin[b, 1:n + 1], tin[b, n + 1], tin[b, n + 2:2 * n + 2] = EOS, x, BOS, x
                tout[b, n + 1:2 * n + 1], tout[b, 2 * n + 1] = x, EOS
            return (None, tin, tout, sum(2 * n + 2 for n in ns),
                    sum(model_flops_sequence(s, 0, 2 * n + 2) for n in ns))
        if s["model"] == "lm":
            T = s["T"]
            ids = torch.tensor([[token(b, t, step, s["V_src"]) for t in range(T + 1)] for b in range(B)])
            return None, ids[:, :T].contiguous(), ids[:, 1:].contiguous(), B * T, B * model_flops_sequence(s, 0, T)
        (s0, s1), (t0, t1) = s["src"], s["tgt"]
        Ts, Tt = s1 + 1, t1 + 1
        src = torch.zeros(B, Ts, dtype=torch.long)
        tin = torch.zeros(B, Tt, dtype=torch.long)
        tout = torch.zeros(B, Tt, dtype=torch.long)
        tokens, flops = 0, 0.0
        for b in range(B):
            ns = s0 + (7 * b) % (s1 - s0 + 1)
            nt = ns if s.get("copy") else t0 + (5 * b + 3) % (t1 - t0 + 1)
            src[b, :ns] = torch.tensor([token(b, t, step, s["V_src"]) for t in range(ns)])
            src[b, ns] = EOS
            ids = src[b, :nt].clone() if s.get("copy") else \
                torch.tensor([token(b, t + 100, step, s["V_tgt"]) for t in range(nt)])
            tin[b, 0] = BOS
            tin[b, 1:nt + 1] = ids
            tout[b, :nt] = ids
            tout[b, nt] = EOS
            tokens += ns + 1 + nt + 1
            flops += model_flops_sequence(s, ns + 1, nt + 1)
        return src, tin, tout, tokens, flops

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

    def build(s):
        if s.get("copy") or s["model"] == "lstm":  # scripts/torch_model.py, from the config's keys
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import torch_model
            make = torch_model.LstmModel if s["model"] == "lstm" else torch_model.Model
            m = make(torch_model_cfg(s), s["V_src"], s["V_tgt"])
            return m, (lambda src, tin: m(tin) if src is None else m(src, tin))
        m = Model(s)
        return m, m

    result = {}
    if kind in ("train", "probe"):
        s = SHAPES[name]
        model, forward = build(s)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
        batches = [make_batch(s, i) for i in range(4)]

        def step(batch):
            src, tin, tout = batch[:3]
            opt.zero_grad(set_to_none=True)
            logits = forward(src, tin)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), tout.view(-1), ignore_index=PAD,
                                   label_smoothing=s["smoothing"])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if kind == "probe":  # the matmuls of --sizes (about 0.1 GFLOP each), then one warm and one timed step
            mm = 0.0
            for n in (int(x) for x in os.environ.get("BENCH_TORCH_SIZES", "64,256,1024").split(",")):
                a, b = torch.rand(n, n) - 0.5, torch.rand(n, n) - 0.5
                torch.mm(a, b)
                t0 = time.perf_counter()
                for _ in range(int(1e8 / (2.0 * n ** 3)) + 1):
                    torch.mm(a, b)
                mm += time.perf_counter() - t0
            step(batches[0])
            t0 = time.perf_counter()
            step(batches[1])
            result = dict(matmul_ms=mm * 1000, step_ms=(time.perf_counter() - t0) * 1000)
            runs = 0
        for i in range(2 if runs else 0):
            step(batches[i])
        ms, tps, cpu, gf = [], [], [], []
        for _ in range(runs):
            n, f, t0, c0 = 0, 0.0, time.perf_counter(), time.process_time()
            for i in range(s["steps"]):
                step(batches[i % 4])
                n += batches[i % 4][3]
                f += batches[i % 4][4]
            dt = time.perf_counter() - t0
            ms.append(dt * 1000 / s["steps"])
            cpu.append((time.process_time() - c0) * 1000 / s["steps"])
            tps.append(n / dt)
            gf.append(f / dt / 1e9)
        if runs:
            result = dict(value=statistics.median(tps), aux=statistics.median(ms), cpu=statistics.median(cpu),
                          base=base, gflops=statistics.median(gf))
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

def run_torch(args, kind, name, threads, runs, core=None, fatal=True):
    env = blas_env(args.core if core is None else core, args.torch_wait, args.malloc)
    env["BENCH_TORCH_SIZES"] = ",".join(str(n) for n in args.sizes)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", kind, name, str(threads), str(runs)],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        if not fatal:
            return None
        sys.exit("bench_torch: child failed: " + out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def choose_core(args):
    """--blas-core probe: each OpenBLAS core this CPU can run, and OpenBLAS's own pick ("detect"), timed
    once on one thread in a child of its own: the matmuls of --sizes and one training step of
    --probe-shape (after one warm-up step). The fastest sum is kept. Sets args.core (None: the probe
    failed, the children run OpenBLAS's own pick) and args.core_note, the line that says how."""
    if args.blas_core != "probe":
        args.core = args.blas_core
        args.core_note = "OPENBLAS_CORETYPE %s" % ("unset (OpenBLAS's own pick)" if args.core == "detect"
                                                   else "= %s (given)" % args.core)
        return
    times, notes, seen, skip = {}, [], {}, set()
    for cand in [c for _ in range(args.probe_rounds) for c in ["detect"] + blas_candidates()]:  # rounds alternate
        if cand in skip:
            continue
        r = run_torch(args, "probe", args.probe_shape, 1, 1, core=cand, fatal=False)
        if r is None or r.get("blas", "?") == "?":
            notes.append("%s: %s" % (cand, "failed" if r is None else "no OpenBLAS loaded"))
            skip.add(cand)
            continue
        ran = r["blas"]
        if cand != "detect" and ran.lower() != cand.lower():
            notes.append("%s: not known to this OpenBLAS (it ran %s)" % (cand, ran))
            skip.add(cand)
            continue
        if seen.get(ran, cand) != cand:  # OpenBLAS's own pick is one of the named cores: the same kernels
            notes.append("%s = %s" % (cand, seen[ran]))
            skip.add(cand)
            continue
        seen[ran] = cand
        t = (r["matmul_ms"] + r["step_ms"], r["matmul_ms"], r["step_ms"], ran)
        times[cand] = min(times.get(cand, t), t)  # the fastest of the rounds
    described = ["%s%s %.0f ms (matmuls %.0f + step %.0f)" % (c, "" if c != "detect" else " (%s)" % t[3], t[0], t[1],
                                                            t[2]) for c, t in times.items()]
    if not times:
        args.core = None
        args.core_note = ("core probe FAILED (%s): OpenBLAS's own pick is used and no ratio is printed where it is "
                          "a generic core" % "; ".join(notes))
        print("WARNING: " + args.core_note, flush=True)
        return
    args.core = min(times, key=lambda c: times[c][0])
    args.core_note = "core %s chosen by a probe (one thread, matmuls %s and one %s step each, best of %d: %s%s)" % (
        times[args.core][3], ",".join(str(n) for n in args.sizes), args.probe_shape, args.probe_rounds,
        "; ".join(described),
        "; " + "; ".join(notes) if notes else "")
    print("OpenBLAS " + args.core_note, flush=True)


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
    """PyTorch without OpenBLAS falls back to the reference (netlib) BLAS, ~100x slower, and OpenBLAS on a
    generic core is several times slower than on this CPU's own: say so."""
    if blas == "?":
        print("WARNING: PyTorch did not load OpenBLAS (libopenblas0-openmp not installed?); it runs the reference BLAS "
              "and its numbers are not a fair baseline", flush=True)
    elif core_known_wrong(blas):
        print("WARNING: OpenBLAS ran its generic %s core on a CPU with AVX2: PyTorch's numbers are not a fair "
              "baseline and no ratio is given" % blas, flush=True)


def wanted(args, name):
    return not args.only or name in args.only.split(",")


def table(args):
    print("bench_torch: PyTorch, median of %d runs" % args.runs)
    choose_core(args)
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
    print("\nOpenBLAS core: %s (%s); OpenMP waiting: %s; malloc: %s" % (blas, args.core_note, args.torch_wait,
                                                                      args.malloc))
    warn_blas(blas)


def compare(args):
    print("bench_torch --compare: C (%s) and PyTorch alternating, %d runs each, medians; ratio = C / PyTorch%s"
          % (args.bench, args.runs, "; a competing process spins on one core" if args.busy else ""))
    rows, blas = [], None
    args.load_start = os.getloadavg()[0]
    choose_core(args)

    # The machine's peak per thread count (./bench --only peak: a register-only FMA loop), for
    # the model FLOP/s of the language models as a fraction of it, C and PyTorch alike.
    peak = {}
    if any(wanted(args, n) and has_model_flops(s) for n, s in SHAPES.items()):
        print("\n%-44s %7s %12s" % ("peak: register-only FMA loop (./bench)", "threads", "GFLOP/s"))
        for t in args.threads:
            peak[t] = statistics.median(run_c(args, "peak", t)[("peak", "fma")]["value"] for _ in range(args.runs))
            print("%-44s %7d %12.1f" % ("fused multiply-adds", t, peak[t]), flush=True)

    def both(c_only, c_key, kind, name, t, label, unit, flops=False):
        nonlocal blas
        c, p, c_frac, p_frac = [], [], [], []
        for _ in range(args.runs):
            c.append(run_c(args, c_only, t)[c_key])
            c_frac.append(c[-1]["peak_frac"])  # ./bench pairs each of its runs with a peak loop just before it
            if flops:  # the same for PyTorch: the peak loop just before its run
                pk = run_c(args, "peak", t)[("peak", "fma")]["value"]
            p.append(run_torch(args, kind, name, t, 1))
            if flops:
                p_frac.append(p[-1]["gflops"] / pk)
        blas = p[-1]["blas"]
        cores = sorted({x["blas"] for x in p})
        cv, pv = statistics.median(x["value"] for x in c), statistics.median(x["value"] for x in p)
        cpk, ppk = max(x["peak"] for x in c), max(x["peak"] for x in p)
        cf = statistics.median(c_frac) if flops else None
        pf = statistics.median(p_frac) if flops else None
        ratio = None if any(core_known_wrong(x) for x in cores) else cv / pv  # no ratio against a crippled PyTorch
        frac = "%5.1f%% %5.1f%%" % (100 * cf, 100 * pf) if flops else "%6s %6s" % ("-", "-")
        print("%-44s %7d %12.1f %12.1f %9s %9.0f %9.0f %s %-11s %s" % (
            label, t, cv, pv, "%.2fx" % ratio if ratio else "-", cpk, ppk, frac, "/".join(cores), unit), flush=True)
        rows.append(dict(label=label, threads=t, c=cv, torch=pv, ratio=ratio, c_peak=cpk, torch_peak=ppk, unit=unit,
                         c_peak_frac=cf, torch_peak_frac=pf, core="/".join(cores)))

    print("\n%-44s %7s %12s %12s %9s %9s %9s %6s %6s %-11s" % ("", "threads", "C", "PyTorch", "ratio", "C MiB",
                                                              "torch MiB", "C pk", "pt pk", "BLAS core"))
    for name, s in SHAPES.items():
        if wanted(args, name):
            for t in args.threads:
                both(name, ("train", name), "train", name, t, s["label"], "tokens/s", has_model_flops(s))
    if wanted(args, "matmul"):
        for n in args.sizes:
            for t in args.threads:
                both("matmul", ("matmul", str(n)), "matmul", str(n), t, "matmul %d^3" % n, "GFLOP/s")
    if wanted(args, "attention"):
        for t in args.threads:
            both("attention", ("attention", "causal"), "attention", "causal", t,
                 "attention fwd+bwd B%(B)d H%(H)d T%(T)d D%(D)d causal" % ATT, "GFLOP/s")
    args.load_end = os.getloadavg()[0]
    print("\nOpenBLAS %s; OpenMP waiting: C %s, PyTorch %s; PyTorch's malloc: %s; load average %.2f at the start, "
          "%.2f at the end" % (args.core_note, args.c_wait, args.torch_wait, args.malloc, args.load_start,
                               args.load_end))
    print("MiB: peak resident memory of the run; pk: model FLOP/s (src/models/model_flops.h) as a fraction "
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
             "PyTorch's BLAS: OpenBLAS %s." % args.core_note, "",
             "Command: `/usr/bin/python3 scripts/bench_torch.py %s` (commit %s); medians of %d runs a side; "
             "OpenMP waiting: C %s, PyTorch %s; PyTorch's malloc: %s; %% peak: against the peak loop run just before "
             "each run, median of the runs' ratios; the peak loop at the start (`bench --only peak`): %s; load "
             "average %.2f at the start, %.2f at the end." % (
                 " ".join(sys.argv[1:]), commit or "?", args.runs, args.c_wait, args.torch_wait, args.malloc,
                 ", ".join("%.1f GFLOP/s on %d thread%s" % (v, t, "s" if t > 1 else "") for t, v in sorted(peak.items()))
                 or "not measured", args.load_start, args.load_end),
             "",
             "| shape | threads | C | PyTorch | unit | C / PyTorch | C % peak | PyTorch % peak | peak MiB C / PyTorch "
             "| BLAS core |",
             "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |"]
    pct = lambda x: "%.1f%%" % (100 * x) if x is not None else "–"
    for r in rows:
        lines.append("| %s | %d | %s | %s | %s | %s | %s | %s | %.0f / %.0f | %s |" % (
            r["label"], r["threads"], "{:,.0f}".format(r["c"]) if r["c"] >= 100 else "%.1f" % r["c"],
            "{:,.0f}".format(r["torch"]) if r["torch"] >= 100 else "%.1f" % r["torch"], r["unit"],
            "%.2f×" % r["ratio"] if r["ratio"] else "– (generic core)",
            pct(r["c_peak_frac"]), pct(r["torch_peak_frac"]), r["c_peak"], r["torch_peak"], r["core"]))
    with open(args.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help=",".join(SHAPES) + ",matmul,attention")
    ap.add_argument("--compare", action="store_true", help="alternate with the C bench, print ratios")
    ap.add_argument("--bench", default="build/opt/bin/bench")
    ap.add_argument("--sizes", default="64,256,1024", help="matmul sizes for --compare")
    ap.add_argument("--blas-core", default="probe",
                    help="probe (time each core this CPU runs, keep the fastest) | detect (OpenBLAS's own pick) | "
                         "an OPENBLAS_CORETYPE name")
    ap.add_argument("--probe-shape", default="lm", help="the training shape the core probe times one step of")
    ap.add_argument("--probe-rounds", type=int, default=3, help="probe each core this many times, alternating; "
                    "the fastest time counts (one round picked Haswell over SkylakeX at load 5.5 on 2 cores)")
    ap.add_argument("--malloc", default="keep", choices=sorted(MALLOCS),
                    help="PyTorch's glibc allocator: keep (freed memory stays, as the C arena) | glibc (its defaults)")
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
    if args.probe_shape not in SHAPES:
        ap.error("--probe-shape: one of " + ", ".join(SHAPES))
    competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if args.busy else None
    try:
        compare(args) if args.compare else table(args)
    finally:
        if competitor:
            competitor.kill()
            competitor.wait()


if __name__ == "__main__":
    main()
