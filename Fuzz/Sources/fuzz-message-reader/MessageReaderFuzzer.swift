// D-Bus messages as they arrive from a peer: libdbus validates the bytes, then the reader walks
// every argument whatever its type.
@testable import DBus

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessageReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let message = try? Message.demarshal(UnsafeRawBufferPointer(start: data, count: size)) else { return 0 }
    _ = try? message.readAll()
    _ = message.description
    return 0
}
