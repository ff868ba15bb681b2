#!/usr/bin/python3
"""Chooses a desktop entry's action as GNOME Shell and Dash to Dock do: GLib's
g_desktop_app_info_launch_action, which runs the action's Exec or, for a DBusActivatable entry,
calls org.freedesktop.Application.ActivateAction on the app's bus name.

usage: launch_action.py DESKTOP-ID ACTION [ACTIVATION-TOKEN]
Exits 2 when GIO has no such entry, 3 when the entry does not list the action."""
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio  # noqa: E402


class TokenContext(Gio.AppLaunchContext):
    """A launch context with an activation token, as a compositor's gives the shell."""

    def __init__(self, token):
        super().__init__()
        self.token = token

    def do_get_startup_notify_id(self, info, files):
        return self.token


def main():
    desktop_id, action = sys.argv[1], sys.argv[2]
    info = Gio.DesktopAppInfo.new(desktop_id)
    if info is None:
        print(f"no desktop entry {desktop_id}", file=sys.stderr)
        return 2
    if action not in info.list_actions():
        print(f"{desktop_id} lists no action {action}: {info.list_actions()}", file=sys.stderr)
        return 3
    context = Gio.AppLaunchContext()
    if len(sys.argv) > 3:
        # GLib puts the token in ActivateAction's platform data (StartupNotify=true entries); an
        # Exec line gets it in its environment, as launchers set it.
        context = TokenContext(sys.argv[3])
        context.setenv("XDG_ACTIVATION_TOKEN", sys.argv[3])
    # GLib flushes the bus before it returns: the ActivateAction call is on its way.
    info.launch_action(action, context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
