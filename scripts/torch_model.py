#!/usr/bin/env python3
"""A PyTorch implementation of the project's models, loaded from its checkpoints.

Written from the model math of the design (docs/design.md), not from the C code: the encoder
classifier, the encoder-decoder translator and the decoder-only language model, with every
option of the config (every pos of ./train --list-schemes, max_len and pos_wrap, rope_base,
rope_scaling (and the old rope_scale), xpos_gamma, pos_offset, norm_first, relu/gelu/swiglu,
layernorm/rmsnorm, bias, embed_scale, mean/cls pooling), and the LSTM translator (model = lstm,
docs/design.md §2.8: bidirectional, tie_embeddings, attention, bias). Parameter names are the checkpoint's tensor names, so `load()` fills the module with
load_state_dict(strict=True), and `model.state_dict()` gives the tensors back under the same
names.

    import sys; sys.path.insert(0, "scripts")
    from torch_model import load
    model = load("runs/rope")                  # module + weights + config of any run
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)   # and carry on in PyTorch

Inputs are token ids as the C batcher makes them (0 = <pad>, 2 = <bos>, 3 = <eos>, 4 = <cls>):
  classifier  model(src)          src (B,T) (with pool = cls, <cls> first)   -> logits (B,C)
  translator  model(src, tgt_in)  src = tokens+<eos>, tgt_in = <bos>+tokens  -> logits (B,T,V)
  lstm        model(src, tgt_in)  as the translator
  lm          model(ids)          ids (B,T)                                  -> logits (B,T,V)
model.loss(batch) is the training loss: mean token cross-entropy over non-pad targets
(classifier: over sentences), with the run's label smoothing.

Command line:
  scripts/torch_model.py RUN [key=value ...]         load RUN and print what was built
  scripts/torch_model.py --check DUMP RUN [...]      compare with ./eval --dump-grads DUMP
See --help. Needs torch (and nothing else: the safetensors reader is below).
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:
    if __name__ != "__main__":
        raise
    if not any(a in ("-h", "--help") for a in sys.argv[1:]):   # a clear line, not a traceback
        sys.exit("torch_model.py: PyTorch is not installed (%s); on Debian: apt-get install python3-torch" % e)
    torch = None

    class nn:  # --help works without torch: the classes below only need a base to exist
        Module = object

PAD, UNK, BOS, EOS, CLS = 0, 1, 2, 3, 4

# ------------------------------------------------------------------ files: safetensors, INI

_DTYPES = {"F32": ("f", 4), "F64": ("d", 8), "I32": ("i", 4), "I64": ("q", 8)}


def read_safetensors(path):
    """(tensors, metadata): {name: torch tensor}, {key: str}. Plain format reader:
    u64 little-endian header length, JSON header, raw little-endian data."""
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        raise ValueError("%s: too short for a safetensors file" % path)
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise ValueError("%s: header length %d runs past the end of the file" % (path, n))
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    meta = header.pop("__metadata__", {}) or {}
    data = memoryview(blob)[8 + n:]
    _TORCH_DTYPES = {"F32": torch.float32, "F64": torch.float64, "I32": torch.int32, "I64": torch.int64}
    tensors = {}
    for name, info in header.items():
        dtype, shape, (b, e) = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in _DTYPES:
            raise ValueError("%s: tensor '%s' has dtype %s (reader knows %s)" % (path, name, dtype, ", ".join(_DTYPES)))
        code, size = _DTYPES[dtype]
        count = math.prod(shape)
        if e - b != count * size or e > len(data):
            raise ValueError("%s: tensor '%s' has %d bytes for shape %s" % (path, name, e - b, shape))
        if sys.byteorder == "little":
            t = torch.frombuffer(bytearray(data[b:e]), dtype=_TORCH_DTYPES[dtype]) if count else torch.zeros(0)
        else:
            t = torch.tensor(struct.unpack("<%d%s" % (count, code), data[b:e]))
        tensors[name] = t.to(torch.float32 if code in "fd" else torch.int64).reshape(shape)
    return tensors, meta


# Keys whose values are not strings, with their types (the rest stay strings).
_INTS = {"seed", "threads", "d_model", "n_heads", "d_ff", "enc_layers", "dec_layers", "max_len",
         "pos_offset", "window", "batch_size", "steps", "val_size", "train_size", "test_size",
         "rope_original_len"}
_FLOATS = {"dropout", "rope_base", "rope_scale", "rope_factor", "xpos_gamma", "yarn_alpha", "yarn_beta", "label_smoothing", "lr"}
_BOOLS = {"norm_first", "embed_scale", "pos_wrap", "lowercase", "bucket", "bias", "bidirectional",
          "tie_embeddings"}


def _value(key, text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    if key in _INTS:
        return int(text)
    if key in _FLOATS:
        return float(text)
    if key in _BOOLS:
        if text.lower() in ("true", "1", "yes", "on"):
            return True
        if text.lower() in ("false", "0", "no", "off"):
            return False
        raise ValueError("%s = %s: not a boolean" % (key, text))
    return text


def parse_config(text):
    """The run's INI text (as stored in the checkpoint) -> {key: value}, sections flattened
    (keys are unique across sections) and also kept as "section.key"."""
    cfg, section = {}, ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        key, _, val = line.partition("=")
        key = key.strip()
        cfg[key] = _value(key, val)
        cfg[section + "." + key] = cfg[key]
    return _old_rope_scale(cfg)


def _old_rope_scale(cfg):
    """rope_scale = s, the spelling of old configs: linear scaling by s (s = 1: nothing)."""
    s = cfg.pop("rope_scale", 1.0)
    cfg.pop("model.rope_scale", None)
    if s != 1:
        cfg["rope_scaling"], cfg["rope_factor"] = "linear", s
    cfg.setdefault("rope_scaling", "none")
    cfg.setdefault("rope_factor", 1.0)
    return cfg


def apply_overrides(cfg, overrides):
    """key=value or section.key=value, as ./eval takes them."""
    for o in overrides or []:
        key, eq, val = o.partition("=")
        if not eq:
            raise ValueError("override '%s': expected key=value" % o)
        short = key.split(".")[-1]
        if short not in cfg and short != "rope_scale":
            raise ValueError("override '%s': unknown key '%s'" % (o, short))
        cfg[short] = _value(short, val)
        _old_rope_scale(cfg)
    return cfg


# ------------------------------------------------------------------ positional schemes

def sinusoid_table(positions, d, dtype):
    """P[p, 2i] = sin(p w_i), P[p, 2i+1] = cos(p w_i), w_i = exp(-2i ln(10000) / d)."""
    p = positions.to(torch.float64)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float64)
    w = torch.exp(-i * math.log(10000.0) / d)
    table = torch.zeros(len(positions), d, dtype=torch.float64)
    table[:, 0::2] = torch.sin(p * w)
    table[:, 1::2] = torch.cos(p * w)[:, : d // 2]
    return table.to(dtype)


def alibi_slopes(h):
    """m_k = 2^(-8k/h), k = 1..h, for h a power of two; otherwise the p = 2^floor(log2 h)
    slopes, then every other slope of the 2p-head list, the first h - p of them."""
    def geometric(n):
        return [2.0 ** (-8.0 * k / n) for k in range(1, n + 1)]
    p = 2 ** int(math.floor(math.log2(h)))
    if p == h:
        return geometric(h)
    return geometric(p) + geometric(2 * p)[0::2][: h - p]


def t5_bucket(rel, bidirectional, buckets=32, max_distance=128):
    """T5's bucket of rel = key - query: half the buckets exact, the rest log-spaced up to
    max_distance; the encoder gives each sign its own half, the decoder only looks back."""
    n = -rel
    offset = 0
    if bidirectional:
        buckets //= 2
        if n < 0:
            offset = buckets
        n = abs(n)
    else:
        n = max(n, 0)
    exact = buckets // 2
    if n < exact:
        return offset + n
    large = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (buckets - exact))
    return offset + min(large, buckets - 1)


class Scheme:
    """One stack's positional scheme: what it adds to the input, to the scores, or how it
    rotates queries and keys. Holds no parameters (the learned table is the model's, the t5
    table and the kerple and fire parameters the stack's, under their checkpoint names)."""

    def __init__(self, cfg, bidirectional):
        self.name = cfg["pos"]
        self.bidirectional = bidirectional
        self.offset = cfg["pos_offset"]
        self.max_len, self.wrap = cfg["max_len"], cfg["pos_wrap"]
        self.rope_base, self.rope_scaling, self.rope_factor = cfg["rope_base"], cfg["rope_scaling"], cfg["rope_factor"]
        self.rope_original_len = cfg.get("rope_original_len", 32)
        self.yarn_alpha, self.yarn_beta = cfg.get("yarn_alpha", 1.0), cfg.get("yarn_beta", 32.0)
        self.xpos_gamma = cfg.get("xpos_gamma", 32.0)
        self.h = cfg["n_heads"]

    def positions(self, T):
        return torch.arange(T) + self.offset

    def input_term(self, T, d, table, dtype):           # (T,d) or None
        if self.name == "sinusoidal":
            return sinusoid_table(self.positions(T), d, dtype)
        if self.name == "learned":
            pos = self.positions(T)
            if self.wrap:
                pos = pos % self.max_len
            elif int(pos[-1]) >= self.max_len:
                raise ValueError("positions up to %d, but the learned table has max_len = %d and pos_wrap = false"
                                 % (int(pos[-1]), self.max_len))
            return table.weight[pos]
        return None

    def score_bias(self, T, stack, dtype):              # (h,T,T) or None
        i = torch.arange(T)[:, None]
        j = torch.arange(T)[None, :]
        if self.name == "kerple":                        # -r1 log(1 + r2 |i-j|), r = softplus(raw)
            r1 = F.softplus(stack.kerple.raw_r1)[:, None, None]
            r2 = F.softplus(stack.kerple.raw_r2)[:, None, None]
            return -r1 * torch.log1p(r2 * (i - j).abs().to(dtype))
        if self.name == "fire":                          # f(log(1+|i-j|) / log(1+max(32, i, j)))
            pi, pj = i + self.offset, j + self.offset
            far = torch.clamp(torch.maximum(pi, pj), min=32).to(torch.float64)
            z = (torch.log1p((pi - pj).abs().to(torch.float64)) / torch.log1p(far)).to(dtype)
            f = stack.fire
            return f.fc2(torch.relu(f.fc1(z[..., None]))).permute(2, 0, 1)   # (T,T,h) -> (h,T,T)
        if self.name == "alibi":
            m = torch.tensor(alibi_slopes(self.h), dtype=torch.float64)[:, None, None]
            dist = (i - j).abs() if self.bidirectional else (i - j)
            return (-m * dist.to(torch.float64)).to(dtype)
        if self.name == "t5":
            buckets = torch.tensor([[t5_bucket(jj - ii, self.bidirectional) for jj in range(T)] for ii in range(T)])
            return stack.rel_bias.weight[buckets].permute(2, 0, 1)   # (T,T,h) -> (h,T,T)
        return None

    def rotation(self, T, d_k, dtype):
        """(cos, sin, q_scale, k_scale), each (T, d_k/2), or None. The scales are xPos's decay
        zeta_i^(+-p/gamma) in a causal stack, else None (RoPE; an xPos encoder)."""
        if self.name not in ("rope", "xpos"):
            return None
        p = self.positions(T).to(torch.float64)
        i = torch.arange(0, d_k, 2, dtype=torch.float64)
        angle = p[:, None] * self.inv_freq(T + self.offset, d_k)
        s = self.rope_factor
        factor = 0.1 * math.log(s) + 1 if self.rope_scaling == "yarn" and s > 1 else 1.0   # YaRN's temperature
        q_scale = k_scale = None
        if self.name == "xpos" and not self.bidirectional:
            zeta = (i + 0.4 * d_k) / (1.4 * d_k)                          # i runs over 0, 2, 4, ...
            q_scale = (zeta[None, :] ** (p[:, None] / self.xpos_gamma)).to(dtype)
            k_scale = (zeta[None, :] ** (-p[:, None] / self.xpos_gamma)).to(dtype)
        return (factor * torch.cos(angle)).to(dtype), (factor * torch.sin(angle)).to(dtype), q_scale, k_scale

    def inv_freq(self, n, d_k):
        """Radians per position of each pair for a sequence of n positions (design §2.3.5)."""
        kind, b, s, L = self.rope_scaling, self.rope_base, self.rope_factor, self.rope_original_len
        if kind == "dynamic":
            kind, s = "ntk", max(1.0, n / L)
        if kind == "ntk" and d_k > 2:
            b = b * s ** (d_k / (d_k - 2))
        theta = b ** (-torch.arange(0, d_k, 2, dtype=torch.float64) / d_k)
        if kind == "linear":
            theta = theta / s
        if kind == "yarn":
            turns = L * theta / (2 * math.pi)
            keep = ((turns - self.yarn_alpha) / (self.yarn_beta - self.yarn_alpha)).clamp(0, 1)
            theta = (1 - keep) * theta / s + keep * theta
        return theta


def rotate_pairs(x, cos, sin):
    """x (B,h,T,d_k): pair (2i, 2i+1) of every head rotated by angle (t, i)."""
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


# ------------------------------------------------------------------ layers and stacks

class Attention(nn.Module):
    def __init__(self, d, h, bias=True):
        super().__init__()
        self.h = h
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(d, d, bias=bias) for _ in range(4))

    def forward(self, xq, xkv, key_pad=None, causal=False, bias=None, rot=None, drop=0.0):
        B, Tq, d = xq.shape
        Tk, h = xkv.shape[1], self.h
        def heads(t, T):
            return t.view(B, T, h, d // h).transpose(1, 2)          # (B,h,T,d_k)
        q, k, v = heads(self.q_proj(xq), Tq), heads(self.k_proj(xkv), Tk), heads(self.v_proj(xkv), Tk)
        if rot is not None:
            cos, sin, q_scale, k_scale = rot
            q, k = rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)
            if q_scale is not None:                                   # xPos: pair i of both coordinates
                q = q * q_scale.repeat_interleave(2, dim=-1)
                k = k * k_scale.repeat_interleave(2, dim=-1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)         # (B,h,Tq,Tk)
        if bias is not None:
            scores = scores + bias
        masked = torch.zeros(B, 1, Tq, Tk, dtype=torch.bool)
        if key_pad is not None:
            masked = masked | key_pad[:, None, None, :]
        if causal:
            masked = masked | torch.ones(Tq, Tk, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(masked, float("-inf"))
        p = torch.nan_to_num(torch.softmax(scores, dim=-1))           # a row with no key: zeros
        p = F.dropout(p, drop, self.training)
        y = (p @ v).transpose(1, 2).reshape(B, Tq, d)
        return self.o_proj(y)


class FFN(nn.Module):
    """fc2(act(fc1 x)) with act = relu or exact gelu."""

    def __init__(self, d, d_ff, gelu, bias=True):
        super().__init__()
        self.fc1, self.fc2, self.gelu = nn.Linear(d, d_ff, bias=bias), nn.Linear(d_ff, d, bias=bias), gelu

    def forward(self, x):
        z = self.fc1(x)
        z = 0.5 * z * (1 + torch.erf(z / math.sqrt(2))) if self.gelu else torch.relu(z)   # exact GELU
        return self.fc2(z)


class SwiGLU(nn.Module):
    """Llama's gated FFN: down_proj(silu(gate_proj x) * up_proj x), d_ff the width of gate and up."""

    def __init__(self, d, d_ff, bias=True):
        super().__init__()
        self.gate_proj, self.up_proj = nn.Linear(d, d_ff, bias=bias), nn.Linear(d, d_ff, bias=bias)
        self.down_proj = nn.Linear(d_ff, d, bias=bias)

    def forward(self, x):
        a = self.gate_proj(x)
        return self.down_proj(a * torch.sigmoid(a) * self.up_proj(x))


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) * weight: no mean subtracted, no bias."""

    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def make_norm(cfg):
    """model.norm: layernorm (weight and bias) or rmsnorm (weight only); eps 1e-5 for both."""
    if cfg.get("norm", "layernorm") == "rmsnorm":
        return RMSNorm(cfg["d_model"])
    return nn.LayerNorm(cfg["d_model"], eps=1e-5)


def make_ffn(cfg):
    bias = cfg.get("bias", True)
    if cfg["activation"] == "swiglu":
        return SwiGLU(cfg["d_model"], cfg["d_ff"], bias)
    return FFN(cfg["d_model"], cfg["d_ff"], cfg["activation"] == "gelu", bias)


class Layer(nn.Module):
    """Encoder layer (norm1 self-attention, norm2 FFN) or decoder layer (norm1 self-attention,
    norm2 cross-attention, norm3 FFN); a decoder without an encoder (lm) has no cross part."""

    def __init__(self, cfg, decoder, cross):
        super().__init__()
        d, bias = cfg["d_model"], cfg.get("bias", True)
        self.self_attn = Attention(d, cfg["n_heads"], bias)
        self.norm1 = make_norm(cfg)
        self.cross = cross
        if cross:
            self.cross_attn = Attention(d, cfg["n_heads"], bias)
            self.norm2 = make_norm(cfg)
        ffn_norm = make_norm(cfg)
        if decoder:
            self.norm3 = ffn_norm
        else:
            self.norm2 = ffn_norm
        self.ffn_norm_name = "norm3" if decoder else "norm2"
        self.ffn = make_ffn(cfg)
        self.pre_ln = cfg["norm_first"]
        self.p = cfg["dropout"]

    def _residual(self, x, norm, f):
        drop = lambda t: F.dropout(t, self.p, self.training)
        if self.pre_ln:
            return x + drop(f(norm(x)))
        return norm(x + drop(f(x)))

    def forward(self, x, pad, causal, bias, rot, memory=None, memory_pad=None):
        x = self._residual(x, self.norm1, lambda z: self.self_attn(z, z, pad, causal, bias, rot, self.p))
        if self.cross:
            x = self._residual(x, self.norm2, lambda z: self.cross_attn(z, memory, memory_pad, False, None, None, self.p))
        return self._residual(x, getattr(self, self.ffn_norm_name), self.ffn)


class Stack(nn.Module):
    """Layers, then the stack's own final norm (both pre- and post-LN)."""

    def __init__(self, cfg, decoder, cross):
        super().__init__()
        n = cfg["dec_layers"] if decoder else cfg["enc_layers"]
        self.layers = nn.ModuleList(Layer(cfg, decoder, cross) for _ in range(n))
        self.norm = make_norm(cfg)
        self.causal = decoder
        self.scheme = Scheme(cfg, bidirectional=not decoder)
        if cfg["pos"] == "t5":
            self.rel_bias = nn.Embedding(32, cfg["n_heads"])          # (bucket, head)
        if cfg["pos"] == "kerple":
            self.kerple = nn.Module()
            self.kerple.raw_r1 = nn.Parameter(torch.zeros(cfg["n_heads"]))
            self.kerple.raw_r2 = nn.Parameter(torch.zeros(cfg["n_heads"]))
        if cfg["pos"] == "fire":
            self.fire = nn.Module()
            self.fire.fc1, self.fire.fc2 = nn.Linear(1, 32), nn.Linear(32, cfg["n_heads"])

    def forward(self, x, pad=None, memory=None, memory_pad=None):
        T = x.shape[1]
        bias = self.scheme.score_bias(T, self, x.dtype)
        rot = self.scheme.rotation(T, x.shape[2] // self.layers[0].self_attn.h, x.dtype)
        for layer in self.layers:
            x = layer(x, pad, self.causal, bias, rot, memory, memory_pad)
        return self.norm(x)


# ------------------------------------------------------------------ the three models

class Model(nn.Module):
    """kind = classifier | translator | lm; sizes from the checkpoint (vocabularies,
    classes)."""

    def __init__(self, cfg, src_vocab, tgt_vocab=None, n_classes=None):
        super().__init__()
        self.cfg = cfg
        self.kind = cfg["model"]
        d = cfg["d_model"]
        if self.kind not in ("classifier", "translator", "lm"):
            raise ValueError("model = %s: expected classifier, translator or lm" % self.kind)
        # Token tables and (learned only) position tables, under the checkpoint's names.
        if self.kind == "translator":
            inputs = [("src_embed", "src_pos", src_vocab), ("tgt_embed", "tgt_pos", tgt_vocab)]
        else:
            inputs = [("embed", "pos", src_vocab)]
        for table, pos, vocab_size in inputs:
            setattr(self, table, nn.Embedding(vocab_size, d))
            if cfg["pos"] == "learned":
                setattr(self, pos, nn.Embedding(cfg["max_len"], d))
        if self.kind != "lm":
            self.encoder = Stack(cfg, decoder=False, cross=False)
        if self.kind != "classifier":
            self.decoder = Stack(cfg, decoder=True, cross=self.kind == "translator")
        bias = cfg.get("bias", True)                                    # Llama's lm_head has none either
        if self.kind == "classifier":
            self.head = nn.Linear(d, n_classes, bias=bias)
        else:
            self.generator = nn.Linear(d, tgt_vocab if self.kind == "translator" else src_vocab, bias=bias)

    def _embed(self, ids, table, stack, pos_table):
        d = self.cfg["d_model"]
        x = table(ids)
        if self.cfg["embed_scale"]:
            x = x * math.sqrt(d)
        extra = stack.scheme.input_term(ids.shape[1], d, pos_table, x.dtype)
        if extra is not None:
            x = x + extra
        return F.dropout(x, self.cfg["dropout"], self.training)

    def encode(self, src):
        table = self.embed if self.kind == "classifier" else self.src_embed
        pos = getattr(self, "pos" if self.kind == "classifier" else "src_pos", None)
        return self.encoder(self._embed(src, table, self.encoder, pos), pad=src == PAD)

    def forward(self, src, tgt_in=None):
        if self.kind == "classifier":
            h = self.encode(src)                                        # (B,T,d)
            if self.cfg["pool"] == "cls":
                pooled = h[:, 0]
            else:
                keep = (src != PAD).to(h.dtype)[..., None]
                pooled = (h * keep).sum(1) / keep.sum(1)
            return self.head(pooled)                                    # (B,C)
        if self.kind == "translator":
            memory = self.encode(src)
            y = self._embed(tgt_in, self.tgt_embed, self.decoder, getattr(self, "tgt_pos", None))
            y = self.decoder(y, pad=tgt_in == PAD, memory=memory, memory_pad=src == PAD)
            return self.generator(y)                                    # (B,T,V)
        x = self._embed(src, self.embed, self.decoder, getattr(self, "pos", None))
        return self.generator(self.decoder(x))                         # (B,T,V)

    def logits_and_targets(self, batch):
        """batch: {"src", "tgt_in", "tgt_out", "labels"} as the C batcher makes them ->
        (logits (N, classes), targets (N,), ignore index)."""
        if self.kind == "classifier":
            return self(batch["src"]), batch["labels"], -100
        if self.kind == "translator":
            z = self(batch["src"], batch["tgt_in"])
        else:
            z = self(batch["tgt_in"])
        return z.reshape(-1, z.shape[-1]), batch["tgt_out"].reshape(-1), PAD

    def loss(self, batch, label_smoothing=None):
        """Mean token cross-entropy over the kept targets, (1 - eps) NLL + eps (lse - mean z)."""
        eps = self.cfg.get("label_smoothing", 0.0) if label_smoothing is None else label_smoothing
        z, y, ignore = self.logits_and_targets(batch)
        return F.cross_entropy(z, y, ignore_index=ignore, label_smoothing=eps)


# ------------------------------------------------------------------ the LSTM translator

class TiedOut(nn.Module):
    """decoder.out with tie_embeddings: the embedding's weight, a bias of its own (or none)."""

    def __init__(self, vocab_size, bias):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(vocab_size)) if bias else None


