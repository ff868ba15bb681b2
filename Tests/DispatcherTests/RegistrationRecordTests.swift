import Testing

@testable import Dispatcher

/// The record a daemon reads from the one before it (no I/O): only well-formed lines count, and
/// only on the bus it was written on.
@Suite struct RegistrationRecordTests {
    static let bus = "0c2f3a7b5e1d4c6a9b8e7f6d5c4b3a29"

    func parse(_ lines: String) -> [(owner: String, appID: String)] {
        RegistrationRecord.parse("bus\t\(Self.bus)\n" + lines, busID: Self.bus)
    }

    @Test func eachLineNamesAUniqueNameAndAnApp() {
        let read = parse(":1.12\torg.example.Contacts\n:1.40\torg.example.Mail\n")
        #expect(read.map(\.owner) == [":1.12", ":1.40"])
        #expect(read.map(\.appID) == ["org.example.Contacts", "org.example.Mail"])
    }

    @Test func aRecordOfAnotherBusNamesNobody() {
        let text = "bus\t\(Self.bus)\n:1.12\torg.example.Contacts\n"
        #expect(RegistrationRecord.parse(text, busID: "another").isEmpty)
        #expect(RegistrationRecord.parse(":1.12\torg.example.Contacts\n", busID: Self.bus).isEmpty)
    }

    @Test(arguments: [
        "org.example.Contacts\t:1.12", ":1.12", ":1.12\t", ":1.12\ta\tb", "io.waypost.Dispatcher\torg.example.Contacts",
        ":1.x\torg.example.Contacts", ":1.12\t" + String(repeating: "a", count: Budgets.idBytes + 1), "bus\tother",
    ])
    func aMalformedLineNamesNobody(line: String) {
        #expect(parse(line + "\n:1.3\torg.example.Mail\n").map(\.owner) == [":1.3"])
    }

    @Test func onlyTheFirstThousandLinesAreRead() {
        let text = (0..<5000).map { ":1.\($0)\torg.example.App\n" }.joined()
        #expect(parse(text).count == RegistrationRecord.lineLimit)
    }
}
