import Glibc

/// `LLVMFuzzerRunDriver`, libFuzzer's entry for programs with a main of their own (in the runtime
/// that `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

public enum FuzzerDriver {
    /// Runs libFuzzer with this process's arguments and `target`, then exits with its status.
    public static func run(_ target: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32) -> Never {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(runDriver(&argc, &argv, target))
    }
}