class LstmEncoder(nn.Module):
    def __init__(self, cfg, vocab_size):
        super().__init__()
        d = cfg["d_model"]
        self.embedding = nn.Embedding(vocab_size, d)
        self.lstm = nn.LSTM(d, d, cfg["enc_layers"], bias=cfg.get("bias", True), batch_first=True,
                            dropout=cfg["dropout"] if cfg["enc_layers"] > 1 else 0.0,
                            bidirectional=cfg.get("bidirectional", True))


class AdditiveAttention(nn.Module):
    """attention = additive: score(h, m) = v . tanh(query(h) + key(m))."""

    def __init__(self, d, bias):
        super().__init__()
        self.query = nn.Linear(d, d, bias=False)
        self.key = nn.Linear(d, d, bias=bias)
        self.v = nn.Linear(d, 1, bias=False)

    def forward(self, h, memory):                                             # -> (B,Tt,Ts)
        return self.v(torch.tanh(self.query(h)[:, :, None, :] + self.key(memory)[:, None, :, :]))[..., 0]


class LstmDecoder(nn.Module):
    def __init__(self, cfg, vocab_size):
        super().__init__()
        d, bias = cfg["d_model"], cfg.get("bias", True)
        self.embedding = nn.Embedding(vocab_size, d)
        self.lstm = nn.LSTM(d, d, cfg["dec_layers"], bias=bias, batch_first=True,
                            dropout=cfg["dropout"] if cfg["dec_layers"] > 1 else 0.0)
        if cfg.get("attention", "dot") == "additive":
            self.attn = AdditiveAttention(d, bias)
        self.attn_combine = nn.Linear(2 * d, d, bias=bias)
        self.out = TiedOut(vocab_size, bias) if cfg.get("tie_embeddings") else nn.Linear(d, vocab_size, bias=bias)


