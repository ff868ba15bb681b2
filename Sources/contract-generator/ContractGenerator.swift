import FoundationEssentials
import Glibc

/// Writes the D-Bus contract's Swift (`Sources/WaypostContract/Generated`) from the introspection
/// files of `dbus/`: `contract-generator DBUS-DIRECTORY OUTPUT-DIRECTORY`. Every `*.xml` there is
/// read, in name order; every `*.swift` in the output directory that it does not write is removed,
/// and a file whose text is unchanged is not touched (no rebuild for nothing). `make contract` runs
/// it; `make check-contract` runs it into a scratch directory and compares.
@main
enum ContractGenerator {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 2 else {
            printError("usage: contract-generator DBUS-DIRECTORY OUTPUT-DIRECTORY")
            exit(64)
        }
        do {
            try generate(from: arguments.first!, into: arguments.last!)
        } catch {
            printError("contract-generator: \(error)")
            exit(1)
        }
    }

    static func generate(from source: String, into output: String) throws {
        let manager = FileManager.default
        let names = try manager.contentsOfDirectory(atPath: source).filter { $0.hasSuffix(".xml") }.sorted()
        guard !names.isEmpty else { throw GeneratorError(source, "no *.xml here") }
        var files: [IntrospectionFile] = []
        for name in names {
            let data = try Data(contentsOf: URL(filePath: source + "/" + name))
            files.append(try IntrospectionFile(fileName: name, data: data))
        }
        let written = SwiftWriter(model: try ContractModel(files)).files()
        try manager.createDirectory(atPath: output, withIntermediateDirectories: true)
        for file in written {
            let path = output + "/" + file.name
            let bytes = Data(file.text.utf8)
            if (try? Data(contentsOf: URL(filePath: path))) != bytes { try bytes.write(to: URL(filePath: path)) }
        }
        let kept = Set(written.map(\.name))
        for stale in try manager.contentsOfDirectory(atPath: output) where stale.hasSuffix(".swift") && !kept.contains(stale) {
            try manager.removeItem(atPath: output + "/" + stale)
        }
    }
}

/// `text` and a line break on standard error. `write`.
private func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
