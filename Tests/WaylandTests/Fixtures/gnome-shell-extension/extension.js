// Test only (Tests/WaylandTests): headless mutter has no input devices, so nothing gets keyboard
// focus until some exist, and GNOME 43 has no --unsafe-mode. This extension turns unsafe mode on
// (org.gnome.Shell.Eval for ad-hoc probes), makes a virtual keyboard and pointer, and exports
// io.waypost.test.Shell so that tests act as a user would: click a window, press keys, type into
// the overview's search, click a notification banner; and read which window has focus.
/* exported init */
const { Clutter, Gio, GLib } = imports.gi;
const Main = imports.ui.main;
const MessageTray = imports.ui.messageTray;

const Interface = `
<node>
  <interface name="io.waypost.test.Shell">
    <!-- JSON: the focused window as Windows describes it, or null. -->
    <method name="FocusedWindow"><arg type="s" direction="out"/></method>
    <!-- JSON: the title of each window that had focus ("" for none), oldest first. -->
    <method name="FocusHistory"><arg type="s" direction="out"/></method>
    <!-- JSON: [{"title", "wmClass", "pid", "focused", "shown", "userTime", "x", "y", "width", "height"}],
         bottom first. userTime: the time of the user's last click or key in it, as mutter recorded it. -->
    <method name="Windows"><arg type="s" direction="out"/></method>
    <!-- Clicks a point of the shown window with this title that nothing covers; false if none. The
         click is processed later (mutter's input thread): its userTime changes then. -->
    <method name="ClickWindow"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
    <!-- Presses and releases a key by its Clutter name without KEY_ ("Return", "Escape", "o"). -->
    <method name="PressKey"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
    <method name="TypeText"><arg type="s" direction="in"/></method>
    <method name="ShowOverview"/>
    <method name="HideOverview"/>
    <!-- JSON: {"startingUp", "visible", "animating", "searchText", "defaultResult"} (the name of the
         result Return activates); the shell opens the overview once it has started up. -->
    <method name="Overview"><arg type="s" direction="out"/></method>
    <!-- Clicks the banner on screen when its title contains the text and it is fully shown. -->
    <method name="ClickBanner"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
    <!-- The title of the banner fully shown, or "". -->
    <method name="Banner"><arg type="s" direction="out"/></method>
    <!-- Closes the banner shown, as its close button does (the next one queued comes up). -->
    <method name="CloseBanner"/>
    <!-- Removes every notification, shown or queued (the shell's own: a root session gets a warning). -->
    <method name="ClearNotifications"/>
    <!-- mutter's idea of now (X server time), as GNOME Shell stamps what the user does. -->
    <method name="CurrentTime"><arg type="u" direction="out"/></method>
    <!-- The focused window changed: its title and wm_class ("" for none), and g_get_monotonic_time(). -->
    <signal name="FocusChanged"><arg type="s"/><arg type="s"/><arg type="t"/></signal>
  </interface>
</node>`;

/** Whether the window is on screen: drawn at least once, with a size. */
function isShown(window) {
    const actor = window.get_compositor_private();
    const rect = window.get_frame_rect();
    return !!actor && actor.is_mapped() && rect.width > 0 && rect.height > 0;
}

function describe(window) {
    if (!window)
        return null;
    const rect = window.get_frame_rect();
    return {
        title: window.get_title(), wmClass: window.get_wm_class(), pid: window.get_pid(), focused: window.has_focus(),
        shown: isShown(window), userTime: window.get_user_time(), x: rect.x, y: rect.y, width: rect.width, height: rect.height,
    };
}

class TestHooks {
    constructor() {
        const seat = Clutter.get_default_backend().get_default_seat();
        this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        this._pointer = seat.create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
        this._object = Gio.DBusExportedObject.wrapJSObject(Interface, this);
        this._object.export(Gio.DBus.session, '/io/waypost/test/Shell');
        this._history = [];
        this._focus = global.display.connect('notify::focus-window', () => {
            const window = global.display.focus_window;
            this._history.push(window?.get_title() ?? '');
            this._object.emit_signal('FocusChanged', new GLib.Variant('(sst)', [
                window?.get_title() ?? '', window?.get_wm_class() ?? '', GLib.get_monotonic_time()]));
        });
    }

