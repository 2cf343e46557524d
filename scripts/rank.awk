# Ranking helper shared by scripts/mrr.sh and scripts/verdicts.sh, which put this text in front
# of their awk programs; a library, not a command. POSIX awk (mawk, gawk).
# reciprocal_rank(score, n, i): the reciprocal rank of entry i among score[1..n], highest first.
# Entry i is beaten by `above` entries and tied with `same` (itself included, scores within
# 1e-9), so its places are above+1 .. above+same; a tie shares them, and the result is the mean
# of 1/r over those places: the expected reciprocal rank when the tie is broken at random.
function reciprocal_rank(score, n, i,   j, above, same, r, rr) {
    above = 0; same = 0
    for (j = 1; j <= n; j++) {
        if (score[j] > score[i] + 1e-9) above++
        else if (score[j] >= score[i] - 1e-9) same++
    }
    rr = 0
    for (r = above + 1; r <= above + same; r++) rr += 1 / r
    return rr / same
}
