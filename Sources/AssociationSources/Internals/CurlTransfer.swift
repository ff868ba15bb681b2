internal import CCurl

/// One fetch of an association file on one libcurl easy handle, on the calling thread (the
/// fetcher's queue), with the options that enforce `AssociationFetcher`'s rules.
enum CurlTransfer {
    static func fetch(_ domain: AssociatedDomain, limits: AssociationFetcher.Limits) -> Result<FetchedFile, VerificationFailure> {
        switch Curl.load() {
        case .failure(let failure): return .failure(failure)
        case .success(let functions):
            guard let handle = functions.pointee.curl_easy_init() else {
                return .failure(.clientUnavailable(reason: "curl_easy_init failed"))
            }
            defer { functions.pointee.curl_easy_cleanup(handle) }
            let response = Response(limit: AssociationFetcher.sizeLimit)
            return withExtendedLifetime(response) {
                Transfer(functions: functions, handle: handle, response: response, host: domain.name)
                    .run(url: domain.associationFileURL, limits: limits)
            }
        }
    }
}

/// What the callbacks collect: the body up to its limit, and the header lines.
private final class Response {
    let limit: Int
    var body: [UInt8] = []
    var headers = ResponseHeaders()
    /// Set by the write callback when the body went past `limit`.
    var oversize = false
    /// libcurl's detailed message for the last failure (CURLOPT_ERRORBUFFER), NUL-terminated.
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init(limit: Int) {
        self.limit = limit
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit { errorBuffer.deallocate() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> Response { Unmanaged.fromOpaque(pointer!).takeUnretainedValue() }
}

private struct Transfer {
    let functions: UnsafePointer<WaypostCurlFunctions>
    let handle: UnsafeMutableRawPointer
    let response: Response
    let host: String

    /// A failed option: this libcurl lacks something the rules need (CURLOPT_PROTOCOLS_STR came in 7.85).
    private struct OptionRefused: Error { let failure: VerificationFailure }

    func run(url: String, limits: AssociationFetcher.Limits) -> Result<FetchedFile, VerificationFailure> {
        do { try configure(url: url, limits: limits) } catch { return .failure(error.failure) }
        let code = functions.pointee.curl_easy_perform(handle)
        return outcome(of: code, limits: limits)
    }

    private func configure(url: String, limits: AssociationFetcher.Limits) throws(OptionRefused) {
        let f = functions
        let h = handle
        try check(waypost_curl_setopt_string(f, h, CURLOPT_URL, url), "CURLOPT_URL")
        try check(waypost_curl_setopt_string(f, h, CURLOPT_PROTOCOLS_STR, "https"), "CURLOPT_PROTOCOLS_STR")
        try check(waypost_curl_setopt_long(f, h, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        // Certificate and host name checked: libcurl's defaults, stated so that no other code path can differ.
        try check(waypost_curl_setopt_long(f, h, CURLOPT_SSL_VERIFYPEER, 1), "CURLOPT_SSL_VERIFYPEER")
        try check(waypost_curl_setopt_long(f, h, CURLOPT_SSL_VERIFYHOST, 2), "CURLOPT_SSL_VERIFYHOST")
        try check(waypost_curl_setopt_long(f, h, CURLOPT_SSLVERSION, CURL_SSLVERSION_TLSv1_2), "CURLOPT_SSLVERSION")
        // No signals from libcurl: it runs on a queue's thread in a threaded program.
        try check(waypost_curl_setopt_long(f, h, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(waypost_curl_setopt_long(f, h, CURLOPT_CONNECTTIMEOUT_MS, Int(limits.connectTimeout * 1000)), "CURLOPT_CONNECTTIMEOUT_MS")
        try check(waypost_curl_setopt_long(f, h, CURLOPT_TIMEOUT_MS, Int(limits.totalTimeout * 1000)), "CURLOPT_TIMEOUT_MS")
        // Refused before the body when Content-Length announces more; the write callback stops the rest.
        try check(waypost_curl_setopt_size(f, h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(response.limit)), "CURLOPT_MAXFILESIZE_LARGE")
        try check(waypost_curl_setopt_string(f, h, CURLOPT_USERAGENT, "Waypost association verifier"), "CURLOPT_USERAGENT")
        try check(waypost_curl_setopt_pointer(f, h, CURLOPT_ERRORBUFFER, response.errorBuffer), "CURLOPT_ERRORBUFFER")
        let context = Unmanaged.passUnretained(response).toOpaque()
        try check(waypost_curl_setopt_write_callback(f, h, CURLOPT_WRITEFUNCTION, receiveBody), "CURLOPT_WRITEFUNCTION")
        try check(waypost_curl_setopt_pointer(f, h, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(waypost_curl_setopt_write_callback(f, h, CURLOPT_HEADERFUNCTION, receiveHeader), "CURLOPT_HEADERFUNCTION")
        try check(waypost_curl_setopt_pointer(f, h, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
    }

    private func check(_ code: CURLcode, _ option: String) throws(OptionRefused) {
        guard code == CURLE_OK else {
            throw OptionRefused(failure: .clientUnavailable(reason: "libcurl refused \(option): \(message(code))"))
        }
    }

    /// The failure libcurl's code stands for, or the checks of a complete (or stopped) answer.
    private func outcome(of code: CURLcode, limits: AssociationFetcher.Limits) -> Result<FetchedFile, VerificationFailure> {
        switch code {
        case CURLE_OK, CURLE_FILESIZE_EXCEEDED:
            return answer(oversize: code == CURLE_FILESIZE_EXCEEDED)
        case CURLE_WRITE_ERROR where response.oversize:
            return answer(oversize: true)
        case CURLE_COULDNT_RESOLVE_HOST:
            return .failure(.nameResolution(host: host, message: message(code)))
        case CURLE_COULDNT_CONNECT:
            return .failure(.connection(host: host, message: message(code)))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timeout(host: host, message: message(code)))
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_CRL_BADFILE:
            return .failure(.certificate(host: host, message: message(code)))
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_FAILED_INIT, CURLE_NOT_BUILT_IN, CURLE_OUT_OF_MEMORY, CURLE_SSL_ENGINE_INITFAILED:
            return .failure(.clientUnavailable(reason: message(code)))
        default:
            return .failure(.transfer(host: host, message: message(code)))
        }
    }

    /// The server answered: its status first (a large error page is a status, not "oversize"),
    /// then the type, then the size.
    private func answer(oversize: Bool) -> Result<FetchedFile, VerificationFailure> {
        var status = 0
        _ = waypost_curl_getinfo_long(functions, handle, CURLINFO_RESPONSE_CODE, &status)
        if (300...399).contains(status) {
            var location: UnsafeMutablePointer<CChar>?
            _ = waypost_curl_getinfo_string(functions, handle, CURLINFO_REDIRECT_URL, &location)
            return .failure(.redirect(status: status, location: location.map { String(cString: $0) }))
        }
        guard status == 200 else { return .failure(.httpStatus(status: status)) }
        guard response.headers.isJSON else { return .failure(.contentType(served: response.headers.contentType)) }
        guard !oversize, !response.oversize else { return .failure(.oversize(limit: response.limit)) }
        return .success(FetchedFile(body: response.body, maxAge: response.headers.maxAge))
    }

    /// libcurl's detailed message when it left one, else the code's general text.
    private func message(_ code: CURLcode) -> String {
        let detail = String(cString: response.errorBuffer)
        guard detail.isEmpty else { return detail }
        return functions.pointee.curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }
}

/// CURLOPT_WRITEFUNCTION: appends to the body; past the limit, returns less than it was given,
/// which makes libcurl stop the transfer with CURLE_WRITE_ERROR.
private let receiveBody: curl_write_callback = { data, size, count, context in
    let response = Response.from(context)
    let length = size * count
    guard response.body.count + length <= response.limit else {
        response.oversize = true
        return 0
    }
    if let data { response.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
    return length
}

/// CURLOPT_HEADERFUNCTION: one whole header line per call (status line and blank line included).
private let receiveHeader: curl_write_callback = { data, size, count, context in
    let length = size * count
    if let data {
        Response.from(context).headers.add(line: String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self))
    }
    return length
}
