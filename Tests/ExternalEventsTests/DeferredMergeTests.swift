import ExternalEvents
import Testing

/// Merges built off the serving thread (`defersMerges`, as the daemon routes): once an app's sets
/// are quiet, its last small changes must not leave every later link searching them one by one.
@Suite struct DeferredMergeTests {
    /// An app of `scenes` scenes with four preferring conditions each, its merges installed.
    func settled(scenes: Int) throws -> SceneRouter {
        var app = try SceneRouter(declarations: [.windowGroup("items")])
        app.defersMerges = true
        for index in 0..<scenes { try add(index, to: &app) }
        while let job = app.takeMergeJob() { _ = app.finishMerge(job.build()) }
        return app
    }

    func add(_ index: Int, to app: inout SceneRouter) throws {
        try app.addScene("scene-\(index)", declaration: "items")
        try app.setModifiers([EventPreference(preferring: ConditionSet((0..<4).map { "item-\(index)-\($0)&" }))], ofScene: "scene-\(index)")
    }

    @Test("small changes make no merge due by themselves; asked once the sets are quiet, they are merged and route as before")
    func quietLevelsMerge() throws {
        var app = try settled(scenes: 200)
        for index in 200..<205 { try add(index, to: &app) }  // 20 conditions, under a level's 64
        let early = app.takeMergeJob()
        #expect(early == nil)
        #expect(app.route(.url("bench://items/show?item=item-204-2&")).action == .deliver(scene: "scene-204"))
        app.mergeLevelsSearchedOneByOne()
        let taken = app.takeMergeJob()
        let job = try #require(taken)
        let installed = app.finishMerge(job.build())
        #expect(installed)
        app.mergeLevelsSearchedOneByOne()
        let left = app.takeMergeJob()
        #expect(left == nil, "nothing is left searched one by one")
        #expect(app.route(.url("bench://items/show?item=item-204-2&")).action == .deliver(scene: "scene-204"))
        #expect(app.route(.url("bench://items/show?item=item-17-0&")).action == .deliver(scene: "scene-17"))
    }

    @Test("a merge already out is not asked for twice")
    func oneMergeAtATime() throws {
        var app = try settled(scenes: 200)
        for index in 200..<203 { try add(index, to: &app) }
        app.mergeLevelsSearchedOneByOne()
        let taken = app.takeMergeJob()
        let job = try #require(taken)
        try add(203, to: &app)
        app.mergeLevelsSearchedOneByOne()
        let second = app.takeMergeJob()
        #expect(second == nil)
        let installed = app.finishMerge(job.build())
        #expect(installed)
        #expect(app.route(.url("bench://items/show?item=item-203-1&")).action == .deliver(scene: "scene-203"))
    }
}
