/// The main loop's thread, where GTK lives: code isolated to it may touch windows, and `await`
/// reaches it from any handler (the sample apps' Waypost handlers run off it).
@globalActor public actor GtkActor {
    public static let shared = GtkActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        MainContextExecutor.shared.asUnownedSerialExecutor()
    }
}
