// jemalloc's settings for the command-line tools (CMakeLists.txt, SLOPE_JEMALLOC): jemalloc
// reads this symbol at start-up when the program defines it. A compile allocates its IR a
// node at a time and keeps most of it until the module is written, so heap pages are
// asked for as transparent huge pages: a large compile then takes a few hundred page
// faults instead of tens of thousands (docs/benchmarks.md, "Allocation").
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): jemalloc's interface
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
