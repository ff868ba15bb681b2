// The URI checks every link passes before routing, and the cut that monitors and logs see.
@testable import Dispatcher
import WaypostContract

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURIGrammar(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let scheme = try? URIGrammar.scheme(of: text) {
        precondition(!scheme.isEmpty && scheme.utf8.allSatisfy { $0 < 0x80 }, "a scheme of ASCII only")
        precondition(text.utf8.prefix(scheme.utf8.count).map { $0 | 0x20 } == scheme.utf8.map { $0 | 0x20 }, "the scheme is the URI's own")
    }
    // What the cut keeps holds no query, fragment or user info: only the "?…" it adds.
    // Compared as bytes: as Characters, a prepended mark (U+070F) joins the "?" that follows it.
    let cut = Array(Contract.redacted(text).utf8)
    let marker = Array("?…".utf8)
    let kept = cut.count >= marker.count && Array(cut.suffix(marker.count)) == marker ? Array(cut.dropLast(marker.count)) : cut
    precondition(!kept.contains(UInt8(ascii: "?")) && !kept.contains(UInt8(ascii: "#")), "the cut of \(text) keeps a query")
    precondition(kept.count <= text.utf8.count, "the cut is never longer")
    return 0
}
