internal import CGIO
internal import Glibc

/// Splits an `Exec=` value (already unescaped by the key-file reader) into arguments, with the
/// Desktop Entry spec's double-quote rules, which are the shell's. `g_shell_parse_argv`.
func execArguments(_ exec: String) throws(GLibFailure) -> [String] {
    var vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>? = nil
    _ = try withGLibError { error in gio.g_shell_parse_argv(exec, nil, &vector, error) }
    return takeGLibStringVector(vector)
}

/// The absolute, symlink-free path of `program`: itself when it holds a `/`, else looked up in
/// `PATH`; nil when it is not an executable file. `g_find_program_in_path` (transfer full), `realpath`.
func resolveProgram(_ program: String) -> String? {
    guard !program.isEmpty, let found = takeGLibString(gio.g_find_program_in_path(program)) else { return nil }
    guard let canonical = realpath(found, nil) else { return found }
    defer { free(canonical) }
    return String(cString: canonical)
}
