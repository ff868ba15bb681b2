import Desktop

extension Doctor {
    static let gsconnectSchema = "glib-2.0/schemas/org.gnome.Shell.Extensions.GSConnect.gschema.xml"

    /// What GSConnect, where installed, does with a handoff sent here. Version 54 (Debian 12) opens
    /// every shared URL; later versions only with the share plugin's `launch-urls` setting on, per
    /// device, which is read here from the installed schema (whether the key exists), not its value:
    /// that needs GSettings, which Waypost does not use.
    func handoffFindings() -> [Finding] {
        let schemas = ([directories.dataHome] + directories.systemDataDirectories).map { $0 + "/" + Self.gsconnectSchema }
        guard let schema = schemas.first(where: Files.exists) else { return [] }
        let text = ((try? Files.read(schema)) ?? nil).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let gated = text.contains("name=\"launch-urls\"")
        var findings = [Finding(
            .note, "GSConnect is installed: a handoff it receives is offered as from \"a device through GSConnect\" and always asks "
                + "(GSConnect does not say which device sent it; docs/handoff.md)")]
        if gated {
            findings.append(Finding(
                .note, "this GSConnect opens a shared link only with the device's launch-urls setting on (\(schema)); with it off, "
                    + "handoffs sent here through GSConnect never arrive, and waypost cannot read that setting",
                fix: "in GSConnect's preferences, turn on opening shared links for each device that hands over, or run "
                    + "`gsettings set org.gnome.Shell.Extensions.GSConnect.Plugin.Share:/org/gnome/shell/extensions/gsconnect/device/ID/plugin/share/ launch-urls true`"))
        } else {
            findings.append(Finding(.ok, "this GSConnect opens every link a device shares (its schema has no launch-urls setting)"))
        }
        return findings
    }
}
