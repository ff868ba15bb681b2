// libcurl for fetching association files; its functions reached only through the table below.
// Without the type-checking macros of <curl/typecheck-gcc.h>: they would rewrite the table's
// curl_easy_setopt and curl_easy_getinfo calls, and the helpers below fix each call's type anyway.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>

// The libcurl functions AssociationSources calls. It opens libcurl with dlopen on the first fetch
// (see AssociationSources/Internals/CurlLibrary.swift), so each is written here once: its table
// field takes its type from curl.h and its lookup takes its name.
#define WAYPOST_CURL_FUNCTIONS(F) \
    F(curl_easy_cleanup) \
    F(curl_easy_getinfo) \
    F(curl_easy_init) \
    F(curl_easy_perform) \
    F(curl_easy_setopt) \
    F(curl_easy_strerror) \
    F(curl_global_init)

/// Pointers to the functions above, each typed as curl.h declares it.
typedef struct WaypostCurlFunctions {
#define WAYPOST_CURL_FIELD(name) __typeof__(name) *name;
    WAYPOST_CURL_FUNCTIONS(WAYPOST_CURL_FIELD)
#undef WAYPOST_CURL_FIELD
} WaypostCurlFunctions;

/// Looks each function up in `library`, a dlopen handle. Returns the name of the first one the
/// library lacks (`functions` is then incomplete), or NULL when it has them all.
static inline const char *waypost_curl_resolve(void *library, WaypostCurlFunctions *functions) {
#define WAYPOST_CURL_LOOKUP(name) \
    if ((functions->name = (__typeof__(name) *)dlsym(library, #name)) == NULL) return #name;
    WAYPOST_CURL_FUNCTIONS(WAYPOST_CURL_LOOKUP)
#undef WAYPOST_CURL_LOOKUP
    return NULL;
}

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one helper per
// argument type the options take (curl.h's CURLOPTTYPE_LONG, _STRINGPOINT, _OFF_T, ...).

static inline CURLcode waypost_curl_setopt_long(const WaypostCurlFunctions *f, CURL *handle, CURLoption option, long value) {
    return f->curl_easy_setopt(handle, option, value);
}

static inline CURLcode waypost_curl_setopt_size(const WaypostCurlFunctions *f, CURL *handle, CURLoption option, curl_off_t value) {
    return f->curl_easy_setopt(handle, option, value);
}

/// Strings are copied by libcurl (since 7.17), so `value` need only live through the call.
static inline CURLcode waypost_curl_setopt_string(const WaypostCurlFunctions *f, CURL *handle, CURLoption option, const char *value) {
    return f->curl_easy_setopt(handle, option, value);
}

/// Data pointers (CURLOPT_WRITEDATA, CURLOPT_ERRORBUFFER, ...), which must outlive the transfer.
static inline CURLcode waypost_curl_setopt_pointer(const WaypostCurlFunctions *f, CURL *handle, CURLoption option, void *value) {
    return f->curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share curl_write_callback's type.
static inline CURLcode waypost_curl_setopt_write_callback(const WaypostCurlFunctions *f, CURL *handle, CURLoption option, curl_write_callback value) {
    return f->curl_easy_setopt(handle, option, value);
}

static inline CURLcode waypost_curl_getinfo_long(const WaypostCurlFunctions *f, CURL *handle, CURLINFO info, long *value) {
    return f->curl_easy_getinfo(handle, info, value);
}

/// The string stays owned by the handle: copy it before the next transfer or the cleanup.
static inline CURLcode waypost_curl_getinfo_string(const WaypostCurlFunctions *f, CURL *handle, CURLINFO info, char **value) {
    return f->curl_easy_getinfo(handle, info, value);
}
