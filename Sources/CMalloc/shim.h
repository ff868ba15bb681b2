// glibc's malloc tuning (mallopt, M_MMAP_THRESHOLD): <malloc.h> is not part of Swift's Glibc module.
#include <malloc.h>
