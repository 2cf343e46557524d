// Length-bucketed batches: an epoch's random order rearranged so that each batch holds
// examples of similar length (less padding, so fewer wasted tokens), while the order of the
// batches stays random.
//
// The epoch's permutation is cut into chunks of BUCKET_CHUNK batches; each chunk is sorted
// by length (ties keep their random order); the sorted chunks are cut into batches, and the
// full batches are shuffled. Batch boundaries follow the sampler's: the first `first`
// indices of the epoch complete the previous epoch's last batch and stay in front, a final
// partial batch stays at the end (it is completed by the next epoch). Pure function of its
// arguments, so a resumed run rebuilds the same order.
#ifndef DATA_BUCKET_H
#define DATA_BUCKET_H
#include <stdint.h>

#define BUCKET_CHUNK 50

// Reorders perm[0..n-1] (indices into lengths[]) for batches of B. -1 if out of memory
// (perm unchanged).
int bucket_order(int *perm, int n, const int *lengths, int B, int first, uint64_t seed);
#endif