class LstmModel(nn.Module):
    """model = lstm (docs/design.md §2.8, names §3.6): packed bidirectional encoder with the two
    directions summed, decoder started from the encoder's final states, Luong dot attention,
    a = tanh(attn_combine [ctx; h]) -> out. No input feeding."""

    def __init__(self, cfg, src_vocab, tgt_vocab):
        super().__init__()
        self.cfg = cfg
        self.kind = "lstm"
        self.encoder = LstmEncoder(cfg, src_vocab)
        self.decoder = LstmDecoder(cfg, tgt_vocab)

    def forward(self, src, tgt_in):
        d, p = self.cfg["d_model"], self.cfg["dropout"]
        B, Ts = src.shape
        real = src != PAD
        idx = torch.arange(1, Ts + 1, device=src.device).expand(B, Ts)
        lengths = (idx * real).max(1).values                           # up to the last real token
        x = F.dropout(self.encoder.embedding(src), p, self.training)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, (h, c) = self.encoder.lstm(packed)
        memory, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=Ts)
        if self.encoder.lstm.bidirectional:
            L = self.encoder.lstm.num_layers
            memory = memory[..., :d] + memory[..., d:]
            h, c = h.view(L, 2, B, d).sum(1), c.view(L, 2, B, d).sum(1)
        y = F.dropout(self.decoder.embedding(tgt_in), p, self.training)
        y, _ = self.decoder.lstm(y, (h, c))                                       # (B,Tt,d)
        if hasattr(self.decoder, "attn"):
            scores = self.decoder.attn(y, memory)
        else:
            scores = y @ memory.transpose(1, 2)                                   # (B,Tt,Ts)
        keep = idx <= lengths[:, None]
        scores = scores.masked_fill(~keep[:, None, :], float("-inf"))
        ctx = torch.softmax(scores, -1) @ memory
        a = F.dropout(torch.tanh(self.decoder.attn_combine(torch.cat([ctx, y], -1))), p, self.training)
        if isinstance(self.decoder.out, TiedOut):
            return F.linear(a, self.decoder.embedding.weight, self.decoder.out.bias)
        return self.decoder.out(a)                                                # (B,Tt,V)

    def logits_and_targets(self, batch):
        z = self(batch["src"], batch["tgt_in"])
        return z.reshape(-1, z.shape[-1]), batch["tgt_out"].reshape(-1), PAD

    def loss(self, batch, label_smoothing=None):
        eps = self.cfg.get("label_smoothing", 0.0) if label_smoothing is None else label_smoothing
        z, y, ignore = self.logits_and_targets(batch)
        return F.cross_entropy(z, y, ignore_index=ignore, label_smoothing=eps)


