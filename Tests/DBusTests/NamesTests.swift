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

    @Test func validNamesAreAccepted() throws {
        #expect(try BusName(":1.42").isUnique)
        #expect(try !BusName("org.example.App").isUnique)
        #expect(try ObjectPath("/").rawValue == "/")
        #expect(try ObjectPath("/org/example/App_1").rawValue == "/org/example/App_1")
        #expect(try InterfaceName("org.example.Echo").rawValue == "org.example.Echo")
        #expect(try MemberName("Echo").rawValue == "Echo")
        #expect(try ErrorName("org.example.Error.Nope").rawValue == "org.example.Error.Nope")
        #expect(try Signature("").completeTypes.isEmpty)
        #expect(BusName(rawValue: "not a name") == nil)
    }

    @Test func pathsGrowByElement() throws {
        #expect(try ObjectPath.root.appending("org") == "/org")
        #expect(try ObjectPath("/org").appending("example") == "/org/example")
        #expect(throws: InvalidNameError.self) { try ObjectPath("/org").appending("a/b") }
    }

    @Test func signaturesSplitIntoCompleteTypes() throws {
        let signature = try Signature("sa{sv}(ii)av")
        #expect(signature.completeTypes == ["s", "a{sv}", "(ii)", "av"])
        #expect(!signature.isSingleCompleteType)
        #expect(try Signature("a{sv}").isSingleCompleteType)
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
