#include "sibling.h"
int inner_decl = __LINE__;
