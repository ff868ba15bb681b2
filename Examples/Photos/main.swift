// Apple's photo browser: a browser window group, the default for any link, and a "photo" window
// group that matches `photoIdentifier=`, each of whose windows prefers its own photo.
import SampleSupport
import WaypostKit

let console = SampleConsole(app: "Photos")
let app = try Application(
    id: "io.waypost.example.Photos",
    declarations: [.windowGroup("browser"), .windowGroup("photo", matching: ["photoIdentifier="])])

/// A browser window takes album links while it is open.
func browser(_ scene: Scene) -> Scene {
    scene.handlesExternalEvents(preferring: [], allowing: ["album="])
    scene.onOpenURL { url, _ in
        console.record(scene: scene.id, "open-url", ["url": url])
        console.show("browser \(scene.id): showing \(queryValue("album", in: url) ?? "all photos")")
    }
    return scene
}

/// A photo window prefers links to its own photo.
func photo(_ scene: Scene) -> Scene {
    scene.onOpenURL { url, _ in
        guard let id = queryValue("photoIdentifier", in: url) else { throw SampleError("no photoIdentifier in \(url)") }
        console.record(scene: scene.id, "open-url", ["url": url])
        scene.handlesExternalEvents(preferring: ["photoIdentifier=\(id)"], allowing: [])
        console.show("photo \(scene.id): showing \(id); prefers [photoIdentifier=\(id)]")
    }
    return scene
}

app.onCreateScene { request in
    let scene = try app.openScene(request.declaration.id)
    return request.declaration.id == "photo" ? photo(scene) : browser(scene)
}
if CommandLine.arguments.contains("--browser") { _ = browser(try app.openScene("browser")) }
await console.run(app)
