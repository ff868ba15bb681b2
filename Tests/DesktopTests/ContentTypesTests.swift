import Desktop
import ExternalEvents
import Testing
import TestSupport

/// Against the machine's real shared-mime-info database.
@Suite("Content types through GIO")
struct ContentTypesTests {
    // First: GLib caches the XDG directories at its first call, and the catalog tests in this
    // process need their throwaway ones.
    let desktop = DesktopTestEnvironment.shared
    let types: ContentTypes

    init() throws { types = try ContentTypes() }

    @Test("a .md file is text/markdown")
    func markdownGuessed() {
        #expect(types.contentType(ofFileURL: "file:///home/me/notes.md") == "text/markdown")
    }

    @Test("the URL's path is percent-decoded before guessing")
    func percentDecoded() {
        #expect(types.contentType(ofFileURL: "file:///home/me/My%20Photo.png") == "image/png")
    }

    @Test("a URL that is not a local file has no content type")
    func notAFile() {
        #expect(types.contentType(ofFileURL: "https://example.com/notes.md") == nil)
        #expect(types.contentType(ofFileURL: "not a url") == nil)
    }

    @Test("a name GIO cannot place has no content type")
    func uncertain() {
        #expect(types.contentType(ofFileURL: "file:///tmp/no-extension-at-all") == nil)
    }

    @Test("text/markdown is a text/plain, and is itself; text/plain is not a text/markdown")
    func subtypes() {
        #expect(types.contentType("text/markdown", conformsTo: "text/plain"))
        #expect(types.contentType("text/markdown", conformsTo: "text/markdown"))
        #expect(!types.contentType("text/plain", conformsTo: "text/markdown"))
        #expect(!types.contentType("image/png", conformsTo: "text/plain"))
    }

    @Test("MIME aliases resolve: text/x-markdown is text/markdown")
    func alias() {
        #expect(types.contentType("text/x-markdown", conformsTo: "text/markdown"))
        #expect(types.contentType("text/markdown", conformsTo: "text/x-markdown"))
    }

    @Test("a document group for text/plain takes a Markdown file through the real database")
    func documentGroupRoutes() throws {
        let app = try SceneRouter(
            declarations: [.windowGroup("main", matching: ["zzz"]), .documentGroup("editor", contentTypes: ["text/plain"])],
            contentTypes: types)
        let decision = app.route(.url("file:///home/me/notes.md"))
        #expect(decision.action == .create(declaration: "editor"))
        #expect(decision.rule == .documentType)
        #expect(app.route(.url("file:///home/me/photo.png")).action == .unhandled)
    }
}
