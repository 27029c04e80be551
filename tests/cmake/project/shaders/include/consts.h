// A header scale.slang #includes (found through INCLUDE_DIRS): editing it must rebuild
// scale's outputs only.
#pragma once
#define SCALE_OFFSET 1.0
