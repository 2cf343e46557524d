#!/bin/sh
# Effect sizes with 95% intervals for the length-generalisation remedies, from the per-seed CSVs.
set -eu

usage() {
    cat <<'EOF'
usage: scripts/verdicts.sh [--out DIR]
       scripts/verdicts.sh --t DF | --paired "A1 A2 ..." "B1 B2 ..." | --welch "A1 ..." "B1 ..."
       scripts/verdicts.sh --bootstrap "K/N[+K/N...] ..." "K/N[+K/N...] ..."

Reads the per-seed rows of
  results/eos_decision/results.csv          translator, +EOS / -EOS / oracle / randomized
  results/eos_decision_converge/results.csv the same, trained until 99% validation exact match
  results/extrapolate/results.csv           translator, rope evaluated with rope_base=40000
  results/lengthgen/results.csv             translator copy and reverse, plain and randomized
  results/lengthgen/lm_results.csv          decoder-only copy, reverse, duplicate (+ logscale)
  results/lengthgen_random/long/results.csv RoPE copier, 3000 steps, plain and randomized
  results/lengthgen_long_lm/results.csv     decoder-only ALiBi copy, 3000 and 6000 steps
  results/extend_context/results.csv        language model, RoPE stretched and fine-tuned
  results/finetune_budget/results.csv       the same, fine-tuned for 40, 200 and 1000 steps
  results/lengthgen/lm_mrr.csv              the MRR of the seed means (for comparison)
  results/lengthgen_converge/lm_results.csv the decoder-only study trained to convergence
  results/lengthgen_converge/lm_mrr.csv     (lengthgen.sh --converge) and its MRR
  results/rope_base_converge/results.csv    translator, RoPE base at training and at evaluation,
                                            trained to convergence (rope_base.sh --converge)
  results/lengthgen_converge/results.csv    translator copy and reverse, plain and randomized,
                                            trained to convergence (lengthgen.sh --converge)
  results/lengthgen_lm_random_converge/lm_results.csv
                                            decoder-only, randomized, trained to convergence
and writes DIR/verdicts.csv and DIR/verdicts.md (DIR: results/verdicts): one row per
comparison of row A against row B, with the mean and sample sd (n-1) of each over the seeds,
the effect A-B (points for percentages), its 95% interval and a verdict; DIR/summary.md, the
findings at a glance (one row per claim: the models trained longest); DIR/summary.svg,
the summary's quoted row of each remedy as a forest plot (one scale per row); and DIR/mrr.csv,
the decoder-only MRR of each scheme per seed (ranked as scripts/mrr.sh ranks) with its interval
(DIR/mrr_converge.csv: the same for the models trained to convergence).

  paired     A and B are the same trained models evaluated two ways: Student t interval on
             the per-seed differences, df = n-1
  bootstrap  A and B are different trained models (even with the same seeds), compared on
             exact match: the 2.5th and 97.5th percentiles of 4000 resampled differences, each
             resample drawing the seeds with replacement and then each seed's test inputs with
             replacement (an input scores 0 or 1, so a set of N inputs with K exact is a
             binomial draw Bin(N, K/N)); the note gives the Welch interval beside it. On the
             decoder-only MRR, the same over every scheme at once: a resample draws the seeds
             for all schemes, redraws each length's inputs and ranks the schemes again
  welch      A and B are different trained models, on a metric without per-input scores here
             (token accuracy): Welch t interval, df by Welch-Satterthwaite (fractional)
  one-sample B is a fixed number (a target): Student t interval of A's mean minus it

t_{0.975,df} is found by bisection on the t distribution's tail, computed with the
regularized incomplete beta function (continued fraction), so fractional df are exact.
Verdict: "untested (one seed: no interval)" if either row has a single seed; "untested (not
learned: NN% in distribution)" if either row's mean exact match at
the longest training length (3 clauses, 16 symbols) is below 90%; else "reproduced" (the
interval excludes 0 in the claim's direction), "opposite" (excludes 0 against it), "effect"
(excludes 0, the claim gives no direction) or "within the spread" (the interval holds 0).
A tested row with fewer than 5 seeds whose means lie within twice the larger sample sd of
each other is noted "wants 5 seeds" (three seeds decide little there), and the summary's
tally counts such rows.

  --out DIR   where to write (default results/verdicts)
  --t DF      print t_{0.975,DF} and exit
  --paired A B, --welch A B
              print "mean_diff lo hi df t" for two space-separated samples and exit
  --bootstrap A B
              print "mean_diff lo hi" for two samples of seeds, each seed K/N (K of N inputs
              exact) or several test sets K/N+K/N+... (the seed's mean over them), and exit
EOF
}

# The statistics, shared by every mode.
STATS='
function gammln(x,   y, tmp, ser, j, c) {
    split("76.18009172947146 -86.50532032941677 24.01409824083091 -1.231739572450155 " \
          "0.1208650973866179e-2 -0.5395239384953e-5", c, " ")
    y = x; tmp = x + 5.5; tmp -= (x + 0.5) * log(tmp); ser = 1.000000000190015
    for (j = 1; j <= 6; j++) { y++; ser += c[j] / y }
    return -tmp + log(2.5066282746310005 * ser / x)
}
function betacf(a, b, x,   m, m2, aa, c, d, del, h, qab, qam, qap) {
    qab = a + b; qap = a + 1; qam = a - 1; c = 1; d = 1 - qab * x / qap
    if (d < 0 ? -d < 1e-300 : d < 1e-300) d = 1e-300
    d = 1 / d; h = d
    for (m = 1; m <= 300; m++) {
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d; if (d < 0 ? -d < 1e-300 : d < 1e-300) d = 1e-300
        c = 1 + aa / c; if (c < 0 ? -c < 1e-300 : c < 1e-300) c = 1e-300
        d = 1 / d; h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d; if (d < 0 ? -d < 1e-300 : d < 1e-300) d = 1e-300
        c = 1 + aa / c; if (c < 0 ? -c < 1e-300 : c < 1e-300) c = 1e-300
        d = 1 / d; del = d * c; h *= del
        if ((del - 1 < 0 ? 1 - del : del - 1) < 1e-15) break
    }
    return h
}
function betai(a, b, x,   bt) {
    if (x <= 0) return 0
    if (x >= 1) return 1
    bt = exp(gammln(a + b) - gammln(a) - gammln(b) + a * log(x) + b * log(1 - x))
    if (x < (a + 1) / (a + b + 2)) return bt * betacf(a, b, x) / a
    return 1 - bt * betacf(b, a, 1 - x) / b
}
# two-sided tail P(|T| > t) of Student t with df degrees of freedom
function ttail(t, df) { return betai(df / 2, 0.5, df / (df + t * t)) }
# t_{0.975,df}: the t with P(|T| > t) = 0.05, by bisection
function tq(df,   lo, hi, mid, i) {
    if (df > 1e7) return 1.959963984540054
    lo = 0; hi = 1e4
    for (i = 0; i < 200; i++) {
        mid = (lo + hi) / 2
        if (ttail(mid, df) > 0.05) lo = mid; else hi = mid
    }
    return (lo + hi) / 2
}
function mean(x, n,   i, s) { s = 0; for (i = 1; i <= n; i++) s += x[i]; return s / n }
function sd(x, n,   i, m, s) {
    if (n < 2) return 0
    m = mean(x, n); s = 0
    for (i = 1; i <= n; i++) s += (x[i] - m) * (x[i] - m)
    return sqrt(s / (n - 1))
}
# Sets R["d"], R["lo"], R["hi"], R["df"] (-1: no spread, the interval is the point), R["t"].
function paired_ci(a, b, n,   d, i, m, s, t) {
    for (i = 1; i <= n; i++) d[i] = a[i] - b[i]
    m = mean(d, n); s = sd(d, n); R["d"] = m
    if (s == 0 || n < 2) { R["lo"] = m; R["hi"] = m; R["df"] = -1; R["t"] = 0; return }
    t = tq(n - 1); R["df"] = n - 1; R["t"] = t
    R["lo"] = m - t * s / sqrt(n); R["hi"] = m + t * s / sqrt(n)
}
function welch_ci(a, na, b, nb,   va, vb, se2, df, t, m) {
    m = mean(a, na) - mean(b, nb); R["d"] = m
    va = sd(a, na) ^ 2 / na; vb = sd(b, nb) ^ 2 / nb; se2 = va + vb
    if (se2 == 0) { R["lo"] = m; R["hi"] = m; R["df"] = -1; R["t"] = 0; return }
    df = se2 * se2 / ((na > 1 ? va * va / (na - 1) : 0) + (nb > 1 ? vb * vb / (nb - 1) : 0))
    t = tq(df); R["df"] = df; R["t"] = t
    R["lo"] = m - t * sqrt(se2); R["hi"] = m + t * sqrt(se2)
}
# The bootstrap over seeds and examples, for the exact match of different trained models. A
# side is NSD[x] seeds of NP[x] test sets each, seed s scoring SK[x, s, j] of SN[x, s, j] inputs
# exactly on set j; its statistic is the mean over the seeds of the mean over the sets of
# SK/SN. One resample draws NSD[x] seeds with replacement, then every drawn set'"'"'s inputs with
# replacement: as an input scores 0 or 1, that count is a binomial draw Bin(SN, SK/SN). The
# interval: the 2.5th and 97.5th percentiles of BOOT resampled differences A - B. The random
# stream (Park-Miller, exact in double arithmetic) restarts for every comparison.
function unif() { RNGX = (48271 * RNGX) % 2147483647; return RNGX / 2147483647 }
function binom_draw(n, k,   key, j, lo, hi, mid, u, p, tot, lf, l) {
    if (k <= 0) return 0
    if (k >= n) return n
    key = n "," k
    if (!(key in CDFN)) {   # the cumulative binomial distribution, once for each n and k
        p = k / n; tot = 0; lf = gammln(n + 1)
        for (j = 0; j <= n; j++) {
            l = lf - gammln(j + 1) - gammln(n - j + 1) + j * log(p) + (n - j) * log(1 - p)
            if (l > -700) tot += exp(l)   # below, exp underflows: the term adds nothing
            CDF[key, j] = tot
        }
        CDFN[key] = tot
    }
    u = unif() * CDFN[key]; lo = 0; hi = n
    while (lo < hi) { mid = int((lo + hi) / 2); if (CDF[key, mid] >= u) hi = mid; else lo = mid + 1 }
    return lo
}
function side_draw(x,   i, s, j, sum, tot) {
    tot = 0
    for (i = 1; i <= NSD[x]; i++) {
        s = 1 + int(unif() * NSD[x]); sum = 0
        for (j = 1; j <= NP[x]; j++) sum += binom_draw(SN[x, s, j], SK[x, s, j]) / SN[x, s, j]
        tot += sum / NP[x]
    }
    return tot / NSD[x]
}
function sort_numbers(v, n,   gap, i, j, t) {   # Shell sort, ascending
    for (gap = int(n / 2); gap > 0; gap = int(gap / 2))
        for (i = gap + 1; i <= n; i++) {
            t = v[i]
            for (j = i; j > gap && v[j - gap] > t; j -= gap) v[j] = v[j - gap]
            v[j] = t
        }
}
# Sets R["d"] (the difference of the two sides'"'"' statistics), R["lo"], R["hi"]; R["df"] = -2.
function bootstrap_ci(   r, D, i, j, s, ma, mb) {
    ma = 0; for (s = 1; s <= NSD["a"]; s++) { for (j = 1; j <= NP["a"]; j++) ma += SK["a", s, j] / SN["a", s, j] / NP["a"] }
    mb = 0; for (s = 1; s <= NSD["b"]; s++) { for (j = 1; j <= NP["b"]; j++) mb += SK["b", s, j] / SN["b", s, j] / NP["b"] }
    RNGX = 1
    for (r = 1; r <= BOOT; r++) D[r] = side_draw("a") - side_draw("b")
    percentile_ci(D)
    R["d"] = ma / NSD["a"] - mb / NSD["b"]
}
# percentile_ci(D): R["lo"], R["hi"] the 2.5th and 97.5th percentiles of the BOOT resampled
# differences D (sorted in place); R["df"] = -2 marks a bootstrap interval
function percentile_ci(D) {
    sort_numbers(D, BOOT)
    R["df"] = -2; R["t"] = 0
    R["lo"] = D[int(0.025 * BOOT + 0.5)]; R["hi"] = D[int(0.975 * BOOT + 0.5) + 1]
}
BEGIN { BOOT = 4000 }
'

out=results/verdicts
mode=run
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out) [ $# -ge 2 ] || { echo "$0: --out needs a folder" >&2; exit 1; }; out=$2; shift 2 ;;
        --t) [ $# -ge 2 ] || { echo "$0: --t needs a df" >&2; exit 1; }
            awk -v df="$2" "$STATS"'BEGIN { printf "%.6f\n", tq(df + 0) }'; exit 0 ;;
        --bootstrap)
            [ $# -ge 3 ] || { echo "$0: $1 needs two samples" >&2; exit 1; }
            awk -v sa="$2" -v sb="$3" "$STATS"'
            function load(x, sample,   seeds, i, sets, j, kn) {
                NSD[x] = split(sample, seeds, " ")
                for (i = 1; i <= NSD[x]; i++) {
                    NP[x] = split(seeds[i], sets, "+")
                    for (j = 1; j <= NP[x]; j++) {
                        if (split(sets[j], kn, "/") != 2 || kn[2] + 0 < 1 || kn[1] + 0 < 0 || kn[1] + 0 > kn[2] + 0) {
                            print "verdicts.sh: --bootstrap wants seeds as K/N or K/N+K/N+..., not " sets[j] > "/dev/stderr"; exit 1 }
                        SK[x, i, j] = kn[1] + 0; SN[x, i, j] = kn[2] + 0
                    }
                }
            }
            BEGIN { load("a", sa); load("b", sb); bootstrap_ci()
                    printf "%.6f %.6f %.6f\n", R["d"], R["lo"], R["hi"] }'
            exit $? ;;
        --paired|--welch)
            [ $# -ge 3 ] || { echo "$0: $1 needs two samples" >&2; exit 1; }
            awk -v m="$1" -v sa="$2" -v sb="$3" "$STATS"'BEGIN {
                na = split(sa, a, " "); nb = split(sb, b, " ")
                if (m == "--paired") {
                    if (na != nb) { print "verdicts.sh: --paired needs samples of one size" > "/dev/stderr"; exit 1 }
                    paired_ci(a, b, na)
                } else welch_ci(a, na, b, nb)
                printf "%.6f %.6f %.6f %.6f %.6f\n", R["d"], R["lo"], R["hi"], R["df"], R["t"] }'
            exit $? ;;
        *) usage >&2; echo "$0: unknown argument '$1'" >&2; exit 1 ;;
    esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
