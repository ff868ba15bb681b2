// Association files (applinks), as fetched from any domain: parsed, then matched against a link
// made from the input's last line.
import Associations

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAssociations(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let file = try? AssociationFile(json: bytes) else { return 0 }
    let tail = String(decoding: bytes.suffix(64), as: UTF8.self).filter { !$0.isWhitespace }
    for url in ["https://example.com/", "https://example.com/" + tail, "https://example.com/a?b=c#d"] {
        if let link = try? WebLink(url) { _ = file.match(link) }
    }
    return 0
}