def vocab(path, side="src"):
    """The tokens of a run's vocabulary, id = index: vocab.txt (classifier, lm) or
    src_vocab.txt / tgt_vocab.txt (translator; side = "src" or "tgt")."""
    folder = path if os.path.isdir(path) else os.path.dirname(path) or "."
    name = os.path.join(folder, "vocab.txt")
    if not os.path.exists(name):
        name = os.path.join(folder, "%s_vocab.txt" % side)
    with open(name, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def locate(path):
    return os.path.join(path, "model.safetensors") if os.path.isdir(path) else path


def load(path, overrides=None, config_text=None, dtype=None):
    """The module of a run folder (or its model.safetensors): built from the config in the
    checkpoint's metadata (or config_text, e.g. a dump's resolved config), then every
    tensor loaded by name (strict: a missing or extra tensor is an error). overrides:
    ["rope_scale=4", "pos_offset=16", ...] as ./eval takes them. Returned in eval mode."""
    tensors, meta = read_safetensors(locate(path))
    if "config" not in meta:
        raise ValueError("%s: no config in the metadata: not a checkpoint of this project" % path)
    cfg = apply_overrides(parse_config(config_text or meta["config"]), overrides)
    weights = {k: v for k, v in tensors.items() if not k.startswith("optimizer.")}
    kind = cfg["model"]
    if kind == "lstm":
        model = LstmModel(cfg, weights["encoder.embedding.weight"].shape[0],
                          weights["decoder.embedding.weight"].shape[0])
    elif kind == "translator":
        model = Model(cfg, weights["src_embed.weight"].shape[0], weights["tgt_embed.weight"].shape[0])
    elif kind == "classifier":
        model = Model(cfg, weights["embed.weight"].shape[0], n_classes=weights["head.weight"].shape[0])
    else:
        model = Model(cfg, weights["embed.weight"].shape[0])
    model.load_state_dict(weights, strict=True)
    if dtype is not None:
        model.to(dtype)
    return model.eval()


# ------------------------------------------------------------------ the check against C

def read_eval_csv(path, kind, window):
    """./eval's rows of the validation data -> (loss, token_acc, count) combined over rows."""
    import csv
    rows = [r for r in csv.DictReader(open(path)) if r["split"] == "val"]
    if kind == "lm":
        rows = [r for r in rows if int(r["length"]) == window]
    elif kind in ("translator", "lstm"):
        rows = [r for r in rows if int(r["length"]) == 0]
    if not rows:
        raise ValueError("%s: no validation row" % path)
    if kind in ("translator", "lstm") and len(rows) != 1:
        raise ValueError("%s: %d validation rows; expected one" % (path, len(rows)))
    n = sum(int(r["examples"]) for r in rows)     # classifier: one target per example
    loss = sum(float(r["loss"]) * int(r["examples"]) for r in rows) / n
    acc = sum(float(r["token_acc"]) * int(r["examples"]) for r in rows) / n
    return loss, acc


def step_gradients(model, batch, eps):
    """(loss, {name: gradient as float64}) of one training step on batch."""
    model.zero_grad()
    loss = model.loss(batch, label_smoothing=eps)
    loss.backward()
    grads = {n: (p.grad if p.grad is not None else torch.zeros_like(p)).detach().to(torch.float64)
             for n, p in model.named_parameters()}
    return loss.item(), grads


def check(dump_path, run_path, eval_csv, name, dtype, loss_tol, grad_tol):
    """Loss and accuracy on the dump's batch against ./eval's row, the loss against the
    dump's, and every parameter's gradient against C's. Returns (ok, one result line)."""
    dump, meta = read_safetensors(dump_path)
    model = load(run_path, config_text=meta.get("config"), dtype=dtype)
    cfg = model.cfg
    batch = {k.split(".", 1)[1]: v.to(torch.int64) for k, v in dump.items() if k.startswith("batch.")}
    problems = []

    # ./eval's numbers: dropout off, no smoothing, every kept target.
    with torch.no_grad():
        z, y, ignore = model.logits_and_targets(batch)
        keep = y != ignore
        loss_t = F.cross_entropy(z, y, ignore_index=ignore).item()
        right = (z[keep].argmax(-1) == y[keep]).sum().item()
        total = keep.sum().item()
    loss_c, acc_c = read_eval_csv(eval_csv, model.kind, cfg["window"])
    acc_t = right / total
    loss_rel = abs(loss_t - loss_c) / abs(loss_t)
    # ./eval prints 6 significant digits: its accuracy is right/total rounded to them.
    right_c = round(acc_c * total)
    if loss_rel > loss_tol:
        problems.append("loss: ./eval %.6g, torch %.9g, relative difference %.3g > %g" % (loss_c, loss_t, loss_rel, loss_tol))
    if right_c != right:
        problems.append("token accuracy: ./eval %d/%d (%.6g), torch %d/%d" % (right_c, total, acc_c, right, total))

    # One step: the training loss (label smoothing as configured), one backward pass, in
    # the reference precision and, to know how well float32 can do at all, in float32.
    eps = float(meta.get("label_smoothing", cfg.get("label_smoothing", 0.0)))
    step_loss, grads = step_gradients(model, batch, eps)
    if dtype == torch.float32:
        grads32 = grads
    else:
        grads32 = step_gradients(load(run_path, config_text=meta.get("config"), dtype=torch.float32), batch, eps)[1]
    dump_loss = dump["loss"].item()
    step_rel = abs(step_loss - dump_loss) / abs(step_loss)
    if step_rel > loss_tol:
        problems.append("step loss: C %.9g, torch %.9g, relative difference %.3g" % (dump_loss, step_loss, step_rel))
    missing = sorted(set(grads) - {k[5:] for k in dump if k.startswith("grad.")})
    if missing:
        problems.append("the dump has no gradient for " + ", ".join(missing))
    # Per tensor: the largest |C - torch| relative to the tensor's largest |torch|, at most
    # grad_tol. Two things float32 cannot do, whoever computes it, are allowed for:
    # - a gradient that is zero in exact arithmetic (the key bias: softmax ignores what every
    #   score of a row shares) is float32 noise: it is measured against the model's largest
    #   gradient instead;
    # - a tensor that float32 PyTorch itself gets wrong by e32 (a ReLU input at its kink
    #   taking the other branch than in float64, a sum that cancels) gets grad_tol + 2 e32.
    overall = max(g.abs().max().item() for g in grads.values())
    every_diff = 0.0
    worst = {"rel": 0.0, "name": "", "e32": 0.0, "bound": grad_tol}
    zero_worst = 0.0
    for pname, g_t in grads.items():
        if ("grad." + pname) not in dump:
            continue
        g_c = dump["grad." + pname].to(torch.float64)
        if g_c.shape != g_t.shape:
            problems.append("%s: C gradient shape %s, torch %s" % (pname, list(g_c.shape), list(g_t.shape)))
            continue
        scale = g_t.abs().max().item()
        diff = (g_c - g_t).abs().max().item()
        every_diff = max(every_diff, diff)
        if scale <= 1e-12 * overall:
            rel = diff / overall
            zero_worst = max(zero_worst, rel)
            if rel > grad_tol:
                problems.append("gradient of %s (zero in exact arithmetic): largest |C| = %.3g, relative to the model's "
                                "largest gradient %.3g: %.3g > %g" % (pname, diff, overall, rel, grad_tol))
            continue
        rel = diff / scale
        e32 = (grads32[pname] - g_t).abs().max().item() / scale
        bound = grad_tol + 2 * e32
        if rel > worst["rel"]:
            worst = {"rel": rel, "name": pname, "e32": e32, "bound": bound}
        if rel > bound:
            problems.append("gradient of %s: largest |C - torch| = %.3g, largest |torch| = %.3g: relative %.3g > %.3g "
                            "(%g + 2 x float32 torch's own %.3g)" % (pname, diff, scale, rel, bound, grad_tol, e32))
    line = ("%s loss_c=%.6g loss_torch=%.9g loss_rel=%.3g acc_c=%d/%d acc_torch=%d/%d step_loss_rel=%.3g "
            "grad_rel=%.3g grad_worst=%s grad_f32_torch=%.3g grad_bound=%.3g grad_rel_model=%.3g zero_grad_rel=%.3g") % (
        name, loss_c, loss_t, loss_rel, right_c, total, right, total, step_rel,
        worst["rel"], worst["name"], worst["e32"], worst["bound"], every_diff / overall, zero_worst)
    return not problems, line, problems


def check_cases(cases_path, table_path, dtype, loss_tol, grad_tol):
    failed = 0
    keys = ("loss_c", "loss_torch", "loss_rel", "acc_c", "acc_torch", "step_loss_rel", "grad_rel", "grad_worst",
            "grad_f32_torch", "grad_bound", "grad_rel_model", "zero_grad_rel")
    table = ["\t".join(("case",) + keys)]
    for line in open(cases_path):
        if not line.strip():
            continue
        name, dump, run, csv_path = line.split()
        try:
            ok, result, problems = check(dump, run, csv_path, name, dtype, loss_tol, grad_tol)
        except (OSError, ValueError, KeyError, RuntimeError) as e:
            ok, result, problems = False, name, ["%s: %s" % (type(e).__name__, e)]
        print(("PASS " if ok else "RESULT ") + result, flush=True)
        for p in problems:
            print("MISMATCH %s: %s" % (name, p), flush=True)
        failed += not ok
        fields = dict(f.split("=", 1) for f in result.split()[1:])
        if fields:
            table.append("\t".join([name] + [fields[k] for k in keys]))
    if table_path:
        with open(table_path, "w") as f:
            f.write(markdown_tables(table) if table_path.endswith(".md") else "\n".join(table) + "\n")
    return 1 if failed else 0


def markdown_tables(tsv_rows):
    """The results as Markdown: a grid (scheme or block x kind and norm: loss / gradient
    differences), then every column for every case. Case names are KIND_SCHEME_NORM, or
    KIND_BLOCK_NORM for the block options (rmsnorm, swiglu, nobias, and llama: all three)."""
    head = tsv_rows[0].split("\t")
    rows = [dict(zip(head, r.split("\t"))) for r in tsv_rows[1:]]
    by_name = {r["case"]: r for r in rows}
    kinds = [k for k in ("classifier", "translator", "lm") if any(r["case"].startswith(k + "_") for r in rows)]
    schemes = []                                       # in the order of the cases (the registry's)
    for r in rows:
        scheme = r["case"].split("_")[1]
        if scheme not in schemes:
            schemes.append(scheme)
    cols = [(k, n) for k in kinds for n in ("pre", "post")]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        commit = ""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
    except OSError:
        pass
    out = ["Written by `TORCH_REFERENCE_TABLE=FILE sh tests/test_torch_reference.sh` "
           "(scripts/torch_model.py --table) at commit %s on %s, torch %s." % (
               commit or "?", cpu, torch.__version__), "",
           "Largest relative differences, C (float32) against PyTorch (float64): ./eval loss / gradient "
           "(the worst tensor's largest |C - torch| over its largest |torch|).", "",
           "| scheme | " + " | ".join("%s %s-LN" % c for c in cols) + " |",
           "| --- |" + " ---: |" * len(cols)]
    for sc in schemes:
        cells = []
        for k, n in cols:
            r = by_name.get("%s_%s_%s" % (k, sc, n))
            cells.append("%s / %s" % (r["loss_rel"], r["grad_rel"]) if r else "—")
        out.append("| %s | %s |" % (sc, " | ".join(cells)))
    out += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    out += ["| " + " | ".join(r[h] for h in head) + " |" for r in rows]
    return "\n".join(out) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(
        prog="scripts/torch_model.py",
        description="The project's models in PyTorch, built from a checkpoint (see the module docstring: "
                    "load(run_dir) gives an nn.Module with the run's weights, named as in the checkpoint).",
        epilog="examples:\n"
               "  scripts/torch_model.py runs/rope                 # what load() builds from runs/rope\n"
               "  scripts/torch_model.py runs/rope rope_scale=4    # with an override, as ./eval takes them\n"
               "  ./eval runs/rope splits=val > e.csv; ./eval runs/rope --dump-grads d.safetensors\n"
               "  scripts/torch_model.py --check d.safetensors runs/rope --eval-csv e.csv\n"
               "exit status: 0, 1 on a mismatch (--check), 2 on bad input",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", nargs="?", help="run folder or model.safetensors")
    ap.add_argument("overrides", nargs="*", help="key=value changes to the stored config")
    ap.add_argument("--check", metavar="DUMP",
                    help="compare with a file of ./eval RUN --dump-grads DUMP (needs --eval-csv); "
                         "then RUN's overrides come from the dump's config")
    ap.add_argument("--eval-csv", metavar="FILE", help="the output of ./eval RUN splits=val (same overrides)")
    ap.add_argument("--cases", metavar="FILE",
                    help="many checks in one process: FILE has lines 'NAME DUMP RUN EVAL_CSV'; prints "
                         "'PASS NAME ...' or 'MISMATCH NAME: ...' per case; exit 1 if any case differs")
    ap.add_argument("--table", metavar="FILE", help="with --cases: also write the results as a TSV table")
    ap.add_argument("--name", default="check", help="the case's name in the result line")
    ap.add_argument("--float32", action="store_true", help="run torch in float32 (default float64, the exact reference)")
    ap.add_argument("--loss-tol", type=float, default=1e-4, help="largest relative loss difference (default 1e-4)")
    ap.add_argument("--grad-tol", type=float, default=1e-4,
                    help="largest |C - torch| over a tensor's gradient, relative to its largest |torch| (default 1e-4)")
    a = ap.parse_args(argv)
    dtype = torch.float32 if a.float32 else torch.float64
    try:
        if a.cases:
            return check_cases(a.cases, a.table, dtype, a.loss_tol, a.grad_tol)
        if a.check:
            if not a.eval_csv:
                ap.error("--check needs --eval-csv")
            ok, line, problems = check(a.check, a.run, a.eval_csv, a.name, dtype, a.loss_tol, a.grad_tol)
            print(line)
            for p in problems:
                print("MISMATCH %s: %s" % (a.name, p))
            return 0 if ok else 1
        if not a.run:
            ap.error("give a run folder (or --cases FILE)")
        model = load(a.run, a.overrides)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        print("torch_model.py: %s" % e, file=sys.stderr)
        return 2
    n = sum(p.numel() for p in model.parameters())
    c = model.cfg
    print("%s: %s, pos = %s, d_model %d, %d heads, %s, %s, %s, bias %s, %d parameters" % (
        locate(a.run), model.kind, c["pos"], c["d_model"], c["n_heads"], "pre-LN" if c["norm_first"] else "post-LN",
        c.get("norm", "layernorm"), c["activation"], str(c.get("bias", True)).lower(), n))
    for k, v in model.state_dict().items():
        print("  %-44s %s" % (k, list(v.shape)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