EOS=results/eos_decision/results.csv
EXT=results/extrapolate/results.csv
LG=results/lengthgen/results.csv
LM=results/lengthgen/lm_results.csv
LGR=results/lengthgen_random/long/results.csv
LONG=results/lengthgen_long_lm/results.csv
EC=results/extend_context/results.csv
MRR=results/lengthgen/lm_mrr.csv
LMC=results/lengthgen_converge/lm_results.csv
MRRC=results/lengthgen_converge/lm_mrr.csv
RB=results/rope_base_converge/results.csv
EOSC=results/eos_decision_converge/results.csv
FB=results/finetune_budget/results.csv
LGC=results/lengthgen_converge/results.csv
LMRC=results/lengthgen_lm_random_converge/lm_results.csv
for f in "$EOS" "$EXT" "$LG" "$LM" "$LGR" "$LONG" "$EC" "$MRR" "$LMC" "$MRRC" "$RB" "$FB" "$EOSC" "$LGC"; do
    [ -r "$f" ] || { echo "$0: cannot read $f" >&2; exit 1; }
done
# the randomized decoder-only study may not have been run yet: its rows are then left out
if [ ! -r "$LMRC" ]; then
    echo "$0: random_lm_converged left out: no $LMRC (scripts/lengthgen.sh --part decoder --variants random --tasks 'copy reverse' --converge --out ${LMRC%/*})" >&2
    LMRC=/dev/null
fi
mkdir -p "$out"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

awk -F, -v EOS="$EOS" -v EXT="$EXT" -v LG="$LG" -v LM="$LM" -v LGR="$LGR" -v LONG="$LONG" \
    -v EC="$EC" -v MRR="$MRR" -v LMC="$LMC" -v MRRC="$MRRC" -v RB="$RB" -v FB="$FB" -v EOSC="$EOSC" -v LGC="$LGC" -v LMRC="$LMRC" -v mrrout="$out/mrr.csv" -v mrrcout="$out/mrr_converge.csv" -v csvout="$out/verdicts.csv" -v mdout="$out/verdicts.md" -v svgout="$out/summary.svg" -v sumout="$out/summary.md" -v commit="$commit" \
    "$STATS$(cat scripts/rank.awk)"'
