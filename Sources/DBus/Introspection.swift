/// The standard introspection document for an object: the interfaces every object has, then the
/// exported table's, then the child nodes.
func introspectionXML(_ object: ExportedObject?, children: [String]) -> String {
    var xml = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>

        """
    if let object {
        xml += standardInterfaces
        for name in object.order {
            guard let interface = object.interfaces[name] else { continue }
            xml += "  <interface name=\"\(interface.name)\">\n"
            for method in interface.methods {
                xml += "    <method name=\"\(method.name)\">\n"
                for argument in method.arguments { xml += argumentXML(argument, direction: "in") }
                for argument in method.returns { xml += argumentXML(argument, direction: "out") }
                xml += "    </method>\n"
            }
            for signal in interface.signals {
                xml += "    <signal name=\"\(signal.name)\">\n"
                for argument in signal.arguments { xml += argumentXML(argument, direction: nil) }
                xml += "    </signal>\n"
            }
            for property in interface.properties {
                xml += "    <property name=\"\(property.name)\" type=\"\(escaped(property.signature.rawValue))\" access=\"read\"/>\n"
            }
            xml += "  </interface>\n"
        }
    }
    for child in children { xml += "  <node name=\"\(escaped(child))\"/>\n" }
    return xml + "</node>\n"
}

private func argumentXML(_ argument: Argument, direction: String?) -> String {
    let name = argument.name.isEmpty ? "" : " name=\"\(escaped(argument.name))\""
    let direction = direction.map { " direction=\"\($0)\"" } ?? ""
    return "      <arg\(name) type=\"\(escaped(argument.signature.rawValue))\"\(direction)/>\n"
}

private func escaped(_ text: String) -> String {
    var result = ""
    for character in text {
        switch character {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        case "'": result += "&apos;"
        default: result.append(character)
        }
    }
    return result
}

private let standardInterfaces = """
      <interface name="org.freedesktop.DBus.Introspectable">
        <method name="Introspect">
          <arg name="xml_data" type="s" direction="out"/>
        </method>
      </interface>
      <interface name="org.freedesktop.DBus.Peer">
        <method name="Ping"/>
        <method name="GetMachineId">
          <arg name="machine_uuid" type="s" direction="out"/>
        </method>
      </interface>
      <interface name="org.freedesktop.DBus.Properties">
        <method name="Get">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="property_name" type="s" direction="in"/>
          <arg name="value" type="v" direction="out"/>
        </method>
        <method name="GetAll">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="properties" type="a{sv}" direction="out"/>
        </method>
        <method name="Set">
          <arg name="interface_name" type="s" direction="in"/>
          <arg name="property_name" type="s" direction="in"/>
          <arg name="value" type="v" direction="in"/>
        </method>
        <signal name="PropertiesChanged">
          <arg name="interface_name" type="s"/>
          <arg name="changed_properties" type="a{sv}"/>
          <arg name="invalidated_properties" type="as"/>
        </signal>
      </interface>

    """
