// No positional information: the encoder sees a bag of tokens (permutation-equivariant).
#include "pos/pos.h"

const PosScheme pos_none = { .name = "none" };
