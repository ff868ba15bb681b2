// A shared URL of Waypost's handoff scheme: any paired device, or any local process, chooses its bytes.
import Handoff

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHandoffPayload(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for url in [text, "waypost-handoff:v1/" + text] {
        guard let payload = try? HandoffPayload(url: url) else { continue }
        // What reads is within the limits, and travels again as the same payload.
        precondition(payload.activityType.utf8.count <= HandoffPayload.Limits.fieldBytes, "a type over its limit was read")
        // Sent again it may be longer (the sender's JSON may spell less than ours): then only too large.
        let again: String
        do { again = try payload.url() } catch .urlTooLarge { continue } catch {
            preconditionFailure("a payload read from \(url) cannot be sent again: \(error)")
        }
        precondition((try? HandoffPayload(url: again)) == payload, "a payload does not survive its own URL")
    }
    return 0
}
