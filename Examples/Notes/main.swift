// A document-based editor: one document group for Markdown files. Each window prefers the file
// it shows, so opening that file again brings its window back.
import SampleSupport
import WaypostKit

let console = SampleConsole(app: "Notes")
let app = try Application(
    id: "io.waypost.example.Notes", declarations: [.documentGroup("note", contentTypes: ["text/markdown"])])

app.onCreateScene { request in
    let scene = try app.openScene(request.declaration.id)
    scene.onOpenURL { url, _ in
        console.record(scene: scene.id, "open-url", ["url": url])
        scene.handlesExternalEvents(preferring: [url], allowing: [])
        console.show("note \(scene.id): editing \(url)")
    }
    return scene
}
await console.run(app)
