// Macros of module `lights`; each of its files includes them.
#ifndef FACTOR
#define FACTOR 3.0
#endif
#define DIM 0.5
#define SCALE(x) ((x) * FACTOR)
