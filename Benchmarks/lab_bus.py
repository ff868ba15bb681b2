"""The lab desktop's private session bus, as the tests' PrivateSession writes it: a socket file in
the session's runtime directory, and only the session's own services (a bus that loaded the
machine's would start whatever is installed, xdg-desktop-portal included, which changes how
Chromium opens links)."""


def lab_bus_config(root, data_home=None):
    """Writes ROOT/bus.conf and returns its path; services come from DATA_HOME (ROOT/data)."""
    path = f"{root}/bus.conf"
    with open(path, "w") as config:
        config.write(f"""<busconfig>
  <type>session</type>
  <listen>unix:dir={root}/runtime</listen>
  <auth>EXTERNAL</auth>
  <servicedir>{data_home or root + "/data"}/dbus-1/services</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
""")
    return path
