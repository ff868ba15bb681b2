import Testing

@testable import DBus

@Suite struct NamesTests {
    @Test(arguments: [
        (InvalidNameError.Kind.objectPath, "no/leading/slash"),
        (.objectPath, "/trailing/"),
        (.objectPath, "/double//slash"),
        (.objectPath, "/with-dash"),
        (.objectPath, "/nul\0inside"),
        (.objectPath, ""),
        (.busName, ""),
        (.busName, "nodots"),
        (.busName, "org.1starts.withdigit"),
        (.busName, "org.example.\u{e9}"),
        (.interfaceName, "org"),
        (.interfaceName, "org..example"),
        (.interfaceName, ":1.2"),
        (.memberName, "Has.Dot"),
        (.memberName, ""),
        (.memberName, "9Lives"),
        (.errorName, "Failed"),
        (.signature, "a{vs}"),
        (.signature, "(i"),
        (.signature, "z"),
    ])
    func invalidNamesAreRejectedWithTheOffendingValue(kind: InvalidNameError.Kind, value: String) {
        let error = #expect(throws: InvalidNameError.self) {
            switch kind {
            case .busName: _ = try BusName(value)
            case .objectPath: _ = try ObjectPath(value)
            case .interfaceName: _ = try InterfaceName(value)
            case .memberName: _ = try MemberName(value)
            case .errorName: _ = try ErrorName(value)
            case .signature: _ = try Signature(value)
            }
        }
        #expect(error?.kind == kind)
        #expect(error?.value == value)
        #expect(error?.reason.isEmpty == false)
        #expect(error?.description.contains(kind.rawValue) == true)
    }

    @Test func validNamesAreAccepted() {
        // rawValue: the validating initialiser (a literal would trap instead of failing the test).
        #expect(BusName(rawValue: ":1.42")?.isUnique == true)
        #expect(BusName(rawValue: "org.example.App")?.isUnique == false)
        #expect(ObjectPath(rawValue: "/")?.rawValue == "/")
        #expect(ObjectPath(rawValue: "/org/example/App_1")?.rawValue == "/org/example/App_1")
        #expect(InterfaceName(rawValue: "org.example.Echo")?.rawValue == "org.example.Echo")
        #expect(MemberName(rawValue: "Echo")?.rawValue == "Echo")
        #expect(ErrorName(rawValue: "org.example.Error.Nope")?.rawValue == "org.example.Error.Nope")
        #expect(Signature(rawValue: "")?.completeTypes.isEmpty == true)
        #expect(BusName(rawValue: "not a name") == nil)
    }

    @Test func pathsGrowByElement() throws {
        #expect(try ObjectPath.root.appending("org") == "/org")
        #expect(try ObjectPath("/org").appending("example") == "/org/example")
        #expect(throws: InvalidNameError.self) { try ObjectPath("/org").appending("a/b") }
    }

    @Test func signaturesSplitIntoCompleteTypes() throws {
        let signature = try #require(Signature(rawValue: "sa{sv}(ii)av"))
        #expect(signature.completeTypes == ["s", "a{sv}", "(ii)", "av"])
        #expect(!signature.isSingleCompleteType)
        #expect(Signature(rawValue: "a{sv}")?.isSingleCompleteType == true)
    }

    @Test func matchRulesQuoteArgumentValues() {
        let rule = MatchRule(
            sender: .bus, interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
            arguments: [0: "it's"])
        #expect(
            rule.description
                == "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='it'\\''s'"
        )
    }
}
