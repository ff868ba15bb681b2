// Association files (applinks, fetched from any domain) parsed, then links matched against them:
// the input is the file, then, after a NUL byte, a link's path and query (what a page can choose).
// That link is matched as given and with its path repeated to 8 KiB. Run with libFuzzer's
// -timeout and -rss_limit_mb (`make fuzz`), so that an input slow to parse or to match is a
// finding, as a crash is: each decision must stay within its step budget.
import Associations

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAssociations(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    guard let file = try? AssociationFile(json: bytes[..<split]) else { return 0 }
    let tail = String(decoding: bytes[min(split + 1, bytes.endIndex)...], as: UTF8.self)
    let path = String(tail.unicodeScalars.filter { $0.value > 0x20 && $0 != "#" })
    let long = path.isEmpty ? "" : String(repeating: path, count: 8192 / path.utf8.count + 1)
    for url in ["https://example.com/", "https://example.com/a?b=c#d", "https://example.com/" + path, "https://example.com/" + long] {
        guard let link = try? WebLink(url) else { continue }
        let match = file.match(link, opener: .known(nil))
        // Over budget, a match names no app: the link goes to the browser.
        if match.isOverBudget, !match.apps.isEmpty { fatalError("an over-budget match named \(match.apps)") }
    }
    return 0
}