    destroy() {
        global.display.disconnect(this._focus);
        this._object.unexport();
        this._keyboard.run_dispose();
        this._pointer.run_dispose();
    }

    FocusedWindow() {
        return JSON.stringify(describe(global.display.focus_window));
    }

    FocusHistory() {
        return JSON.stringify(this._history);
    }

    Windows() {
        const windows = global.display.list_all_windows();
        return JSON.stringify(global.display.sort_windows_by_stacking(windows).map(describe));
    }

    _click(x, y) {
        this._pointer.notify_absolute_motion(Clutter.CURRENT_TIME, x, y);
        this._pointer.notify_button(Clutter.CURRENT_TIME, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.PRESSED);
        this._pointer.notify_button(Clutter.CURRENT_TIME, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.RELEASED);
    }

    ClickWindow(title) {
        // As a user would: on a point of the window that nothing covers, neither another window nor
        // the shell's own (a banner, the top bar).
        const window = global.display.list_all_windows().find(w => w.get_title() === title);
        if (!window || !isShown(window))
            return false;
        const actor = window.get_compositor_private();
        const rect = window.get_frame_rect();
        // From the middle outwards: the title bar (client-side) is last, where two clicks maximize.
        const points = [];
        for (let row = 1; row < 8; row++) {
            for (let column = 1; column < 8; column++)
                points.push([rect.x + rect.width * column / 8, rect.y + rect.height * row / 8]);
        }
        const [middleX, middleY] = [rect.x + rect.width / 2, rect.y + rect.height / 2];
        points.sort(([ax, ay], [bx, by]) => Math.hypot(ax - middleX, ay - middleY) - Math.hypot(bx - middleX, by - middleY));
        const point = points.find(([x, y]) => actor.contains(global.stage.get_actor_at_pos(Clutter.PickMode.REACTIVE, x, y)));
        if (!point)
            return false;
        this._click(...point);
        return true;
    }

    _press(keyval) {
        this._keyboard.notify_keyval(Clutter.CURRENT_TIME, keyval, Clutter.KeyState.PRESSED);
        this._keyboard.notify_keyval(Clutter.CURRENT_TIME, keyval, Clutter.KeyState.RELEASED);
    }

    PressKey(name) {
        const keyval = Clutter[`KEY_${name}`];
        if (keyval === undefined)
            return false;
        this._press(keyval);
        return true;
    }

    TypeText(text) {
        for (const character of text)
            this._press(Clutter.unicode_to_keysym(character.codePointAt(0)));
    }

    ShowOverview() {
        Main.overview.show();
    }

    HideOverview() {
        Main.overview.hide();
    }

    Overview() {
        const results = Main.overview._overview.controls._searchController._searchResults;
        return JSON.stringify({
            startingUp: Main.layoutManager._startingUp, visible: Main.overview.visible,
            animating: Main.overview.animationInProgress, searchText: Main.overview.searchEntry.get_text(),
            defaultResult: results._defaultResult?.metaInfo?.name ?? null,
        });
    }

    _shownBanner() {
        const tray = Main.messageTray;
        if (tray._notificationState !== MessageTray.State.SHOWN || !tray._banner)
            return null;
        return tray._banner;
    }

    Banner() {
        return this._shownBanner()?.notification.title ?? '';
    }

    CloseBanner() {
        this._shownBanner()?.notification.destroy(MessageTray.NotificationDestroyedReason.DISMISSED);
    }

    ClearNotifications() {
        Main.messageTray.getSources().forEach(source => source.destroy());
    }

    ClickBanner(text) {
        const banner = this._shownBanner();
        if (!banner || !banner.notification.title.includes(text))
            return false;
        const [x, y] = banner.get_transformed_position();
        const [width, height] = banner.get_transformed_size();
        this._click(x + width / 2, y + height / 2);
        return true;
    }

    CurrentTime() {
        return global.display.get_current_time_roundtrip();
    }
}

class Extension {
    enable() {
        global.context.unsafe_mode = true;
        this._hooks = new TestHooks();
    }

    disable() {
        this._hooks?.destroy();
        this._hooks = null;
    }
}

function init() {
    return new Extension();
}
