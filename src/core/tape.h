// The tape: every op run while recording appends a Node (its output, inputs, arguments and
// a backward function). tape_backward replays the nodes in reverse, each adding its inputs'
// gradients from its output's gradient, as micrograd does with closures (the first op to
// write a gradient assigns instead: tensor.h, grad_accumulates).
#ifndef TAPE_H
#define TAPE_H
#include <stdint.h>
#include "core/tensor.h"

typedef struct Node Node;
typedef void (*BackwardFn)(const Node *n);

struct Node {
    const char *name;     // op name, for debugging
    BackwardFn backward;
    Tensor *out;
    Tensor *in[4];
    int   i[6];           // integer arguments (op-specific)
    float f[4];           // float arguments
    const void *aux;      // op-specific saved data (ids, dropout masks, statistics), arena-owned
    float *saved;         // op-specific saved floats, arena-owned
};

// The tape ops record on. Each thread has its own default tape; a thread that runs one of
// a step's micro-batches (train/micro_batches.h) records on that micro-batch's tape instead, so
// micro-batches on different threads never share one.
typedef struct Tape { Node *nodes; int n, cap; int disabled; } Tape;
// Record on t from now on in this thread (NULL: the thread's default tape); returns the tape
// recorded on before.
Tape *tape_use(Tape *t);
void  tape_free(Tape *t);   // its nodes

// Gradients are recorded only while enabled (default: enabled). Evaluation turns it off,
// which also stops ops from allocating gradients or saving what backward would need.
void tape_set_enabled(int on);
int  tape_enabled(void);
// Does an op with these inputs need a gradient (recording on and some input has a grad)?
int  tape_needs_grad(Tensor *a, Tensor *b, Tensor *c);
// Append a node; returns it so the op can fill in its arguments.
Node *tape_record(const char *name, BackwardFn backward, Tensor *out, Tensor *a, Tensor *b,
                  Tensor *c);
// A copy of n ints in the step arena, for a backward pass that needs the caller's indices
// or masks after the caller's array is gone.
const int *tape_save_ints(const int *src, long n);
// Forget all nodes (the arena that held them is reset by its owner).
void tape_reset(void);
int  tape_length(void);
// d(loss)/d(loss) = 1, then every node's backward in reverse order. loss has one element.
void tape_backward(Tensor *loss);
// Every node's backward in reverse order, for a caller that has seeded the output gradient
// itself through grad_zeroed (tests use it to check ops with many outputs against finite
// differences).
void tape_replay(void);
#endif
