internal import CCurl
internal import Glibc

/// libcurl, reached through `dlopen` and one table of typed pointers, never called directly.
///
/// Opened on the first fetch, so that a program that never verifies a domain (`waypost open`)
/// never loads libcurl and the TLS libraries under it. The table (CCurl's `WaypostCurlFunctions`)
/// keeps every libcurl call in one place the compiler checks against curl.h; `make release`
/// refuses a binary with a direct reference to a `curl_*` function.
///
/// Policy: a missing libcurl is the environment's fault, so a fetch reports it as
/// `VerificationFailure.clientUnavailable` and the domain's links go to the browser.
enum Curl {
    static let library = "libcurl.so.4"

    /// Opened and initialised once (Swift runs a static's initialiser once, whatever the thread),
    /// never closed.
    nonisolated(unsafe) private static let loaded = open(library)

    /// The function table, or why libcurl cannot be used.
    static func load() -> Result<UnsafePointer<WaypostCurlFunctions>, VerificationFailure> { loaded }

    /// `dlopen`, every function of the table, then `curl_global_init` (once per process, before
    /// any handle: it is not thread-safe in the libcurl versions before 7.84).
    private static func open(_ name: String) -> Result<UnsafePointer<WaypostCurlFunctions>, VerificationFailure> {
        guard let handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            return .failure(.clientUnavailable(reason: "cannot open \(name): \(reason)"))
        }
        let functions = UnsafeMutablePointer<WaypostCurlFunctions>.allocate(capacity: 1)
        if let missing = waypost_curl_resolve(handle, functions) {
            functions.deallocate()
            dlclose(handle)
            return .failure(.clientUnavailable(reason: "\(name) lacks \(String(cString: missing))"))
        }
        let status = functions.pointee.curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard status == CURLE_OK else {
            let message = functions.pointee.curl_easy_strerror(status).map { String(cString: $0) } ?? "code \(status.rawValue)"
            return .failure(.clientUnavailable(reason: "curl_global_init failed: \(message)"))
        }
        return .success(UnsafePointer(functions))
    }
}
