internal import Glibc

/// An `errno` value from a failed system call.
struct SystemErrno: Error {
    let code: Int32
}

/// The target of `/proc/<pid>/exe` (the kernel's absolute path of the program a process runs),
/// or the `errno` that stopped reading it. `readlink`.
func readProcessExecutable(pid: Int32) -> Result<String, SystemErrno> {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
    guard length >= 0 else { return .failure(SystemErrno(code: errno)) }
    let bytes = buffer[0..<length].map { UInt8(bitPattern: $0) }
    return .success(String(decoding: bytes, as: UTF8.self))
}

/// The system's message for an `errno` value. `strerror`.
func errnoMessage(_ code: Int32) -> String {
    strerror(code).map { String(cString: $0) } ?? "errno \(code)"
}
