internal import Glibc

/// Shows the chooser window for `request` and waits for the user's answer.
///
/// GTK 4 is opened at run time (never linked) and initialised here; the opener's token in
/// `XDG_ACTIVATION_TOKEN` or `DESKTOP_STARTUP_ID` is left for GTK to present the window with.
/// Call it on the process's main thread, once: GTK belongs to the thread that initialised it.
/// - Throws: `ChooserError` when GTK cannot be loaded or no display can be opened.
public func chooseDestination(_ request: ChooserRequest) throws(ChooserError) -> ChooserAnswer {
    precondition(!request.candidates.isEmpty, "the chooser needs a candidate")
    try GtkLibrary.start()
    let window = ChooserWindow(request)
    return withExtendedLifetime(window) { window.run() }
}

/// `waypost choose --serve`: starts GTK as `chooseDestination` does, writes `ready`, then answers
/// requests read from `input` (`ServedRequest`'s lines) one window at a time, each with one line
/// given to `write` (`ChooserAnswer.line`, or `servedErrorLine` for a line that does not read),
/// until the input ends. `write` returns false when the line could not be written.
///
/// The tokens in `XDG_ACTIVATION_TOKEN` and `DESKTOP_STARTUP_ID` are removed before GTK starts:
/// each request brings its own, and one of the environment would be used up long before.
/// Call it on the process's main thread, once.
/// - Throws: `ChooserError` when GTK cannot be loaded or no display can be opened; nothing was
///   written then.
public func serveChoosers(input: Int32, write: (String) -> Bool) throws(ChooserError) -> ServeEnd {
    unsetenv("XDG_ACTIVATION_TOKEN")
    unsetenv("DESKTOP_STARTUP_ID")
    try GtkLibrary.start()
    guard write("ready") else { return .outputClosed }
    let server = ChooserServer(input: input)
    return withExtendedLifetime(server) { server.run(write: write) }
}
