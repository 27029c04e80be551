#if 1
int open;
