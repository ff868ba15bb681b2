import ExternalEvents

// The condition index's merges, built off the connection's thread: a change costs the thread about
// its own conditions and the app's small automaton, never a rebuild of everything the app holds, so
// one app churning its sets does not stall another app's links (Benchmarks/stress/churn.py).
//
// Once an app's sets have not changed for `quietBeforeMerge`, what its last changes left in levels
// searched condition by condition is merged too: every later link would search those one by one
// (at 1,000 scenes, about a quarter of the daemon's instructions per `Open`). A stream of changes
// keeps putting that off, so it starts no merges beyond the index's own.
extension Dispatcher {
    static let quietBeforeMerge: Duration = .milliseconds(100)

    /// After a change: starts building the app's due merge, if one is due and none is out, and
    /// installs it when built; and watches for the app's sets to be quiet.
    func mergeIfDue(_ appID: String) {
        lastChange[appID] = .now
        if quietWatches.insert(appID).inserted { Task { await mergeWhenQuiet(appID) } }
        guard let job = registry.takeMergeJob(of: appID) else { return }
        build(job, of: appID)
    }

    private func build(_ job: MergeJob, of appID: String) {
        Task.detached(priority: .utility) {
            let merged = job.build()
            await self.installMerge(merged, of: appID)
        }
    }

    private func mergeWhenQuiet(_ appID: String) async {
        while let last = lastChange[appID], last + Self.quietBeforeMerge > .now {
            try? await Task.sleep(until: last + Self.quietBeforeMerge, clock: .continuous)
        }
        lastChange[appID] = nil
        quietWatches.remove(appID)
        if let job = registry.takeQuietMergeJob(of: appID) { build(job, of: appID) }
    }

    private func installMerge(_ merged: MergedIndex, of appID: String) {
        registry.finishMerge(of: appID, merged)
        mergeIfDue(appID)
    }
}