FNR == 1 { delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
function f(name) { return $col[name] }
function put(key, seed, metric) {
    if (f(metric) == "") return
    V[key "|" metric, seed] = f(metric) + 0; SEEDS[seed] = 1
    if (metric == "exact_match" && ("examples" in col)) EXN[key "|" metric, seed] = f("examples") + 0
}
FILENAME == EOS { k = "eos|" f("variant") "|" f("scheme") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
# the same translators trained to convergence (eos_decision.sh --converge)
FILENAME == EOSC { k = "eosc|" f("variant") "|" f("scheme") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
FILENAME == EXT { k = "ext|" f("view") "|" f("scheme") "|" f("x")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
FILENAME == LG { k = "lg|" f("task") "|" f("scheme") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
# the schemes in the order the decoder-only table lists them (the registry order, none first)
FILENAME == LM && !(f("scheme") in SEEN) { SEEN[f("scheme")] = 1; SCH[++nsch] = f("scheme") }
FILENAME == LM { k = "lm|" f("task") "|" f("scheme") "|" f("variant") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
# the translators trained to convergence, plain and randomized (lengthgen.sh --part translator --converge)
FILENAME == LGC { k = "lgc|" f("task") "|" f("scheme") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
# the randomized decoder-only models trained to convergence (lengthgen.sh --part decoder --variants random --converge)
FILENAME == LMRC { k = "lmrc|" f("task") "|" f("scheme") "|" f("variant") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
FILENAME == LGR { k = "lgr|" f("task") "|" f("scheme") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
FILENAME == LONG { k = "long|" f("steps") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
FILENAME == MRR && f("variant") == "plain" { POOLED[f("scheme")] = sprintf("%.3f", f("mrr")) }
# the decoder-only study trained to convergence (lengthgen.sh --converge)
FILENAME == LMC { k = "lmc|" f("task") "|" f("scheme") "|" f("variant") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
FILENAME == MRRC && f("variant") == "plain" { POOLEDC[f("scheme")] = sprintf("%.3f", f("mrr")) }
# the RoPE base at training and at evaluation, translators trained to convergence (rope_base.sh)
FILENAME == RB { k = "rb|" f("train_base") "|" f("eval_base") "|" f("decoding") "|" f("length")
    put(k, f("seed"), "exact_match"); put(k, f("seed"), "token_acc") }
FILENAME == EC { k = "ec|" f("block") "|" f("method") "|" f("window")
    put(k, f("seed"), "loss_last") }
FILENAME == FB { k = "fb|" f("method") "|" f("budget") "|" f("window")
    put(k, f("seed"), "loss_last") }

# The CPU seconds of each run of the studies trained to convergence (their cpu_seconds column:
# the sum of its compute.csv), once a run: rows that evaluate one run several ways share it.
function cpu(file, run) { if (("cpu_seconds" in col) && f("cpu_seconds") != "") CPU[file, run] = f("cpu_seconds") + 0 }
FILENAME == EOSC { v = f("variant"); sub(/\+.*/, "", v); cpu(EOSC, v "|" f("scheme") "|" f("seed")) }
FILENAME == RB { cpu(RB, f("train_base") "|" f("seed")) }
FILENAME == LGC { v = f("scheme"); sub(/ \(plain\)$/, "", v); cpu(LGC, f("task") "|" v "|" f("seed")) }
FILENAME == LMC || FILENAME == LMRC { cpu(FILENAME, f("task") "|" f("scheme") "|" f("seed")) }

# the seeds 1..NS that series s has, into x[]; returns how many
function series(s, x,   i, n) {
    n = 0
    for (i = 1; i <= NS; i++) if ((s, i) in V) x[++n] = V[s, i]
    return n
}
# derived series: the per-seed mean of the series listed in parts (";"-separated)
function avg(name, parts,   p, np, i, j, sum, cnt) {
    np = split(parts, p, ";")
    for (i = 1; i <= NS; i++) {
        sum = 0; cnt = 0
        for (j = 1; j <= np; j++) if ((p[j], i) in V) { sum += V[p[j], i]; cnt++ }
        if (cnt == np) V[name, i] = sum / cnt
    }
    AVGP[name] = parts
    return name
}
# boot_load(x, s): side x of bootstrap_ci from series s (a raw exact-match series or an avg of
# them), the seeds series(s) has; 0 if some seed or set lacks its number of inputs
function boot_load(x, s,   parts, p, np, i, j, k, n, v) {
    parts = (s in AVGP) ? AVGP[s] : s
    np = split(parts, p, ";"); NSD[x] = 0; NP[x] = np
    for (i = 1; i <= NS; i++) {
        if (!((s, i) in V)) continue
        NSD[x]++
        for (j = 1; j <= np; j++) {
            if (!((p[j], i) in EXN) || EXN[p[j], i] < 1) return 0
            n = EXN[p[j], i]; v = V[p[j], i] * n; k = int(v + 0.5)
            if (v - k > 1e-3 || k - v > 1e-3) return 0
            SN[x, NSD[x], j] = n; SK[x, NSD[x], j] = k
        }
    }
    return NSD[x] > 0
}
function lens(prefix, suffix, list,   l, n, i, s) {
    n = split(list, l, " "); s = ""
    for (i = 1; i <= n; i++) s = s (i > 1 ? ";" : "") prefix l[i] suffix
    return s
}
function fmt(x) { return sprintf(PCT ? "%.1f" : "%.3f", PCT ? 100 * x : x) }
function sgn(x,   v) {
    v = sprintf(PCT ? "%.1f" : "%.3f", PCT ? 100 * (x < 0 ? -x : x) : (x < 0 ? -x : x))
    return (v ~ /^[0.]*$/ ? "" : (x > 0 ? "+" : "-")) v
}
function q(s) { if (s ~ /[,"]/) { gsub(/"/, "\"\"", s); return "\"" s "\"" } return s }

# One comparison. key: the remedy; claim; model, task, steps, evl (evaluation length), metric;
# dir: +1 the claim expects A > B, -1 A < B, 0 no direction; A, B: labels; sa, sb: series
# (sb a number for one-sample); ia, ib: in-distribution exact-match series ("" none); head: 1
# for the row the summary quotes; note.
function cmp(key, claim, model, task, steps, evl, metric, dir, A, sa, B, sb, pairing, ia, ib, head, note,
             a, b, na, nb, i, n, ma, mb, inda, indb, low, verdict, row, iv, eff, l, s2, u) {
    PCT = (metric ~ /exact|token/)
    na = series(sa, a)
    if (pairing == "one-sample") { nb = na; for (i = 1; i <= na; i++) b[i] = sb + 0 }
    else nb = series(sb, b)
    if (na == 0 || nb == 0) { printf "verdicts.sh: no rows for %s or %s\n", sa, sb > "/dev/stderr"; bad = 1; return }
    if (pairing == "welch") {
        welch_ci(a, na, b, nb)
        # exact match: the bootstrap over seeds and inputs, with Welch'"'"'s interval in the note
        if (metric == "exact_match" && boot_load("a", sa) && boot_load("b", sb)) {
            l = "Welch t: [" sgn(R["lo"]) ", " sgn(R["hi"]) "]"
            note = note (note == "" ? "" : "; ") l
            bootstrap_ci(); pairing = "bootstrap"
        } else if (metric == "mrr") {
            l = "Welch t: [" sgn(R["lo"]) ", " sgn(R["hi"]) "]"
            if (mrr_ci(sa, sb)) { note = note (note == "" ? "" : "; ") l; pairing = "bootstrap" }
        }
    } else {
        if (na != nb) { printf "verdicts.sh: %s and %s have %d and %d seeds\n", sa, sb, na, nb > "/dev/stderr"; bad = 1; return }
        paired_ci(a, b, na)
    }
    n = (na == nb) ? na : na "+" nb
    ma = mean(a, na); mb = mean(b, nb)
    inda = ""; indb = ""; low = 2
    if (ia != "") { i = series(ia, x1); inda = mean(x1, i); if (inda < low) low = inda }
    if (ib != "") { i = series(ib, x2); indb = mean(x2, i); if (indb < low) low = indb }
    eff = sgn(R["d"]); iv = "[" sgn(R["lo"]) ", " sgn(R["hi"]) "]"
    if (pairing == "paired" && R["df"] >= 0) {
        l = ""; for (i = 1; i <= na; i++) l = l (i > 1 ? ", " : "") sgn(a[i] - b[i])
        note = note (note == "" ? "" : "; ") "A-B per seed: " l
    }
    if (R["lo"] <= 0 && R["hi"] >= 0) verdict = "within the spread"
    else if (dir == 0) verdict = "effect: " eff " " iv
    else if ((R["d"] > 0) == (dir > 0)) verdict = "reproduced: " eff " " iv
    else verdict = "opposite: " eff " " iv
    if (na < 2 || nb < 2) {
        # one seed has no spread, so no interval: the difference alone is no verdict
        note = note (note == "" ? "" : "; ") "one seed"
        verdict = "untested (one seed: no interval)"
    } else if (low < 0.9) {
        # the models had not learned the task: say so, and what the interval alone would say
        if (verdict !~ /^within/) { l = verdict; sub(/:.*/, "", l); note = note (note == "" ? "" : "; ") "interval alone: " l }
        verdict = sprintf("untested (not learned: %.1f%% in distribution)", 100 * low)
    }
    # A tested row whose means lie within twice the larger sample sd of each other: three
    # seeds decide little there, so it wants five (the summary tally counts it).
    s2 = sd(a, na); if (pairing != "one-sample" && sd(b, nb) > s2) s2 = sd(b, nb)
    if (verdict !~ /^untested/ && (na < 5 || nb < 5) && s2 > 0 && (ma - mb) * (ma - mb) < 4 * s2 * s2) {
        note = note (note == "" ? "" : "; ") "means within twice the spread: wants 5 seeds, has " n
        WANT5[key]++
    }
    NR_ROWS++
    row = q(key) "," q(claim) "," q(model) "," q(task) "," q(steps) "," q(evl) "," q(metric) "," q(A) "," q(B) "," n
    row = row "," fmt(ma) "," fmt(sd(a, na)) "," (pairing == "one-sample" ? fmt(mb) "," : fmt(mb) "," fmt(sd(b, nb))) 
    row = row "," eff "," sgn(R["lo"]) "," sgn(R["hi"]) "," (R["df"] < 0 ? "" : sprintf("%.2f", R["df"])) "," pairing
    row = row "," (inda == "" ? "" : sprintf("%.1f", 100 * inda)) "," (indb == "" ? "" : sprintf("%.1f", 100 * indb))
    row = row "," q(verdict) "," q(note)
    print row > csvout
    # for the Markdown
    K[NR_ROWS] = key; C[NR_ROWS] = claim
    SET[NR_ROWS] = model ", " task ", " steps ", " evl ", " metric
    MA[NR_ROWS] = A; MB[NR_ROWS] = B; EV[NR_ROWS] = evl (metric == "exact_match" ? "" : ", " metric)
    ST[NR_ROWS] = steps; UNIT[NR_ROWS] = PCT ? "%" : ""
    CA[NR_ROWS] = fmt(ma) " ± " fmt(sd(a, na)); CB[NR_ROWS] = (pairing == "one-sample") ? fmt(mb) : fmt(mb) " ± " fmt(sd(b, nb))
    EF[NR_ROWS] = eff; IV[NR_ROWS] = iv; UN[NR_ROWS] = PCT ? "points" : (metric == "mrr" ? "MRR" : "nats")
    u = PCT ? 100 : 1; ED[NR_ROWS] = u * R["d"]; EL[NR_ROWS] = u * R["lo"]; EH[NR_ROWS] = u * R["hi"]
    PR[NR_ROWS] = pairing " (n=" n (R["df"] == -2 ? ", " BOOT " resamples" : (R["df"] < 0 ? ", no spread" : sprintf(", df %.1f", R["df"]))) ")"
    IA[NR_ROWS] = (inda == "" ? "" : sprintf("%.1f", 100 * inda)); IB[NR_ROWS] = (indb == "" ? "" : sprintf("%.1f", 100 * indb))
    VD[NR_ROWS] = verdict; NT[NR_ROWS] = note; HEAD[NR_ROWS] = head
    if (!(key in KSEEN)) { KSEEN[key] = 1; KEYS[++NK] = key; KCLAIM[key] = claim }
    cls = verdict; sub(/[ :(].*/, "", cls); if (verdict ~ /^within/) cls = "within"
    TALLY[key, cls]++; TOTAL[key]++
    if (head == 1) HROW[key] = NR_ROWS
    if (head == 2) HROW2[key] = NR_ROWS
}

# the mean of series s over the seeds, in %, one decimal
function fmt3(s,   x, n) { n = series(s, x); return n ? sprintf("%.1f", 100 * mean(x, n)) : "?" }
# mean loss at the pretraining window (32 tokens) of the language-model series named by prefix
# ("ec|BLOCK|METHOD" of extend_context.sh, "fb|METHOD|BUDGET" of finetune_budget.sh)
function loss32(prefix,   x, n) { n = series(prefix "|32|loss_last", x); return n ? sprintf("%.3f", mean(x, n)) : "?" }
function lossat(bl, m) { return loss32("ec|" bl "|" m) }
# seeds >= target, as "k of n (v1, v2, ...)"
function seedsat(s, target,   x, n, i, k, l) {
    n = series(s, x); k = 0; l = ""
    for (i = 1; i <= n; i++) { if (x[i] >= target - 1e-9) k++; l = l (i > 1 ? ", " : "") sprintf("%.0f", 100 * x[i]) }
    return k " of " n " seeds at or above " sprintf("%.0f", 100 * target) "% (" l ")"
}

# task_scores(P, t, sd_, redraw, sc): sc[i], scheme i'"'"'s exact match on task T3[t] in seed sd_ of
# series P, averaged over the lengths 17-64 it has: as measured, or (redraw) each length'"'"'s
# inputs drawn again (a binomial draw, as bootstrap_ci). nope_rank ranks the schemes by it.
function task_scores(P, t, sd_, redraw, sc,   i, x, k, n, sum, cnt) {
    for (i = 1; i <= nsch; i++) {
        sum = 0; cnt = 0
        for (x = 17; x <= 64; x++) { k = P "|" T3[t] "|" SCH[i] "|plain|" x "|exact_match"
            if (!((k, sd_) in V)) continue
            n = EXN[k, sd_]
            sum += redraw ? binom_draw(n, int(V[k, sd_] * n + 0.5)) / n : V[k, sd_]; cnt++ }
        sc[i] = cnt ? sum / cnt : 0
    }
}
# mrr_boot(P): BOOT bootstrap resamples of every scheme'"'"'s MRR in series P, as MRRB[P, scheme,
# r]; 0 if some length lacks its number of inputs. A seed ranks the schemes against each other,
# so one resample draws the seeds with replacement for all schemes at once, then every drawn
# (seed, scheme, task, length) cell'"'"'s inputs (task_scores), ranks the schemes by their
# redrawn accuracies and averages the reciprocal ranks as nope_rank does.
function mrr_boot(P,   SD, ns, sd_, r, d, t, i, x, k, sc, tot) {
    ns = 0
    for (sd_ = 1; sd_ <= NS; sd_++) if ((P "|" T3[1] "|" SCH[1] "|plain|16|exact_match", sd_) in V) SD[++ns] = sd_
    for (d = 1; d <= ns; d++) for (t = 1; t <= 3; t++) for (i = 1; i <= nsch; i++) for (x = 17; x <= 64; x++) {
        k = P "|" T3[t] "|" SCH[i] "|plain|" x "|exact_match"
        if (((k, SD[d]) in V) && !(((k, SD[d]) in EXN) && EXN[k, SD[d]] >= 1)) return 0
    }
    RNGX = 1
    for (r = 1; r <= BOOT; r++) {
        for (i = 1; i <= nsch; i++) tot[i] = 0
        for (d = 1; d <= ns; d++) {
            sd_ = SD[1 + int(unif() * ns)]
            for (t = 1; t <= 3; t++) {
                task_scores(P, t, sd_, 1, sc)
                for (i = 1; i <= nsch; i++) tot[i] += reciprocal_rank(sc, nsch, i) / 3
            }
        }
        for (i = 1; i <= nsch; i++) MRRB[P, SCH[i], r] = tot[i] / ns
    }
    return ns > 1
}
# mrr_ci(sa, sb): R["lo"], R["hi"] of MRR A - B from the resamples of mrr_boot, for the series
# P "mrr|" SCHEME; 0 if they were not made
function mrr_ci(sa, sb,   A, B, r, D) {
    if (split(sa, A, "mrr[|]") != 2 || split(sb, B, "mrr[|]") != 2 || !MRRBOK[A[1]] || A[1] != B[1]) return 0
    for (r = 1; r <= BOOT; r++) D[r] = MRRB[A[1], A[2], r] - MRRB[B[1], B[2], r]
    percentile_ci(D)
    return 1
}

# nope_rank(P, key, steps, pooled, file): the decoder-only MRR comparisons of the series P
# ("lm": 600 steps; "lmc": trained to convergence); pooled: the MRR of the seed means per scheme
# (lm_mrr.csv); file: the per-seed MRR table (mrr.csv).
function nope_rank(P, key, steps, pooled, file,   sd_, t, i, j, sc, n, xx, yy, m_, s_, t_, RK) {
    for (sd_ = 1; sd_ <= NS; sd_++) for (t = 1; t <= 3; t++) {
        task_scores(P, t, sd_, 0, sc)
        if (!((P "|" T3[t] "|" SCH[1] "|plain|16|exact_match", sd_) in V)) continue
        for (i = 1; i <= nsch; i++) V[P "mrr|" SCH[i], sd_] += reciprocal_rank(sc, nsch, i) / 3
    }
    for (i = 1; i <= nsch; i++)
        avg(P "in3|" SCH[i], P "|copy|" SCH[i] "|plain|16|exact_match;" P "|reverse|" SCH[i] "|plain|16|exact_match;" P "|duplicate|" SCH[i] "|plain|16|exact_match")
    print "scheme,mrr_of_seed_means,mrr_mean,mrr_sd,lo95,hi95,indist" > file
    for (i = 1; i <= nsch; i++) {
        n = series(P "mrr|" SCH[i], xx); m_ = mean(xx, n); s_ = sd(xx, n); t_ = n > 1 ? tq(n - 1) : 0
        series(P "in3|" SCH[i], yy)
        MRRL[key, i] = sprintf("%s,%s,%.3f,%.3f,%.3f,%.3f,%.1f", SCH[i], pooled[SCH[i]], m_, s_, m_ - t_ * s_ / sqrt(n), m_ + t_ * s_ / sqrt(n), 100 * mean(yy, n))
        print MRRL[key, i] > file
    }
    MRRBOK[P] = mrr_boot(P)
    for (i = 2; i <= nsch; i++)
        cmp(key, "no positional encoding ranks first (Kazemnejad et al. 2023: MRR 0.69)",
            "decoder-only", "copy, reverse, duplicate", steps, "lengths 17-64", "mrr", 1,
            "none", P "mrr|none", SCH[i], P "mrr|" SCH[i], "welch", P "in3|none", P "in3|" SCH[i], SCH[i] == "alibi",
            "per-seed MRR")
    # the ranking here: the schemes by the MRR of their seed means, best first
    for (i = 1; i <= nsch; i++) {
        RK[i] = SCH[i]
        for (j = i; j > 1 && pooled[RK[j]] + 0 > pooled[RK[j - 1]] + 0; j--) { t = RK[j]; RK[j] = RK[j - 1]; RK[j - 1] = t }
    }
    for (i = 1; i < nsch; i++)
        cmp(key, "ranking here, adjacent places",
            "decoder-only", "copy, reverse, duplicate", steps, "lengths 17-64", "mrr", 1,
            RK[i], P "mrr|" RK[i], RK[i + 1], P "mrr|" RK[i + 1], "welch", P "in3|" RK[i], P "in3|" RK[i + 1], 0,
            "per-seed MRR")
}
# random_vs_plain(key, model, tasks, steps, PA, SA, PB, SB, heads): models trained on randomized
# positions against plain ones, per task: sequence and token accuracy averaged over the lengths L
# and the eight schemes with positions, then each scheme'"'"'s sequence accuracy. Row A of scheme s
# reads the series PA "|" task "|" s SA "|" length "|" metric, row B likewise with PB and SB. The
# summary quotes the first task'"'"'s eight-scheme sequence accuracy and the row of head2 ("TASK
# SCHEME"; "" none).
function random_vs_plain(key, model, tasks, steps, PA, SA, PB, SB, head2,   TKS, nt, t, m, met, i, s, pa, pb, ia, ib, u) {
    nt = split(tasks, TKS, " ")
    for (t = 1; t <= nt; t++) for (m = 1; m <= 2; m++) {
        met = (m == 1) ? "exact_match" : "token_acc"
        pa = ""; pb = ""; ia = ""; ib = ""
        for (i = 2; i <= nsch; i++) {
            s = SCH[i]
            pa = pa (i > 2 ? ";" : "") lens(PA "|" TKS[t] "|" s SA "|", "|" met, L)
            pb = pb (i > 2 ? ";" : "") lens(PB "|" TKS[t] "|" s SB "|", "|" met, L)
            ia = ia (i > 2 ? ";" : "") PA "|" TKS[t] "|" s SA "|16|exact_match"
            ib = ib (i > 2 ? ";" : "") PB "|" TKS[t] "|" s SB "|16|exact_match"
        }
        u = key "|" TKS[t] "|"
        cmp(key, "randomized positions: +12 points on algorithmic tasks (Ruoss et al. 2023)",
            model, TKS[t], steps, TKS[t] ", mean of lengths 17-64, eight schemes", met, 1,
            "random", avg(u "random|" met, pa), "plain", avg(u "plain|" met, pb), "welch",
            avg(u "random|in", ia), avg(u "plain|in", ib), head2 != "" && t == 1 && m == 1, "")
    }
    for (t = 1; t <= nt; t++) for (i = 2; i <= nsch; i++) {
        s = SCH[i]; u = key "|" TKS[t] "|" s "|"
        cmp(key, "randomized positions: +12 points on algorithmic tasks (Ruoss et al. 2023)",
            model, TKS[t], steps, TKS[t] ", mean of lengths 17-64", "exact_match", 1,
            s " + random", avg(u "r", lens(PA "|" TKS[t] "|" s SA "|", "|exact_match", L)),
            s, avg(u "p", lens(PB "|" TKS[t] "|" s SB "|", "|exact_match", L)), "welch",
            PA "|" TKS[t] "|" s SA "|16|exact_match", PB "|" TKS[t] "|" s SB "|16|exact_match",
            head2 == TKS[t] " " s ? 2 : 0, "")
    }
}
# temperature(P, key, steps): the same decoder-only models of series P with attn_logit_scale=log
function temperature(P, key, steps,   i, s, t, pa, pb, ia, ib) {
    for (i = 1; i <= nsch; i++) {
        s = SCH[i]
        cmp(key, "attention temperature log(n)/log(n_train) sharpens attention on long inputs",
            "decoder-only", "copy", steps, "32 symbols", "exact_match", 1,
            s " logscale", P "|copy|" s "|logscale|32|exact_match", s, P "|copy|" s "|plain|32|exact_match", "paired",
            P "|copy|" s "|logscale|16|exact_match", P "|copy|" s "|plain|16|exact_match", s == "alibi" ? 1 : (s == "fire" ? 2 : 0), "")
    }
    for (i = 1; i <= nsch; i++) {
        s = SCH[i]; pa = ""; pb = ""; ia = ""; ib = ""
        for (t = 1; t <= 3; t++) {
            pa = pa (t > 1 ? ";" : "") lens(P "|" T3[t] "|" s "|logscale|", "|exact_match", L)
            pb = pb (t > 1 ? ";" : "") lens(P "|" T3[t] "|" s "|plain|", "|exact_match", L)
            ia = ia (t > 1 ? ";" : "") P "|" T3[t] "|" s "|logscale|16|exact_match"
            ib = ib (t > 1 ? ";" : "") P "|" T3[t] "|" s "|plain|16|exact_match"
        }
        cmp(key, "attention temperature log(n)/log(n_train) sharpens attention on long inputs",
            "decoder-only", "copy, reverse, duplicate", steps, "mean of lengths 17-64", "exact_match", 1,
            s " logscale", avg(P "t|" s "|l", pa), s, avg(P "t|" s "|p", pb), "paired",
            avg(P "t|" s "|li", ia), avg(P "t|" s "|pi", ib), 0, "")
    }
}

END {
    NS = 0; for (s in SEEDS) if (s + 0 > NS) NS = s + 0
    print "key,claim,model,task,steps,evaluation,metric,row_a,row_b,n,mean_a,sd_a,mean_b,sd_b,effect,lo95,hi95,df,pairing,indist_a,indist_b,verdict,note" > csvout
    if (SCH[1] != "none") { print "verdicts: " LM " must list scheme none first" > "/dev/stderr"; exit 1 }
    INTRO["rope_base"] = "The translators of Lesson 2 (trained on 1-3 clauses), the same RoPE models scored with `rope_base=40000` and without (paired)."
    INTRO["eos_oracle"] = "-EOS + oracle: models trained without the end token, decoded to the reference length; +EOS: the plain models, greedy (different models: the bootstrap). +EOS + oracle: the plain models decoded to the reference length (the oracle alone: paired)."
    INTRO["random_translator"] = "Translators trained on randomized positions (drawn from 0..2047, scored on drawn positions) against the plain +EOS models, greedy."
    INTRO["random_copy"] = "Copy and reverse translators trained on randomized positions against plain ones, sequence accuracy (and token accuracy) averaged over the lengths 17-64 per seed; the eight-scheme rows average the eight schemes too, as the 600-step table of the README does. In distribution: exact match at 16 symbols (for the eight-scheme rows, the mean of the eight)."
    INTRO["longer_training"] = "The decoder-only ALiBi copier trained 3000 and 6000 steps against the 600-step models of the decoder-only tables; the target rows test the mean against 90% (one-sample t)."
    INTRO["nope_rank"] = "Mean reciprocal rank over copy, reverse and duplicate, each seed ranked by its sequence accuracy averaged over the lengths 17-64. In distribution: exact match at 16 symbols, mean of the three tasks."
    INTRO["temperature"] = "The same decoder-only models scored with `attn_logit_scale=log` and without (paired); copy at 32 symbols, and the mean over the three tasks and the lengths 17-64."
    INTRO["rope_stretch"] = "Loss on the last 32 tokens of each window (nats, lower is better). The stretched RoPE models fine-tuned 40 steps at 128 tokens against RoPE fine-tuned alike without a stretch: both start from the same pretrained model of the seed, so the per-seed differences are paired (as in rope_stretch_budget); dynamic NTK against plain RoPE, the same pretrained models (paired). No exact match here, so no row is untested; the note gives each row'"'"'s loss at the 32-token training window."
    CONVERGED = "until 99% val exact (ceiling 6000 steps)"
    CONVERGED_T = "until 99% val exact (ceiling 10000 steps)"
    INTRO["rope_base_converged"] = "Translators of `configs/rope.ini` trained until their validation exact match reached 99% (`scripts/rope_base.sh --converge`: 500-800 steps), with `model.rope_base` 10000, 40000 or 160000, and scored with `./eval rope_base=`; greedy decoding. A larger base at evaluation: the same models (paired); trained with the base against stretched to it: different models (the bootstrap). In distribution: the models as trained (base 10000 evaluated with 10000, or the trained base), since a stretch at evaluation costs accuracy at 3 clauses (the note gives it)."
    SUMCLAIM["rope_base_converged"] = "the same on translators trained to convergence; and training with the larger base instead"
    INTRO["nope_rank_converged"] = "As nope_rank, on the decoder-only models trained until their validation exact match reached 99% (`scripts/lengthgen.sh --part decoder --variants plain --converge`, ceiling 6000 steps; results/lengthgen_converge/). A model that hit the ceiling first has not learned its task, and its rows are untested."
    INTRO["temperature_converged"] = "As temperature, on the decoder-only models trained to convergence (results/lengthgen_converge/)."
    SUMCLAIM["nope_rank_converged"] = "no positional encoding ranks first, MRR 0.69 (Kazemnejad et al. 2023), on models trained to convergence"
    SUMCLAIM["temperature_converged"] = "attention temperature log(n)/log(n_train) helps on long inputs, on models trained to convergence"
    SUMNOTE["eos_oracle"] = "; the -EOS models still end with the final \".\", so only the oracle length removes the end decision"
    SUMCLAIM["rope_base"] = "a larger RoPE base at evaluation reaches longer inputs (NTK-aware scaling)"
    SUMCLAIM["eos_oracle"] = "no end token, decoded to the true length: extrapolates far better (Newman et al. 2020)"
    SUMCLAIM["random_translator"] = "randomized positions extrapolate better (Ruoss et al. 2023)"
    INTRO["eos_oracle_converged"] = "As eos_oracle, on translators trained until their validation exact match reached 99% (`scripts/eos_decision.sh --converge`, ceiling 10000 steps; results/eos_decision_converge/). A model that hit the ceiling first has not learned its task, and its rows are untested."
    INTRO["random_translator_converged"] = "As random_translator, on the translators trained to convergence (results/eos_decision_converge/)."
    SUMCLAIM["eos_oracle_converged"] = "the same on translators trained to convergence"
    SUMCLAIM["random_translator_converged"] = "the same on translators trained to convergence"
    SUMCLAIM["random_copy"] = "randomized positions: +12 points on algorithmic tasks (Ruoss et al. 2023)"
    SUMCLAIM["random_copy_converged"] = "the same on translators trained to convergence"
    SUMCLAIM["random_lm_converged"] = "the same on decoder-only models trained to convergence"
    INTRO["random_copy_converged"] = "As random_copy, on copy and reverse translators trained until their validation exact match reached 99% (`scripts/lengthgen.sh --part translator --converge --ceiling 30`: 30 times the 600 steps; results/lengthgen_converge/), randomized (drawn positions, scored on drawn positions) and plain. A model that hit the ceiling first has not learned its task, and its rows are untested."
    INTRO["random_lm_converged"] = "As random_copy, on the decoder-only models of nope_rank_converged: randomized ones (`scripts/lengthgen.sh --part decoder --variants random --converge`, results/lengthgen_lm_random_converge/) against the plain ones (results/lengthgen_converge/), both trained until their validation exact match reached 99% (ceiling 18000 steps for the randomized ones, `--ceiling 30`; 6000 for the plain ones, which all converged on copy and reverse by 5000); copy and reverse, the tasks of Ruoss et al. that the decoder-only study has."
    SUMCLAIM["longer_training"] = "none (target: 90% exact match at 2x the training length)"
    SUMCLAIM["nope_rank"] = "no positional encoding ranks first, MRR 0.69 (Kazemnejad et al. 2023)"
    SUMCLAIM["temperature"] = "attention temperature log(n)/log(n_train) helps on long inputs"
    SUMCLAIM["rope_stretch"] = "stretching RoPE (PI, NTK, YaRN) then fine-tuning recovers long windows (Chen et al. 2023; Peng et al. 2024)"
    SUMCLAIM["rope_stretch_budget"] = "the same with the fine-tuning budget of the paper, up to 1000 steps (Chen et al. 2023)"
    INTRO["rope_stretch_budget"] = "As rope_stretch, fine-tuned 40, 200 and 1000 steps at 128 tokens (`scripts/finetune_budget.sh`, default block; results/finetune_budget/): each stretch against plain RoPE fine-tuned for as many steps. Both start from the same pretrained model of the seed, so the per-seed differences are paired. 128 tokens is the stretched window (s = 4 times 32), 512 is past it."

    # the summary at a glance: one row per claim, the models trained longest
    SUMKEYS = "rope_base_converged eos_oracle_converged random_translator_converged random_copy_converged random_lm_converged longer_training nope_rank_converged temperature_converged rope_stretch_budget"
    SUMREM["rope_base_converged"] = "larger RoPE base at evaluation"; SUMPAPER["rope_base_converged"] = "bloc97 2023"
    SUMSET["rope_base_converged"] = "translator"
    SUMREM["eos_oracle_converged"] = "no end token, oracle length"; SUMPAPER["eos_oracle_converged"] = "Newman et al. 2020"
    SUMSET["eos_oracle_converged"] = "translator"
    SUMREM["random_translator_converged"] = "random positions"; SUMPAPER["random_translator_converged"] = "Ruoss et al. 2023"
    SUMSET["random_translator_converged"] = "translator"
    SUMREM["random_copy_converged"] = "random positions"; SUMPAPER["random_copy_converged"] = "Ruoss et al. 2023"
    SUMSET["random_copy_converged"] = "translator"
    SUMREM["random_lm_converged"] = "random positions"; SUMPAPER["random_lm_converged"] = "Ruoss et al. 2023"
    SUMSET["random_lm_converged"] = "decoder-only"
    SUMREM["longer_training"] = "train 10 times longer"; SUMPAPER["longer_training"] = "none"
    SUMSET["longer_training"] = "decoder-only ALiBi copy, 6000 steps"
    SUMREM["nope_rank_converged"] = "no positions"; SUMPAPER["nope_rank_converged"] = "Kazemnejad et al. 2023"
    SUMSET["nope_rank_converged"] = "decoder-only"
    SUMREM["temperature_converged"] = "attention temperature"; SUMPAPER["temperature_converged"] = "Chiang & Cholak 2022"
    SUMSET["temperature_converged"] = "decoder-only ALiBi copy"
    SUMREM["rope_stretch_budget"] = "stretch RoPE, fine-tune"; SUMPAPER["rope_stretch_budget"] = "Chen et al. 2023"
    SUMSET["rope_stretch_budget"] = "LM, 1000 steps"

    # 1. rope_base: the same RoPE translators evaluated with rope_base=40000
    for (x = 4; x <= 6; x += 2)
        cmp("rope_base", "a larger RoPE base at evaluation reaches longer inputs (NTK-aware scaling)",
            "translator", "toy_translate", "1000 steps", x " clauses", "exact_match", 1,
            "rope, rope_base=40000", "ext|length|rope_base40k|" x "|exact_match",
            "rope", "ext|length|rope|" x "|exact_match", "paired",
            "ext|length|rope_base40k|3|exact_match", "ext|length|rope|3|exact_match", x == 4, "")

    # 1b. rope_base_converged: the same question on translators trained to convergence, and
    # training with the larger base against setting it at evaluation only
    for (x = 4; x <= 6; x += 2) for (e = 40000; e <= 80000; e *= 2)
        cmp("rope_base_converged", "a larger RoPE base at evaluation reaches longer inputs (NTK-aware scaling)",
            "translator", "toy_translate", CONVERGED_T, x " clauses", "exact_match", 1,
            "rope, rope_base=" e, "rb|10000|" e "|model|" x "|exact_match",
            "rope", "rb|10000|10000|model|" x "|exact_match", "paired",
            "rb|10000|10000|model|3|exact_match", "rb|10000|10000|model|3|exact_match", x == 4 && e == 40000,
            "the same models at 3 clauses: " fmt3("rb|10000|" e "|model|3|exact_match") "% with the stretch, " fmt3("rb|10000|10000|model|3|exact_match") "% without")
    for (x = 4; x <= 6; x += 2) for (e = 40000; e <= 160000; e *= 4)
        cmp("rope_base_converged", "trained with the larger base rather than stretched to it at evaluation",
            "translator", "toy_translate", CONVERGED_T, x " clauses", "exact_match", 1,
            "rope trained with base " e, "rb|" e "|" e "|model|" x "|exact_match",
            "rope, rope_base=" e, "rb|10000|" e "|model|" x "|exact_match", "welch",
            "rb|" e "|" e "|model|3|exact_match", "rb|10000|10000|model|3|exact_match", x == 4 && e == 40000 ? 2 : 0,
            "B at 3 clauses with the stretch: " fmt3("rb|10000|" e "|model|3|exact_match") "%")

    # 2. eos_oracle: -EOS decoded to the true length against +EOS (different models); the oracle alone (same models)
    split("4 6 8 12", LEN, " ")
    for (j = 1; j <= 4; j++) for (i = 1; i <= nsch; i++) {
        s = SCH[i]
        cmp("eos_oracle", "-EOS + oracle length extrapolates far better than +EOS (Newman et al. 2020)",
            "translator", "toy_translate", "1000 steps", LEN[j] " clauses", "exact_match", 1,
            s " -EOS + oracle", "eos|noeos+oracle|" s "|" LEN[j] "|exact_match",
            s " +EOS", "eos|eos|" s "|" LEN[j] "|exact_match", "welch",
            "eos|noeos+oracle|" s "|3|exact_match", "eos|eos|" s "|3|exact_match", s == "rope" ? (LEN[j] == 6 ? 1 : (LEN[j] == 4 ? 2 : 0)) : 0, "")
    }
    for (j = 1; j <= 2; j++) for (i = 1; i <= nsch; i++) {
        s = SCH[i]
        cmp("eos_oracle", "-EOS + oracle length extrapolates far better than +EOS (Newman et al. 2020)",
            "translator", "toy_translate", "1000 steps", LEN[j] " clauses", "exact_match", 1,
            s " +EOS + oracle", "eos|eos+oracle|" s "|" LEN[j] "|exact_match",
            s " +EOS", "eos|eos|" s "|" LEN[j] "|exact_match", "paired",
            "eos|eos|" s "|3|exact_match", "eos|eos|" s "|3|exact_match", 0, "the oracle alone, same models")
    }

    # 3. random_translator: randomized positions against plain (different models)
    for (j = 1; j <= 2; j++) for (i = 2; i <= nsch; i++) {
        s = SCH[i]
        cmp("random_translator", "randomized positions extrapolate better (Ruoss et al. 2023)",
            "translator", "toy_translate", "1000 steps", LEN[j] " clauses", "exact_match", 1,
            s " + random", "eos|random|" s "|" LEN[j] "|exact_match",
            s, "eos|eos|" s "|" LEN[j] "|exact_match", "welch",
            "eos|random|" s "|3|exact_match", "eos|eos|" s "|3|exact_match", s == "rope" && LEN[j] == 4, "")
    }

    # 2b, 3b. eos_oracle_converged, random_translator_converged: the same on translators trained
    # until their validation exact match reached 99%
    for (j = 1; j <= 2; j++) for (i = 1; i <= nsch; i++) {
        s = SCH[i]
        cmp("eos_oracle_converged", "-EOS + oracle length extrapolates far better than +EOS (Newman et al. 2020)",
            "translator", "toy_translate", CONVERGED_T, LEN[j] " clauses", "exact_match", 1,
            s " -EOS + oracle", "eosc|noeos+oracle|" s "|" LEN[j] "|exact_match",
            s " +EOS", "eosc|eos|" s "|" LEN[j] "|exact_match", "welch",
            "eosc|noeos+oracle|" s "|3|exact_match", "eosc|eos|" s "|3|exact_match", s == "rope" && LEN[j] == 4, "")
        cmp("eos_oracle_converged", "-EOS + oracle length extrapolates far better than +EOS (Newman et al. 2020)",
            "translator", "toy_translate", CONVERGED_T, LEN[j] " clauses", "exact_match", 1,
            s " +EOS + oracle", "eosc|eos+oracle|" s "|" LEN[j] "|exact_match",
            s " +EOS", "eosc|eos|" s "|" LEN[j] "|exact_match", "paired",
            "eosc|eos|" s "|3|exact_match", "eosc|eos|" s "|3|exact_match", 0, "the oracle alone, same models")
    }
    # (left out until every randomized run has finished: eos_decision.sh --partial tables them)
    missing = 0
    for (i = 2; i <= nsch; i++)
        if (series("eosc|random|" SCH[i] "|4|exact_match", x1) != series("eosc|eos|" SCH[i] "|4|exact_match", x2)) missing++
    if (missing) printf "verdicts.sh: random_translator_converged left out: %d schemes lack randomized runs\n", missing > "/dev/stderr"
    if (!missing) for (j = 1; j <= 2; j++) for (i = 2; i <= nsch; i++) {
        s = SCH[i]
        cmp("random_translator_converged", "randomized positions extrapolate better (Ruoss et al. 2023)",
            "translator", "toy_translate", CONVERGED_T, LEN[j] " clauses", "exact_match", 1,
            s " + random", "eosc|random|" s "|" LEN[j] "|exact_match",
            s, "eosc|eos|" s "|" LEN[j] "|exact_match", "welch",
            "eosc|random|" s "|3|exact_match", "eosc|eos|" s "|3|exact_match", s == "rope" && LEN[j] == 4, "")
    }

    # 4. random_copy: 600 steps, averaged over lengths 17-64 (and over the eight schemes), and the 3000-step RoPE copier
    L = "17 20 24 32 40 48 64"
    random_vs_plain("random_copy", "translator", "copy reverse", "600 steps", "lg", " + random", "lg", "", "")
    for (m = 1; m <= 2; m++) {
        met = (m == 1) ? "exact_match" : "token_acc"
        cmp("random_copy", "randomized positions: +12 points on algorithmic tasks (Ruoss et al. 2023)",
            "translator", "copy, RoPE", "3000 steps", "mean of lengths 17-64", met, 1,
            "rope + random", avg("avg|lgr|random|" met, lens("lgr|copy|rope + random|", "|" met, L)),
            "rope", avg("avg|lgr|plain|" met, lens("lgr|copy|rope|", "|" met, L)), "welch",
            "lgr|copy|rope + random|16|exact_match", "lgr|copy|rope|16|exact_match", m, "")
    }
    # 4b. the same on translators and decoder-only models trained to convergence
    random_vs_plain("random_copy_converged", "translator", "copy reverse", "until 99% val exact (ceiling 18000 steps)", "lgc", " + random", "lgc", "", "reverse t5")
    if (LMRC != "/dev/null")
        random_vs_plain("random_lm_converged", "decoder-only", "copy reverse", "until 99% val exact (ceiling 18000 steps; plain 6000)", "lmrc", "|random", "lmc", "|plain", "copy rope")

    # 5. longer_training: decoder-only ALiBi copy, 3000 and 6000 steps against 600
    a600 = "lm|copy|alibi|plain|"
    split("32 64", LL, " ")
    for (j = 1; j <= 2; j++) {
        x = LL[j]
        cmp("longer_training", "trained longer, ALiBi copies further (target: 90% at 2x length)",
            "decoder-only", "copy, ALiBi", "6000 vs 600 steps", x " symbols", "exact_match", 1,
            "6000 steps", "long|6000|" x "|exact_match", "600 steps", a600 x "|exact_match", "welch",
            "long|6000|16|exact_match", a600 "16|exact_match", x == 32, x == 32 ? seedsat("long|6000|32|exact_match", 0.9) : "")
        cmp("longer_training", "trained longer, ALiBi copies further (target: 90% at 2x length)",
            "decoder-only", "copy, ALiBi", "3000 vs 600 steps", x " symbols", "exact_match", 1,
            "3000 steps", "long|3000|" x "|exact_match", "600 steps", a600 x "|exact_match", "welch",
            "long|3000|16|exact_match", a600 "16|exact_match", 0, x == 32 ? seedsat("long|3000|32|exact_match", 0.9) : "")
    }
    split("32 40 48 64", LL, " ")
    for (j = 1; j <= 4; j++) {
        x = LL[j]
        cmp("longer_training", "the longer it trains, the further its copy head reaches",
            "decoder-only", "copy, ALiBi", "6000 vs 3000 steps", x " symbols", "exact_match", 1,
            "6000 steps", "long|6000|" x "|exact_match", "3000 steps", "long|3000|" x "|exact_match", "welch",
            "long|6000|16|exact_match", "long|3000|16|exact_match", 0, "")
    }
    for (st = 3000; st <= 6000; st += 3000)
        cmp("longer_training", "target: at least 90% exact match at 32 symbols (2x the training length)",
            "decoder-only", "copy, ALiBi", st " steps", "32 symbols", "exact_match", 1,
            st " steps", "long|" st "|32|exact_match", "target", 0.9, "one-sample",
            "long|" st "|16|exact_match", "", st == 6000 ? 2 : 0, seedsat("long|" st "|32|exact_match", 0.9))

    # 6. nope_rank: per-seed MRR over copy, reverse, duplicate (lengths 17-64), as scripts/mrr.sh ranks
    split("copy reverse duplicate", T3, " ")
    nope_rank("lm", "nope_rank", "600 steps", POOLED, mrrout)
    nope_rank("lmc", "nope_rank_converged", CONVERGED, POOLEDC, mrrcout)
    # 7. temperature: the same decoder-only models with attn_logit_scale=log
    temperature("lm", "temperature", "600 steps")
    temperature("lmc", "temperature_converged", CONVERGED)

    # 8. rope_stretch: RoPE stretched and fine-tuned against RoPE fine-tuned alone, both from the
    # pretrained model of the seed (paired, as rope_stretch_budget)
    split("default llama", BL, " ")
    split("rope_linear_ft rope_ntk_ft rope_yarn_ft", MT, " ")
    split("PI (Chen et al. 2023),NTK,YaRN (Peng et al. 2024)", MN, ",")
    split("128 256 2048 4096", WIN, " ")
    for (b = 1; b <= 2; b++) for (wi = 1; wi <= 4; wi++) for (i = 1; i <= 3; i++) {
        w = WIN[wi]
        cmp("rope_stretch", "stretching RoPE before fine-tuning recovers long windows: " MN[i],
            "language model, " BL[b] " block", "toy text", "600 + 40 steps at 128", w " tokens", "loss_last", -1,
            MT[i], "ec|" BL[b] "|" MT[i] "|" w "|loss_last", "rope_ft", "ec|" BL[b] "|rope_ft|" w "|loss_last", "paired",
            "", "", b == 1 ? (w == 4096 && i == 1 ? 1 : (w == 256 && i == 2 ? 2 : 0)) : 0, "loss at 32 tokens: " lossat(BL[b], MT[i]) " and " lossat(BL[b], "rope_ft"))
    }
    for (b = 1; b <= 2; b++) for (w = 128; w <= 4096; w *= 32)
        cmp("rope_stretch", "dynamic NTK lowers the loss on long windows without training",
            "language model, " BL[b] " block", "toy text", "600 steps", w " tokens", "loss_last", -1,
            "rope_dynamic", "ec|" BL[b] "|rope_dynamic|" w "|loss_last", "rope", "ec|" BL[b] "|rope|" w "|loss_last", "paired",
            "", "", 0, "loss at 32 tokens: " lossat(BL[b], "rope_dynamic") " and " lossat(BL[b], "rope"))

    # 9. rope_stretch_budget: the same stretches fine-tuned 40, 200 and 1000 steps (Chen et al.
    # fine-tune up to 1000), each against plain RoPE fine-tuned for as many steps from the same
    # pretrained model per seed (paired)
    split("40 200 1000", BUD, " "); split("128 512", FW, " ")
    for (bi = 1; bi <= 3; bi++) for (wi = 1; wi <= 2; wi++) for (i = 1; i <= 3; i++)
        cmp("rope_stretch_budget", "stretching RoPE before fine-tuning recovers long windows, fine-tuned up to 1000 steps: " MN[i],
            "language model, default block", "toy text", "600 + " BUD[bi] " steps at 128", FW[wi] " tokens", "loss_last", -1,
            MT[i], "fb|" MT[i] "|" BUD[bi] "|" FW[wi] "|loss_last", "rope_ft", "fb|rope_ft|" BUD[bi] "|" FW[wi] "|loss_last", "paired",
            "", "", (bi == 3 && wi == 1 && i == 1) ? 1 : ((bi == 3 && wi == 2 && i == 1) ? 2 : 0),
            "loss at 32 tokens: " loss32("fb|" MT[i] "|" BUD[bi]) " and " loss32("fb|rope_ft|" BUD[bi]))

    if (bad) exit 1
    md()
}

# summary_svg(): the summary table'"'"'s quoted rows as a forest plot, svgout: per remedy its effect
# A - B (dot) and 95% interval (bar), coloured by verdict. Units differ (points, nats, MRR), so
# each row has its own scale: zero at x0 (dashed), the farthest of effect and bounds at x0 +- w.
function mag(x) { return x < 0 ? -x : x }
function summary_svg(   i, k, h, y, sc, x0, w, col, cls, H) {
    x0 = 400; w = 150; H = 60 + 28 * NK
    printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"980\" height=\"%d\" font-family=\"sans-serif\" font-size=\"13\">\n", H > svgout
    print "<rect width=\"980\" height=\"" H "\" fill=\"white\"/>" > svgout
    print "<text x=\"10\" y=\"22\" font-size=\"15\">The remedies: effect A - B of the row each verdict quotes, with its 95% interval</text>" > svgout
    print "<text x=\"10\" y=\"40\" fill=\"#555\">each row on its own scale; dashed: no effect; green reproduced, red opposite, grey within the spread, light untested</text>" > svgout
    printf "<line x1=\"%d\" y1=\"48\" x2=\"%d\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n", x0, x0, H - 6 > svgout
    for (i = 1; i <= NK; i++) {
        k = KEYS[i]; h = HROW[k]; y = 48 + 28 * i - 10
        sc = mag(ED[h]); if (mag(EL[h]) > sc) sc = mag(EL[h])
        if (mag(EH[h]) > sc) sc = mag(EH[h])
        if (sc == 0) sc = 1
        cls = VD[h]; sub(/[ :(].*/, "", cls)
        col = cls == "reproduced" ? "#1a7f37" : (cls == "opposite" ? "#cf222e" : (cls == "untested" ? "#c8c8c8" : "#6e7781"))
        printf "<g class=\"row\"><text x=\"10\" y=\"%d\">%s</text>", y + 4, k > svgout
        printf "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>", x0 + w * EL[h] / sc, y, x0 + w * EH[h] / sc, y, col > svgout
        printf "<circle cx=\"%.2f\" cy=\"%d\" r=\"5\" fill=\"%s\"/>", x0 + w * ED[h] / sc, y, col > svgout
        printf "<text x=\"580\" y=\"%d\">%s %s %s: %s</text></g>\n", y + 4, EF[h], IV[h], UN[h], cls > svgout
    }
    print "</svg>" > svgout
    close(svgout)
}

# summary_md(): sumout, the findings at a glance: one row per claim (SUMKEYS), quoting the
# summary row of the models trained longest, in a few words. "floor": within the spread with
# both sides at 0.0%, where no interval can tell anything apart.
function summary_md(   n, i, k, h, v, e) {
    print "# The remedies at a glance\n" > sumout
    print "Written by `scripts/verdicts.sh` from `verdicts.md`: per claim, the row that `verdicts.md`'"'"'s summary quotes" > sumout
    print "for the models trained longest: until they learn the task (99% validation exact match), but" > sumout
    print "where the setting names the steps. Effect in points of exact match unless marked.\n" > sumout
    print "| remedy | paper | verdict | effect A − B [95% interval] | setting |" > sumout
    print "| --- | --- | --- | --- | --- |" > sumout
    n = split(SUMKEYS, SK_, " ")
    for (i = 1; i <= n; i++) {
        k = SK_[i]; if (!(k in HROW)) continue
        h = HROW[k]; v = VD[h]; sub(/[:(].*/, "", v); sub(/ $/, "", v)
        if (v == "within the spread" && CA[h] == "0.0 ± 0.0" && CB[h] == "0.0 ± 0.0") v = "floor"
        e = EV[h]; sub(/, [a-z_]+$/, "", e); sub(/mean of lengths/, "lengths", e); sub(/eight/, "8", e)
        print "| " SUMREM[k] " | " SUMPAPER[k] " | " v " | " EF[h] " " IV[h] (UN[h] == "points" ? "" : " " UN[h]) " | " SUMSET[k] ", " e " |" > sumout
    }
    close(sumout)
}
function md(   i, j, k, h, h2, t, res, iv, nc, z) {
    print "# Verdicts: effect sizes with 95% intervals" > mdout
    print "" > mdout
    print "Written by `scripts/verdicts.sh` at commit " commit " from the per-seed rows of" > mdout
    print "`results/eos_decision/results.csv`, `results/extrapolate/results.csv`," > mdout
    print "`results/lengthgen/results.csv`, `results/lengthgen/lm_results.csv`," > mdout
    print "`results/lengthgen_random/long/results.csv`, `results/lengthgen_long_lm/results.csv`," > mdout
    print "`results/extend_context/results.csv`, `results/finetune_budget/results.csv` and the studies" > mdout
    print "trained to convergence (`results/lengthgen_converge/`, `results/rope_base_converge/`," > mdout
    print "`results/eos_decision_converge/`); every row is also in `verdicts.csv`." > mdout
    print "Effect: A − B, in points for percentages (exact match, token accuracy), in nats for" > mdout
    print "losses. Paired: the same trained models evaluated two ways, Student t interval on the" > mdout
    print "per-seed differences. Bootstrap: different trained models (even with the same seeds) on" > mdout
    print "exact match, the 2.5th and 97.5th percentiles of " BOOT " differences resampled over the seeds" > mdout
    print "and, within each drawn seed, over its test inputs; the note gives the Welch t interval" > mdout
    print "beside it, which with three seeds is the wider of the two. On the decoder-only MRR the same," > mdout
    print "each resample drawing the seeds for all schemes at once and ranking them again. Welch:" > mdout
    print "different trained models on token accuracy, Welch t interval." > mdout
    print "Cells: mean ± sample sd over the seeds. In distribution: exact match (%) at" > mdout
    print "the longest training length (3 clauses, 16 symbols); a row whose A or B is below 90% there" > mdout
    print "is untested whatever its interval. A tested row with fewer than 5 seeds whose means lie within" > mdout
    print "twice the larger sd of each other wants 5 seeds (its note and the tally say so)." > mdout
    print "`scripts/verdicts.sh --help` has the details." > mdout
    print "" > mdout
    print "## Summary" > mdout
    print "" > mdout
    print "One line per remedy: the row quoted, its interval and verdict; the tally counts every row of the remedy." > mdout
    print "" > mdout
    print "| remedy | claim (paper) | result here | 95% interval | verdict |" > mdout
    print "| --- | --- | --- | --- | --- |" > mdout
    for (i = 1; i <= NK; i++) {
        k = KEYS[i]; h = HROW[k]
        t = tally(k)
        res = short(h); iv = EF[h] " " IV[h]
        if (k in HROW2) { h2 = HROW2[k]; res = res "; " short(h2); iv = iv "; " EF[h2] " " IV[h2] }
        print "| " k " | " SUMCLAIM[k] " | " res " | " iv " | " VD[h] "; " t SUMNOTE[k] " |" > mdout
    }
    summary_svg()
    summary_md()
    compute_table()
    for (i = 1; i <= NK; i++) {
        k = KEYS[i]
        print "" > mdout
        print "## " k > mdout
        print "" > mdout
        print INTRO[k] > mdout
        print "" > mdout
        nc = 0
        for (j = 1; j <= NR_ROWS; j++) if (K[j] == k && !((k, C[j]) in CSEEN)) { CSEEN[k, C[j]] = 1; print "- claim: " C[j] > mdout; nc++ }
        print "" > mdout
        if (k ~ /^nope_rank/) {
            print "MRR per scheme: each seed ranked on its own (`scripts/mrr.sh`'"'"'s ties), mean ± sd over the seeds and the" > mdout
            print "95% interval of the mean; the last column ranks the seed means as `lm_mrr.csv` does (`" (k == "nope_rank" ? "mrr.csv" : "mrr_converge.csv") "`):" > mdout
            print "" > mdout
            print "| scheme | MRR per seed | 95% interval | in distribution (%) | MRR of the seed means |" > mdout
            print "| --- | ---: | --- | ---: | ---: |" > mdout
            for (j = 1; j <= nsch; j++) { split(MRRL[k, j], z, ",")
                print "| " z[1] " | " z[3] " ± " z[4] " | [" z[5] ", " z[6] "] | " z[7] " | " z[2] " |" > mdout }
            print "" > mdout
        }
        print "| setting | A | B | A | B | A − B | 95% interval | pairing | in distribution A, B | verdict | note |" > mdout
        print "| --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- | --- |" > mdout
        for (j = 1; j <= NR_ROWS; j++) if (K[j] == k)
            print "| " SET[j] " | " MA[j] " | " MB[j] " | " CA[j] " | " CB[j] " | " EF[j] " | " IV[j] " | " PR[j] " | " \
                (IA[j] == "" ? "—" : IA[j]) ", " (IB[j] == "" ? "—" : IB[j]) " | " VD[j] " | " NT[j] " |" > mdout
    }
}
# What the studies trained to convergence cost: runs and CPU hours per results file, and the
# remedies that read it. The other studies recorded wall time only (their results.md headers).
function compute_table(   fl, nf, i, file, key, parts, runs, sec, total, totruns) {
    nf = split(EOSC " " RB " " LMC " " LGC " " LMRC, fl, " ")
    USES[EOSC] = "eos_oracle_converged, random_translator_converged"; USES[RB] = "rope_base_converged"
    USES[LMC] = "nope_rank_converged, temperature_converged, random_lm_converged"
    USES[LGC] = "random_copy_converged"; USES[LMRC] = "random_lm_converged"
    for (key in CPU) { split(key, parts, SUBSEP); RUNS[parts[1]]++; SECS[parts[1]] += CPU[key] }
    print "" > mdout
    print "## Compute" > mdout
    print "" > mdout
    print "CPU time of the studies trained to convergence that the verdicts read: each run'"'"'s user + system seconds over all its" > mdout
    print "./train invocations (its compute.csv, the results'"'"' cpu_seconds column), counted once a run." > mdout
    print "The other studies recorded wall time only, in the headers of their results.md." > mdout
    print "" > mdout
    print "| results | runs | CPU hours | mean CPU s a run | remedies |" > mdout
    print "| --- | ---: | ---: | ---: | --- |" > mdout
    total = 0; totruns = 0
    for (i = 1; i <= nf; i++) {
        file = fl[i]; if (!RUNS[file]) continue
        printf "| `%s` | %d | %.2f | %.1f | %s |\n", file, RUNS[file], SECS[file] / 3600, SECS[file] / RUNS[file], USES[file] > mdout
        total += SECS[file]; totruns += RUNS[file]
    }
    printf "| all | %d | %.2f | %.1f | |\n", totruns, total / 3600, totruns ? total / totruns : 0 > mdout
}
# a row in a few words: A mean ± sd against B, where, and the note
function short(h,   u) {
    u = (UNIT[h] == "%") ? "%" : ""
    return MA[h] " " CA[h] u " vs " MB[h] " " CB[h] u " (" EV[h] ", " ST[h] (NT[h] == "" ? "" : "; " NT[h]) ")"
}
function tally(k,   s, c, w, i, n) {
    n = split("reproduced opposite effect within untested", c, " ")
    split("reproduced,opposite,effect,within the spread,untested", w, ",")
    s = ""
    for (i = 1; i <= n; i++) if (TALLY[k, c[i]] > 0) s = s (s == "" ? "" : ", ") TALLY[k, c[i]] " " w[i]
    if (WANT5[k] > 0) s = s "; " WANT5[k] " want 5 seeds"
    return TOTAL[k] " rows: " s
}
' "$EOS" "$EXT" "$LG" "$LM" "$LGR" "$LONG" "$EC" "$MRR" "$LMC" "$MRRC" "$RB" "$FB" "$EOSC" "$LGC" "$LMRC"
echo "wrote $out/verdicts.csv, $out/verdicts.md, $out/summary.md, $out/summary.svg, $out/mrr.csv and $out/mrr_converge.csv"
