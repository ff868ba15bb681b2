// Why this shim exists: mallinfo2() (heap bytes in use) is declared in <malloc.h>, which Glibc's
// Swift module does not expose; bus-bench reads it to show memory stays flat.
#include <malloc.h>
