import Associations
import Testing

/// What a file may hold: unknown keys are ignored (forward compatibility); a value of the wrong
/// type is refused with its JSON path; too large or not JSON is refused at `$`.
@Suite("Association file structure")
struct FileStructureTests {
    @Test("unknown keys are ignored at every level")
    func unknownKeys() throws {
        let file = try associationFile("""
            {"applinks": {"apps": [], "future": 1, "defaults": {"future": true},
              "details": [{"appIDs": ["A"], "future": [], "components": [{"/": "/a", "future": {"x": 1}}]}]},
             "webcredentials": {"apps": ["A"]}, "appclips": {"apps": ["A.Clip"]}}
            """)
        #expect(try apps(file, "https://x.example/a") == ["A"])
    }

    @Test("a structurally malformed file is refused with the JSON path of the problem", arguments: [
        (#"[]"#, "$", "expected an object, found an array"),
        (#"{"applinks": []}"#, "$.applinks", "expected an object, found an array"),
        (#"{"applinks": {"details": {"A": {"paths": ["*"]}}}}"#, "$.applinks.details", "the iOS 9 form keyed by app ID is not read"),
        (#"{"applinks": {"details": [{"appIDs": "A"}]}}"#, "$.applinks.details[0].appIDs", "expected an array of strings, found a string"),
        (#"{"applinks": {"details": [{"appIDs": ["A", 7]}]}}"#, "$.applinks.details[0].appIDs[1]", "expected a string, found a number"),
        (#"{"applinks": {"details": [{"appID": ["A"]}]}}"#, "$.applinks.details[0].appID", "expected a string, found an array"),
        (#"{"applinks": {"details": [1]}}"#, "$.applinks.details[0]", "expected an object, found a number"),
        (#"{"applinks": {"details": [{"components": {}}]}}"#, "$.applinks.details[0].components", "expected an array, found an object"),
        (#"{"applinks": {"details": [{}, {"components": [{"/": 1}]}]}}"#, #"$.applinks.details[1].components[0]["/"]"#, "expected a string, found a number"),
        (#"{"applinks": {"details": [{"components": [{}, {"?": ["a"]}]}]}}"#, #"$.applinks.details[0].components[1]["?"]"#,
         "expected a string or an object of query items, found an array"),
        (#"{"applinks": {"details": [{"components": [{"exclude": "yes"}]}]}}"#, "$.applinks.details[0].components[0].exclude",
         "expected true or false, found a string"),
        (#"{"applinks": {"details": [{"components": [{"caseSensitive": 0}]}]}}"#, "$.applinks.details[0].components[0].caseSensitive",
         "expected true or false, found a number"),
        (#"{"applinks": {"defaults": {"percentEncoded": 1}}}"#, "$.applinks.defaults.percentEncoded", "expected true or false, found a number"),
        (#"{"applinks": {"details": [{"defaults": []}]}}"#, "$.applinks.details[0].defaults", "expected an object, found an array"),
        (#"{"applinks": {"details": [{"paths": "*"}]}}"#, "$.applinks.details[0].paths", "expected an array of strings, found a string"),
        (#"{"applinks": {"substitutionVariables": {"food": "pizza"}}}"#, "$.applinks.substitutionVariables.food",
         "expected an array of strings, found a string"),
        (##"{"applinks": {"details": [{"components": [{"#": 1}]}]}}"##, ##"$.applinks.details[0].components[0]["#"]"##, "expected a string, found a number"),
    ])
    func malformed(json: String, path: String, problem: String) {
        let error = refusal(json)
        #expect(error?.path == path)
        #expect(error?.problem.contains(problem) == true, "\(String(describing: error))")
    }

    @Test("text that is not JSON is refused at $")
    func notJSON() {
        for text in ["", "{", #"{"applinks": {"details": [}"#, "applinks", #"{"a": tru}"#] {
            let error = refusal(text)
            #expect(error?.path == "$", "\(text)")
            #expect(error?.problem.contains("not valid JSON") == true, "\(text): \(String(describing: error))")
        }
    }

    @Test("a number beyond Double's range is refused, not read as something else")
    func hugeNumber() {
        #expect(refusal(#"{"applinks": {"details": [{"appID": 1e400}]}}"#) != nil)
    }

    /// Each level could be read two ways (as expected, then as anything); a bad value deep inside
    /// must be refused once, not retried at every level, which would be 2^200 reads here.
    @Test("a value that cannot be read, 200 levels deep, is refused at once")
    func deepBadValue() {
        let depth = 200
        let json = String(repeating: #"{"details": ["#, count: depth) + "1e400" + String(repeating: "]}", count: depth)
        #expect(refusal(json) != nil)
        let unicode = String(repeating: #"{"details": ["#, count: depth) + #""\ud800""# + String(repeating: "]}", count: depth)
        #expect(refusal(unicode) != nil)
    }

    @Test("nesting deeper than the decoder allows is refused, without exhausting the stack")
    func deepNesting() {
        let deep = #"{"applinks": "# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(refusal(deep)?.path == "$")
    }

    @Test("a file larger than 128 KiB is refused before it is parsed")
    func huge() {
        let padding = String(repeating: " ", count: AssociationFile.maximumBytes)
        let error = refusal(#"{"applinks": {}}"# + padding)
        #expect(error?.path == "$")
        #expect(error?.problem.contains("at most 131072") == true)
    }

    @Test("a large file of 2,000 components loads and matches its last component")
    func large() throws {
        let list = (0..<2000).map { #"{"/": "/section\#($0)/*"}"# }.joined(separator: ",")
        let file = try components("[\(list)]")
        #expect(file.match(try link("https://x.example/section1999/x")).component == 1999)
    }

    @Test("a file with no applinks section, or no details, is valid and matches nothing")
    func empty() throws {
        for json in ["{}", #"{"applinks": {}}"#, #"{"applinks": {"details": []}}"#] {
            let file = try associationFile(json)
            #expect(file.match(try link("https://x.example/")).details == nil)
            #expect(file.appIDs.isEmpty)
        }
    }

    @Test("an entry with neither components nor paths matches nothing, and the next entry is consulted")
    func entryWithoutRules() throws {
        let file = try associationFile(#"{"applinks": {"details": [{"appIDs": ["A"]}, {"appIDs": ["B"], "components": [{}]}]}}"#)
        #expect(try apps(file, "https://x.example/") == ["B"])
    }
}
