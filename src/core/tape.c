#include "core/tape.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The nodes live in a growable array (not the arena) so the tape can be walked backwards.
static Node *nodes;
static int n_nodes, cap_nodes;
static int recording = 1;

void tape_set_enabled(int on) { recording = on; }
int  tape_enabled(void) { return recording; }

int tape_needs_grad(Tensor *a, Tensor *b, Tensor *c) {
    return recording && ((a && a->grad) || (b && b->grad) || (c && c->grad));
}

Node *tape_record(const char *name, BackwardFn backward, Tensor *out, Tensor *a, Tensor *b,
                  Tensor *c) {
    if (n_nodes == cap_nodes) {
        cap_nodes = cap_nodes ? 2 * cap_nodes : 1024;
        nodes = realloc(nodes, sizeof(Node) * cap_nodes);
        if (!nodes) { fprintf(stderr, "out of memory (tape)\n"); exit(1); }
    }
    Node *n = &nodes[n_nodes++];
    memset(n, 0, sizeof *n);
    n->name = name;
    n->backward = backward;
    n->out = out;
    n->in[0] = a; n->in[1] = b; n->in[2] = c;
    return n;
}

const int *tape_save_ints(const int *src, long n) {
    int *dst = arena_alloc(tensor_arena(), sizeof(int) * (size_t)n);
    memcpy(dst, src, sizeof(int) * (size_t)n);
    return dst;
}

void tape_reset(void) { n_nodes = 0; }
int  tape_length(void) { return n_nodes; }

void tape_backward(Tensor *loss) {
    if (!loss->grad) { fprintf(stderr, "tape_backward: loss has no gradient\n"); abort(); }
    grad_zeroed(loss)[0] = 1.0f;
    tape_replay();
}

void tape_replay(void) {
    for (int k = n_nodes - 1; k >= 0; k--)
        if (nodes[k].out->grad) {
            grad_zeroed(nodes[k].out);   // no later op used it: its gradient is zero
            nodes[k].backward(&nodes[k]);
        }
}

// Free the node array at exit so leak checkers stay quiet.
__attribute__((destructor)) static void tape_release(void) {
    free(nodes);
    nodes = NULL;
    cap_nodes = n_nodes = 0;
}
