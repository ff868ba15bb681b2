// The scenario files `waypost explain` reads: JSON, decoded, then routed.
import ExternalEvents
import FoundationEssentials

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let scenario = try? JSONDecoder().decode(Scenario.self, from: bytes),
          let router = try? scenario.router(contentTypes: nil)
    else { return 0 }
    _ = router.route(scenario.event).reason
    return 0
}
