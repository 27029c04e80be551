#pragma once
// GROUP_SIZE is pasted from WIDTH: 6 ## 4 gives the literal 64.
#define GROUP_SIZE CONCAT(WIDTH, 4)
#define WIDTH 6
#ifndef SCALE
#error SCALE must be defined
#endif
#define CONCAT_(a, b) a ## b
#define CONCAT(a, b) CONCAT_(a, b)
#define SCALED(x) ((x) * CONCAT(SCALE, .0) + 0.5)
