import Associations
import Testing

/// An association file from JSON text; a refusal fails the test that expected a file.
func associationFile(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AssociationFile {
    do {
        return try AssociationFile(json: Array(json.utf8))
    } catch {
        Issue.record("refused: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Why a file is refused, or nil when it is not.
func refusal(_ json: String) -> AssociationFileError? {
    do {
        _ = try AssociationFile(json: Array(json.utf8))
        return nil
    } catch {
        return error
    }
}

func link(_ url: String) throws -> WebLink { try WebLink(url) }

/// The apps a file gives a link (empty for no match, an exclusion, or an entry without apps).
func apps(_ file: AssociationFile, _ url: String) throws -> [String] { file.match(try WebLink(url)).apps }

/// A file of one details entry for app `A`, with the components given as JSON text.
func components(_ list: String, defaults: String? = nil, entryDefaults: String? = nil, variables: String? = nil) throws -> AssociationFile {
    let fileDefaults = defaults.map { "\"defaults\": \($0)," } ?? ""
    let entry = entryDefaults.map { "\"defaults\": \($0)," } ?? ""
    let substitution = variables.map { "\"substitutionVariables\": \($0)," } ?? ""
    return try associationFile("""
        {"applinks": {\(fileDefaults)\(substitution) "details": [{"appIDs": ["A"], \(entry) "components": \(list)}]}}
        """)
}

/// Whether the single-component file matches the link.
func matches(_ file: AssociationFile, _ url: String) throws -> Bool { try apps(file, url) == ["A"] }
