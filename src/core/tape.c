#include "core/tape.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The nodes live in a growable array (not the arena) so the tape can be walked backwards.
static _Thread_local Tape own;         // this thread's default tape
static _Thread_local Tape *current;    // NULL: own

static Tape *tape(void) { return current ? current : &own; }

Tape *tape_use(Tape *t) {
    Tape *before = current;
    current = t;
    return before;
}

void tape_free(Tape *t) {
    free(t->nodes);
    t->nodes = NULL;
    t->n = t->cap = 0;
}

void tape_set_enabled(int on) { tape()->disabled = !on; }
int  tape_enabled(void) { return !tape()->disabled; }

int tape_needs_grad(Tensor *a, Tensor *b, Tensor *c) {
    return !tape()->disabled && ((a && a->grad) || (b && b->grad) || (c && c->grad));
}

Node *tape_record(const char *name, BackwardFn backward, Tensor *out, Tensor *a, Tensor *b,
                  Tensor *c) {
    Tape *t = tape();
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->nodes = realloc(t->nodes, sizeof(Node) * t->cap);
        if (!t->nodes) { fprintf(stderr, "out of memory (tape)\n"); exit(1); }
    }
    Node *n = &t->nodes[t->n++];
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

void tape_reset(void) { tape()->n = 0; }
int  tape_length(void) { return tape()->n; }

void tape_backward(Tensor *loss) {
    if (!loss->grad) { fprintf(stderr, "tape_backward: loss has no gradient\n"); abort(); }
    grad_zeroed(loss)[0] = 1.0f;
    tape_replay();
}

void tape_replay(void) {
    Tape *t = tape();
    for (int k = t->n - 1; k >= 0; k--)
        if (t->nodes[k].out->grad) {
            grad_zeroed(t->nodes[k].out);   // no later op used it: its gradient is zero
            t->nodes[k].backward(&t->nodes[k]);
        }
}

// Free the main thread's node array at exit so leak checkers stay quiet.
__attribute__((destructor)) static void tape_release(void) { tape_free(&own); }
