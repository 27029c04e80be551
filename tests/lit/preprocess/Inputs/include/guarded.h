#ifndef GUARDED_H
#define GUARDED_H
int guarded_decl;
#endif
