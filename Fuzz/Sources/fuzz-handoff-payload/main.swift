import FuzzerDriver

// SwiftPM names each executable's entry point itself, so libFuzzer's own main cannot be used:
// this one hands the command line to libFuzzer's driver with the target's function.
FuzzerDriver.run { data, size in fuzzHandoffPayload(data, size) }
