#define SCALE 3.0
