// Randomized positions (Ruoss et al., 2023; docs/design.md §2.3.8): the n rows of a sequence
// get n distinct positions drawn from [0, L) and sorted, so a model trained on short inputs
// has already met the large positions and gaps that a longer input brings. Any scheme uses
// them, as it reads positions through pos_at only.
#include <stdio.h>
#include <stdlib.h>
#include "pos/pos.h"

// Algorithm S: walk 0 .. L-1 and keep i with probability (still needed) / (still left). The
// kept values come out ascending, so no sort is needed, and every n-subset is equally likely.
void pos_sample_sorted(Rng *r, int L, int n, int *out) {
    int kept = 0;
    for (int i = 0; i < L && kept < n; i++)
        if ((int)rng_below(r, (uint64_t)(L - i)) < n - kept) out[kept++] = i;
}

void pos_draw(Positional *p, Rng *r, int n) {
    if (!p->draw_from) return;
    if (n > p->draw_from) n = p->draw_from;   // longer sequences were refused (pos_check_length)
    if (n > p->sample_capacity) {
        int *grown = realloc(p->sample, sizeof(int) * (size_t)n);
        if (!grown) { fprintf(stderr, "out of memory drawing %d positions\n", n); abort(); }
        p->sample = grown;
        p->sample_capacity = n;
    }
    pos_sample_sorted(r, p->draw_from, n, p->sample);
    for (int t = 0; t < n; t++) p->sample[t] += p->cfg.pos_offset;
    p->n_sampled = n;
}

void pos_free(Positional *p) {
    free(p->sample);
    p->sample = NULL;
    p->n_sampled = p->sample_capacity = 0;
}
