#!/usr/bin/env python3
"""A Waypost participating app in Python, written from dbus/io.waypost.Application1.xml alone.

Usage: sample_app.py CONFIG.json

It registers with io.waypost.Dispatcher, declares the configured scenes, opens the configured
scene instances, and appends one JSON line per received event to the configured log. Tests drive
it further through io.waypost.test.Control (same object path), which changes its scenes the way a
real app would when its windows open, close, gain focus or change selection.

Config keys: app_id, log, object_path (default /io/waypost/sample), single_scene (bool),
announce_ready (bool: register with "announces-ready" and call Ready once the start-up scenes are open),
declarations [[id, {kind, matching?, content-types?}]], scenes [{id, declaration, modifiers}],
behaviour {"OpenURL"|"CreateScene"|"ContinueUserActivity"|"ReceiveNotificationResponse": "ok"|"hang"|"refuse"|"exit"}.
Control's Run and OpenInProcess make the app open links itself (as the opener); Notify and Withdraw
post and withdraw its notifications (PostNotification, WithdrawNotifications), answering with the
dispatcher's error name ("" when it accepted).
publish [scene, type, activity] sets that scene's current activity once started (types kept: typed()).
"""
import json
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

DISPATCHER = "io.waypost.Dispatcher"
DISPATCHER_PATH = "/io/waypost/Dispatcher"
DISPATCHER_IFACE = "io.waypost.Dispatcher1"
APP_IFACE = "io.waypost.Application1"
CONTROL_IFACE = "io.waypost.test.Control"


def plain(value):
    """dbus-python values to JSON-friendly ones."""
    if isinstance(value, dbus.Dictionary) or isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (dbus.Array, list, tuple, dbus.Struct)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath, str)):
        return str(value)
    if isinstance(value, (int, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)):
        return int(value)
    return value


def typed(value):
    """JSON to D-Bus with types kept: int is x, float d, {"$bytes": [...]} ay, lists av, objects a{sv}."""
    if isinstance(value, bool):
        return dbus.Boolean(value)
    if isinstance(value, int):
        return dbus.Int64(value)
    if isinstance(value, float):
        return dbus.Double(value)
    if isinstance(value, str):
        return dbus.String(value)
    if isinstance(value, dict) and list(value) == ["$bytes"]:
        return dbus.Array([dbus.Byte(b) for b in value["$bytes"]], signature="y")
    if isinstance(value, list):
        return dbus.Array([typed(v) for v in value], signature="v")
    return dbus.Dictionary({k: typed(v) for k, v in value.items()}, signature="sv")


def modifiers_arg(modifiers):
    return dbus.Array(
        [dbus.Struct((dbus.Array(p, signature="s"), dbus.Array(a, signature="s"))) for p, a in modifiers],
        signature="(asas)")


