// Ranks for the mean reciprocal rank: the reciprocal rank of entry i among score[0..n-1],
// highest first. Scores within 1e-9 tie; a tie of k entries on places p+1..p+k shares them,
// and entry i gets the mean of 1/r over those places (the expected reciprocal rank when the
// tie is broken at random).
#ifndef VERDICT_RANK_H
#define VERDICT_RANK_H

double reciprocal_rank(const double *score, int n, int i);
#endif
