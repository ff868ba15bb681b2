import ExternalEvents

// The condition index's merges, built off the connection's thread: a change costs the thread about
// its own conditions and the app's small automaton, never a rebuild of everything the app holds, so
// one app churning its sets does not stall another app's links (Benchmarks/stress/churn.py).
extension Dispatcher {
    /// Starts building the app's due merge, if one is due and none is out; installs it when built.
    func mergeIfDue(_ appID: String) {
        guard let job = registry.takeMergeJob(of: appID) else { return }
        Task.detached(priority: .utility) {
            let merged = job.build()
            await self.installMerge(merged, of: appID)
        }
    }

    private func installMerge(_ merged: MergedIndex, of appID: String) {
        registry.finishMerge(of: appID, merged)
        mergeIfDue(appID)
    }
}
