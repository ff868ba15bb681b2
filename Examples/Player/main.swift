// A single-window app: a music player. Every link goes to its one window, whatever it plays.
import SampleSupport
import WaypostKit

let console = SampleConsole(app: "Player")
let app = try Application(id: "io.waypost.example.Player", declarations: [.windowGroup("player")], singleScene: true)

let window = try app.openScene("player", id: "player")
window.onOpenURL { url, _ in
    console.record(scene: window.id, "open-url", ["url": url])
    console.show("player: now playing \(queryValue("track", in: url) ?? url)")
}
// A link may arrive before the dispatcher heard of the window (the app was just launched): the
// one window takes it all the same.
app.onCreateScene { _ in window }
await console.run(app)