class SampleApp(dbus.service.Object):
    def __init__(self, bus, config):
        self.config = config
        self.path = config.get("object_path", "/io/waypost/sample")
        self.behaviour = config.get("behaviour", {})
        self.scenes = {}
        self.modifiers = {}
        self.next_scene = 1
        self.bus = bus
        self.registered_with = None
        super().__init__(bus, self.path)
        # Follow the name: after a dispatcher restart, calls go to the new one.
        proxy = bus.get_object(DISPATCHER, DISPATCHER_PATH, follow_name_owner_changes=True)
        self.dispatcher = dbus.Interface(proxy, DISPATCHER_IFACE)

    def log(self, **record):
        record["pid"] = os.getpid()
        with open(self.config["log"], "a") as f:
            f.write(json.dumps(record) + "\n")

    def start(self):
        self.register()
        for scene in self.config.get("scenes", []):
            self.add_scene(scene["id"], scene["declaration"], scene.get("modifiers", []))
        if self.config.get("announce_ready", False):
            self.dispatcher.Ready()
        if "publish" in self.config:
            scene_id, activity_type, activity = self.config["publish"]
            self.dispatcher.SetCurrentActivity(scene_id, activity_type, typed(activity))
        self.registered_with = self.bus.get_name_owner(DISPATCHER)
        self.bus.watch_name_owner(DISPATCHER, self.dispatcher_changed)
        self.log(event="ready")
        # The word a test that started us awaits (on our stdout), instead of watching the log.
        print("ready", flush=True)

    def dispatcher_changed(self, owner):
        """A restarted dispatcher knows nothing of us: register again with the current state."""
        if not owner or owner == self.registered_with:
            return
        self.registered_with = owner
        self.register()
        for scene_id, declaration_id in list(self.scenes.items()):
            self.add_scene(scene_id, declaration_id, self.modifiers.get(scene_id, []))
        if self.config.get("announce_ready", False):
            self.dispatcher.Ready()
        self.log(event="registered-again")

    def register(self):
        options = {"single-scene": dbus.Boolean(self.config.get("single_scene", False)),
                   "announces-ready": dbus.Boolean(self.config.get("announce_ready", False))}
        self.dispatcher.RegisterApplication(self.config["app_id"], dbus.ObjectPath(self.path),
                                            dbus.Dictionary(options, signature="sv"))
        declarations = []
        for decl_id, props in self.config.get("declarations", []):
            entry = {"kind": dbus.String(props["kind"])}
            for key in ("matching", "content-types"):
                if key in props:
                    entry[key] = dbus.Array(props[key], signature="s")
            declarations.append(dbus.Struct((decl_id, dbus.Dictionary(entry, signature="sv"))))
        self.dispatcher.DeclareScenes(dbus.Array(declarations, signature="(sa{sv})"))

    def add_scene(self, scene_id, declaration_id, modifiers):
        self.dispatcher.AddScene(scene_id, declaration_id)
        self.scenes[scene_id] = declaration_id
        self.modifiers[scene_id] = modifiers
        if modifiers:
            self.dispatcher.SetExternalEvents(scene_id, modifiers_arg(modifiers))

    def act(self, member, reply_cb, error_cb, result=None):
        """Answer per the configured behaviour; 'hang' never replies, 'exit' dies mid-call."""
        how = self.behaviour.get(member, "ok")
        if how == "hang":
            return
        if how == "exit":
            os._exit(9)
        if how == "refuse":
            error_cb(dbus.DBusException("the sample app refuses", name="io.waypost.test.Refused"))
            return
        if result is None:
            reply_cb()
        else:
            reply_cb(result)

    # io.waypost.Application1

    @dbus.service.method(APP_IFACE, in_signature="ssa{sv}", out_signature="",
                         async_callbacks=("reply_cb", "error_cb"))
    def OpenURL(self, scene_id, uri, platform_data, reply_cb, error_cb):
        if scene_id not in self.scenes:
            error_cb(dbus.DBusException("no scene " + scene_id, name="io.waypost.test.NoSuchScene"))
            return
        self.log(event="OpenURL", scene=str(scene_id), uri=str(uri), platform_data=plain(platform_data))
        self.act("OpenURL", reply_cb, error_cb)

    @dbus.service.method(APP_IFACE, in_signature="ssa{sv}a{sv}", out_signature="",
                         async_callbacks=("reply_cb", "error_cb"))
    def ContinueUserActivity(self, scene_id, activity_type, activity, platform_data, reply_cb, error_cb):
        self.log(event="ContinueUserActivity", scene=str(scene_id), type=str(activity_type),
                 activity=plain(activity), platform_data=plain(platform_data),
                 user_info_types={str(k): type(v).__name__ for k, v in activity.get("user-info", {}).items()})
        self.act("ContinueUserActivity", reply_cb, error_cb)

    @dbus.service.method(APP_IFACE, in_signature="sa{sv}a{sv}", out_signature="",
                         async_callbacks=("reply_cb", "error_cb"))
    def ReceiveNotificationResponse(self, scene_id, response, platform_data, reply_cb, error_cb):
        if scene_id not in self.scenes:
            error_cb(dbus.DBusException("no scene " + scene_id, name="io.waypost.test.NoSuchScene"))
            return
        self.log(event="ReceiveNotificationResponse", scene=str(scene_id), response=plain(response),
                 platform_data=plain(platform_data))
        self.act("ReceiveNotificationResponse", reply_cb, error_cb)

    @dbus.service.method(APP_IFACE, in_signature="sa{sv}a{sv}", out_signature="s",
                         async_callbacks=("reply_cb", "error_cb"))
    def CreateScene(self, declaration_id, event, platform_data, reply_cb, error_cb):
        scene_id = "%s-%d-%d" % (declaration_id, os.getpid(), self.next_scene)
        self.next_scene += 1
        how = self.behaviour.get("CreateScene", "ok")
        if how == "ok":
            # Call back into the dispatcher before replying, as real apps do when a window opens.
            self.add_scene(scene_id, str(declaration_id), [])
        self.log(event="CreateScene", declaration=str(declaration_id), scene=scene_id,
                 payload=plain(event), platform_data=plain(platform_data))
        self.act("CreateScene", reply_cb, error_cb, scene_id)

    # io.waypost.test.Control: what the app's own UI would do

    @dbus.service.method(CONTROL_IFACE, in_signature="ssa(asas)", out_signature="")
    def OpenScene(self, scene_id, declaration_id, modifiers):
        self.add_scene(str(scene_id), str(declaration_id), [(list(p), list(a)) for p, a in modifiers])

    @dbus.service.method(CONTROL_IFACE, in_signature="sa(asas)", out_signature="")
    def SetExternalEvents(self, scene_id, modifiers):
        plain_modifiers = [(list(p), list(a)) for p, a in modifiers]
        self.dispatcher.SetExternalEvents(scene_id, modifiers_arg(plain_modifiers))
        self.modifiers[str(scene_id)] = plain_modifiers

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def ForgetScene(self, scene_id):
        """The window closed, and the dispatcher has not heard yet (a link is in flight)."""
        self.scenes.pop(str(scene_id), None)

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def CloseScene(self, scene_id):
        self.dispatcher.RemoveScene(scene_id)
        self.scenes.pop(str(scene_id), None)

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def Focus(self, scene_id):
        self.dispatcher.ActivateScene(scene_id)

    @dbus.service.method(CONTROL_IFACE, in_signature="ssa{sv}", out_signature="")
    def Publish(self, scene_id, activity_type, activity):
        """The scene shows something the user may come back to (SetCurrentActivity)."""
        self.dispatcher.SetCurrentActivity(scene_id, activity_type, activity)

    @dbus.service.method(CONTROL_IFACE, in_signature="sa{sv}", out_signature="s")
    def Notify(self, notification_id, content):
        """The app posts a notification (PostNotification); the dispatcher's error name, or ""."""
        try:
            self.dispatcher.PostNotification(notification_id, content)
            return ""
        except dbus.DBusException as error:
            return error.get_dbus_name()

    @dbus.service.method(CONTROL_IFACE, in_signature="ss", out_signature="s")
    def ExplainNotification(self, app_id, notification_id):
        """The app asks where a click on a notification would go: the scene, or the dispatcher's error name."""
        try:
            outcome = self.dispatcher.ExplainNotification(app_id, notification_id)
            return str(outcome.get("scene-id", outcome.get("action", "")))
        except dbus.DBusException as error:
            return error.get_dbus_name()

    @dbus.service.method(CONTROL_IFACE, in_signature="as", out_signature="s")
    def Withdraw(self, notification_ids):
        try:
            self.dispatcher.WithdrawNotifications(dbus.Array(notification_ids, signature="s"))
            return ""
        except dbus.DBusException as error:
            return error.get_dbus_name()

    @dbus.service.method(CONTROL_IFACE, in_signature="asa{ss}", out_signature="")
    def Run(self, argv, extra_env):
        """The app opens a link by running a program (gio open, xdg-open, waypost open), as its own child."""
        env = dict(os.environ)
        env.update({str(k): str(v) for k, v in extra_env.items()})
        pid, _, _, _ = GLib.spawn_async([str(a) for a in argv], envp=["%s=%s" % kv for kv in env.items()],
                                        flags=GLib.SpawnFlags.DO_NOT_REAP_CHILD)
        GLib.child_watch_add(GLib.PRIORITY_DEFAULT, pid,
                             lambda _pid, status: self.log(event="ran", argv=[str(a) for a in argv], status=status))

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def OpenInProcess(self, uri):
        """The app opens a link through GIO in its own process (g_app_info_launch_default_for_uri)."""
        from gi.repository import Gio
        Gio.AppInfo.launch_default_for_uri(str(uri), None)
        self.log(event="ran", argv=["in-process", str(uri)], status=0)

    @dbus.service.method(CONTROL_IFACE, in_signature="s", out_signature="")
    def SetBehaviour(self, spec):
        member, how = str(spec).split("=", 1)
        self.behaviour[member] = how


def main():
    with open(sys.argv[1]) as f:
        config = json.load(f)
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    app = SampleApp(bus, config)
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())
    app.start()
    loop.run()


if __name__ == "__main__":
    main()
