internal import CDBus

/// Asks libdbus whether `value` is a valid name of `kind`; returns libdbus's reason when it is not.
/// Wraps `dbus_validate_bus_name`, `dbus_validate_path`, `dbus_validate_interface`,
/// `dbus_validate_member`, `dbus_validate_error_name` and `dbus_signature_validate`.
func libdbusRejection(of value: String, as kind: InvalidNameError.Kind) -> String? {
    let checked: (Bool, (name: String, message: String)?)? = withValidatedCString(value) { cString in
        withScratchError { error in
            switch kind {
            case .busName: dbus_validate_bus_name(cString, error) != 0
            case .objectPath: dbus_validate_path(cString, error) != 0
            case .interfaceName: dbus_validate_interface(cString, error) != 0
            case .memberName: dbus_validate_member(cString, error) != 0
            case .errorName: dbus_validate_error_name(cString, error) != 0
            case .signature: dbus_signature_validate(cString, error) != 0
            }
        }
    }
    guard let (valid, error) = checked else { return "contains a NUL character" }
    if valid { return nil }
    return error?.message ?? "rejected by libdbus"
}

/// Whether `signature` (already valid) is exactly one complete type; `dbus_signature_validate_single`.
func isSingleCompleteType(_ signature: String) -> Bool {
    signature.withCString { dbus_signature_validate_single($0, nil) != 0 }
}

/// Splits a valid signature into its complete types, e.g. "sa{sv}i" → ["s", "a{sv}", "i"];
/// walks it with `dbus_signature_iter_init` / `dbus_signature_iter_next`.
func completeTypes(of signature: String) -> [String] {
    if signature.isEmpty { return [] }
    return signature.withCString { cString in
        var iterator = DBusSignatureIter()
        dbus_signature_iter_init(&iterator, cString)
        var types: [String] = []
        repeat {
            if let part = dbus_signature_iter_get_signature(&iterator) {
                types.append(String(cString: part))
                dbus_free(part)
            }
        } while dbus_signature_iter_next(&iterator) != 0
        return types
    }
}
