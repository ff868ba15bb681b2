/* How libdbus can make the message the daemon sends an app for a link (OpenURL(s scene, s url,
 * a{sv} platform data)), counted under callgrind by Benchmarks/message-building.sh:
 *   iterators   dbus_message_new_method_call + dbus_message_iter_append_* (libdbus writes it)
 *   demarshal   dbus_message_demarshal of the same bytes, written beforehand, and a copy of that
 *               without its serial (what DBus does: its MessageWriter writes the bytes, libdbus reads
 *               and validates them once)
 * and a reply that carries nothing (an app's acknowledgement of OpenURL):
 *   empty-reply-new        dbus_message_new_method_return (what DBus does for such a reply)
 *   empty-reply-demarshal  the same reply written beforehand, read back and copied
 * Usage: message-building iterators|demarshal|empty-reply-new|empty-reply-demarshal COUNT */
#include <dbus/dbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append_entry(DBusMessageIter *map, const char *key, const char *value) {
    DBusMessageIter entry, variant;
    dbus_message_iter_open_container(map, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(map, &entry);
}

static DBusMessage *open_url_by_iterators(void) {
    DBusMessage *message = dbus_message_new_method_call(
        ":1.5", "/io/waypost/Application", "io.waypost.Application1", "OpenURL");
    const char *scene = "contacts-2", *url = "contacts://show?id=0F3A-ADA";
    DBusMessageIter arguments, map;
    dbus_message_iter_init_append(message, &arguments);
    dbus_message_iter_append_basic(&arguments, DBUS_TYPE_STRING, &scene);
    dbus_message_iter_append_basic(&arguments, DBUS_TYPE_STRING, &url);
    dbus_message_iter_open_container(&arguments, DBUS_TYPE_ARRAY, "{sv}", &map);
    append_entry(&map, "activation-token", "0123456789abcdef");
    append_entry(&map, "desktop-startup-id", "waypost-1-TIME42");
    dbus_message_iter_close_container(&arguments, &map);
    return message;
}

int main(int argc, char **argv) {
    static const char *modes[] = {"iterators", "demarshal", "empty-reply-new", "empty-reply-demarshal"};
    int mode = -1;
    for (int i = 0; argc == 3 && i < 4; i++) if (strcmp(argv[1], modes[i]) == 0) mode = i;
    if (mode < 0) {
        fprintf(stderr, "usage: message-building iterators|demarshal|empty-reply-new|empty-reply-demarshal COUNT\n");
        return 2;
    }
    int count = atoi(argv[2]);
    /* The bytes to read back, written once (libdbus refuses serial 0 when reading). */
    DBusMessage *prototype = open_url_by_iterators();
    dbus_message_set_serial(prototype, 1);
    /* The call an empty reply answers, as received: the bus stamped its sender. */
    DBusMessage *received = open_url_by_iterators();
    dbus_message_set_serial(received, 7);
    dbus_message_set_sender(received, ":1.9");
    DBusMessage *empty = dbus_message_new_method_return(received);
    dbus_message_set_serial(empty, 2);
    DBusMessage *written = mode == 3 ? empty : prototype;
    char *bytes;
    int length;
    if (!dbus_message_marshal(written, &bytes, &length)) return 1;
    DBusError error;
    dbus_error_init(&error);
    for (int i = 0; i < count; i++) {
        DBusMessage *message;
        if (mode == 0) {
            message = open_url_by_iterators();
        } else if (mode == 2) {
            message = dbus_message_new_method_return(received);
        } else {
            message = dbus_message_demarshal(bytes, length, &error);
            if (message == NULL) { fprintf(stderr, "%s\n", error.message); return 1; }
            /* What gets sent is a copy, whose serial libdbus resets for the send to number it. */
            DBusMessage *unnumbered = dbus_message_copy(message);
            dbus_message_unref(message);
            message = unnumbered;
        }
        dbus_message_unref(message);
    }
    dbus_free(bytes);
    dbus_message_unref(empty);
    dbus_message_unref(received);
    dbus_message_unref(prototype);
    return 0;
}
