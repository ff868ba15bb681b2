internal import CGIO

/// One `.desktop` file found on disk, with the id the Desktop Entry spec gives it
/// (its path below `applications/`, `/` turned into `-`).
struct DesktopFileOnDisk {
    let desktopFileID: String
    let path: String
    /// A regular file (or a link to one): anything else (a FIFO) is never handed to GIO, whose
    /// loader would block in `open` until someone wrote to it.
    let isRegularFile: Bool
}

/// Every `.desktop` file below `<data dir>/applications/` for each data dir, in precedence order;
/// a later file with an id already seen is shadowed and left out. `g_dir_open`, `g_file_test`.
func desktopFilesOnDisk() -> [DesktopFileOnDisk] {
    var found: [DesktopFileOnDisk] = []
    var seen: Set<String> = []
    for directory in dataDirectoriesInPrecedenceOrder() {
        collectDesktopFiles(in: directory + "/applications", idPrefix: "", depth: 0) { file in
            if seen.insert(file.desktopFileID).inserted { found.append(file) }
        }
    }
    return found
}

private func collectDesktopFiles(
    in directory: String, idPrefix: String, depth: Int, _ report: (DesktopFileOnDisk) -> Void
) {
    guard depth < 8, let handle = gio.g_dir_open(directory, 0, nil) else { return }
    defer { gio.g_dir_close(handle) }
    var names: [String] = []
    while let name = gio.g_dir_read_name(handle) { names.append(String(cString: name)) }
    for name in names.sorted() {
        let path = directory + "/" + name
        if gio.g_file_test(path, G_FILE_TEST_IS_DIR) != 0 {
            collectDesktopFiles(in: path, idPrefix: idPrefix + name + "-", depth: depth + 1, report)
        } else if name.hasSuffix(".desktop") {
            report(DesktopFileOnDisk(desktopFileID: idPrefix + name, path: path, isRegularFile: isRegularFile(path)))
        }
    }
}

/// Whether `path` is a regular file, following links. `g_file_test` (`stat`).
func isRegularFile(_ path: String) -> Bool { gio.g_file_test(path, G_FILE_TEST_IS_REGULAR) != 0 }

/// The files that may hold `desktopFileID`, one list per data directory that has any, in
/// precedence order (`a-b.desktop` is `a-b.desktop` or `a/b.desktop`). `g_file_test`.
func desktopFileCandidates(_ desktopFileID: String) -> [[String]] {
    let dashes = desktopFileID.indices.filter { desktopFileID[$0] == "-" }
    // Each dash may be a directory separator; ids with very many dashes are checked as written.
    let choices = dashes.count <= 8 ? 1 << dashes.count : 1
    var candidates: [[String]] = []
    for directory in dataDirectoriesInPrecedenceOrder() {
        var found: [String] = []
        for choice in 0..<choices {
            var relative = desktopFileID
            for (bit, index) in dashes.enumerated() where choice & (1 << bit) != 0 {
                relative.replaceSubrange(index...index, with: "/")
            }
            let path = directory + "/applications/" + relative
            if gio.g_file_test(path, G_FILE_TEST_EXISTS) != 0 { found.append(path) }
        }
        if !found.isEmpty { candidates.append(found) }
    }
    return candidates
}

/// Why GIO would refuse the entry in `path`, in words a person can act on; nil when the file reads
/// as a valid application entry. Mirrors GIO's loader: key-file syntax, the `[Desktop Entry]` group,
/// `Type=Application`, and `TryExec`/`Exec` programs that must exist. `g_key_file_load_from_file`.
func diagnoseDesktopFile(at path: String) -> String? {
    guard isRegularFile(path) else { return "not a regular file (a FIFO, socket or device is never read)" }
    let keyFile = gio.g_key_file_new()
    defer { gio.g_key_file_unref(keyFile) }
    do {
        _ = try withGLibError { error in gio.g_key_file_load_from_file(keyFile, path, G_KEY_FILE_NONE, error) }
    } catch {
        return error.message
    }
    let group = "Desktop Entry"
    guard gio.g_key_file_has_group(keyFile, group) != 0 else { return "no [Desktop Entry] group" }
    let type = takeGLibString(gio.g_key_file_get_string(keyFile, group, "Type", nil))
    guard type == "Application" else { return "Type is \(type.map { "'\($0)'" } ?? "missing"), not 'Application'" }
    if gio.g_key_file_get_boolean(keyFile, group, "Hidden", nil) != 0 { return "Hidden=true (the entry is deleted)" }
    if let tryExec = takeGLibString(gio.g_key_file_get_string(keyFile, group, "TryExec", nil)),
       !tryExec.isEmpty, resolveProgram(tryExec) == nil {
        return "TryExec program '\(tryExec)' is not installed"
    }
    if let exec = takeGLibString(gio.g_key_file_get_string(keyFile, group, "Exec", nil)), !exec.isEmpty {
        let arguments: [String]
        do { arguments = try execArguments(exec) } catch { return "Exec line cannot be parsed: \(error.message)" }
        if let program = arguments.first, resolveProgram(program) == nil {
            return "Exec program '\(program)' is not installed"
        }
    }
    return nil
}
