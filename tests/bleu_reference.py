#!/usr/bin/env python3
"""Independent reference for src/score/bleu.c: corpus BLEU with 13a tokenisation and "exp"
smoothing, written from sacreBLEU's documented defaults with Python's own regex engine and
str.lower(), to cross-check the C code on real output.

usage: bleu_reference.py HYP_FILE REF_FILE [--lc]   -> prints "BLEU precisions bp sys_len ref_len"
"""
import math
import re
import sys
from collections import Counter

RULES = [
    (re.compile(r'([\{-\~\[-\` -\&\(-\+\:-\@\/])'), r' \1 '),
    (re.compile(r'([^0-9])([\.,])'), r'\1 \2 '),
    (re.compile(r'([\.,])([^0-9])'), r' \1 \2'),
    (re.compile(r'([0-9])(-)'), r'\1 \2 '),
]


def tok13a(line):
    for a, b in [('<skipped>', ''), ('-\n', ''), ('\n', ' '), ('&quot;', '"'), ('&amp;', '&'),
                 ('&lt;', '<'), ('&gt;', '>')]:
        line = line.replace(a, b)
    line = ' ' + line + ' '
    for rx, repl in RULES:
        line = rx.sub(repl, line)
    return line.split()


def ngrams(toks, n):
    return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))


def corpus_bleu(hyps, refs, lc=False):
    correct, total, sys_len, ref_len = [0] * 4, [0] * 4, 0, 0
    for h, r in zip(hyps, refs):
        if lc:
            h, r = h.lower(), r.lower()
        ht, rt = tok13a(h.rstrip()), tok13a(r.rstrip())
        sys_len += len(ht)
        ref_len += len(rt)
        for n in range(1, 5):
            hc, rc = ngrams(ht, n), ngrams(rt, n)
            correct[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            total[n - 1] += max(0, len(ht) - n + 1)
    bp = 1.0 if sys_len >= ref_len else (math.exp(1 - ref_len / sys_len) if sys_len else 0.0)
    prec = [0.0] * 4
    if not any(correct):
        return 0.0, prec, bp, sys_len, ref_len
    smooth = 1.0
    for n in range(4):
        if total[n] == 0:
            break
        if correct[n] == 0:
            smooth *= 2
            prec[n] = 100.0 / (smooth * total[n])
        else:
            prec[n] = 100.0 * correct[n] / total[n]
    score = bp * math.exp(sum(math.log(p) if p > 0 else -9999999999 for p in prec) / 4)
    return score, prec, bp, sys_len, ref_len


if __name__ == '__main__':
    hyp = open(sys.argv[1], encoding='utf-8').read().split('\n')
    ref = open(sys.argv[2], encoding='utf-8').read().split('\n')
    if hyp and hyp[-1] == '':
        hyp.pop()
    if ref and ref[-1] == '':
        ref.pop()
    s, p, bp, sl, rl = corpus_bleu(hyp, ref, '--lc' in sys.argv)
    print('%.4f %s %.4f %d %d' % (s, '/'.join('%.4f' % x for x in p), bp, sl, rl))
