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
