/* echo-server: the C service Waypost's own services are measured against. One libdbus connection to
 * the session bus and one loop that reads a call and answers it, with nothing in between.
 *
 *   echo-server [--name NAME] [--forward-to TARGET]
 *
 * It owns NAME (default io.waypost.bench.Echo) and serves, at /io/waypost/bench/Echo, the interface
 * io.waypost.bench.Echo:
 *   Echo(s) -> s    its argument back: one bus round trip for the caller.
 *   Route(s) -> s   only with --forward-to: calls Echo(s) on TARGET, waits for the answer and returns
 *                   it. Two round trips, the shape of client -> dispatcher -> app.
 * It prints "ready NAME" once it owns NAME, so that a benchmark knows when to start calling. */
#include <dbus/dbus.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ECHO_PATH "/io/waypost/bench/Echo"
#define ECHO_INTERFACE "io.waypost.bench.Echo"
#define FORWARD_TIMEOUT_MS 5000

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "echo-server: %s: %s\n", what, detail ? detail : "");
    exit(1);
}

static DBusMessage *reply_with_string(DBusMessage *call, const char *text) {
    DBusMessage *reply = dbus_message_new_method_return(call);
    if (!reply || !dbus_message_append_args(reply, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID))
        fail("out of memory", "making a reply");
    return reply;
}

/* The second hop, made blocking on purpose: while the client's call waits, nothing else is served,
 * which is the least work C can do for a forwarded call. Keep it so, or the yardstick moves. */
static DBusMessage *forward(DBusConnection *bus, DBusMessage *call, const char *target, const char *text) {
    DBusMessage *hop = dbus_message_new_method_call(target, ECHO_PATH, ECHO_INTERFACE, "Echo");
    if (!hop || !dbus_message_append_args(hop, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID))
        fail("out of memory", "making the forwarded call");
    DBusError error = DBUS_ERROR_INIT;
    DBusMessage *answer = dbus_connection_send_with_reply_and_block(bus, hop, FORWARD_TIMEOUT_MS, &error);
    dbus_message_unref(hop);
    if (!answer) {
        DBusMessage *refusal = dbus_message_new_error(call, error.name, error.message);
        dbus_error_free(&error);
        return refusal;
    }
    const char *echoed = text;
    dbus_message_get_args(answer, NULL, DBUS_TYPE_STRING, &echoed, DBUS_TYPE_INVALID);
    DBusMessage *reply = reply_with_string(call, echoed);  /* copies `echoed` before `answer` goes */
    dbus_message_unref(answer);
    return reply;
}

static DBusMessage *answer(DBusConnection *bus, DBusMessage *call, const char *target) {
    int is_echo = dbus_message_is_method_call(call, ECHO_INTERFACE, "Echo");
    int is_route = target && dbus_message_is_method_call(call, ECHO_INTERFACE, "Route");
    if (!is_echo && !is_route)
        return dbus_message_new_error(call, DBUS_ERROR_UNKNOWN_METHOD, dbus_message_get_member(call));
    const char *text = NULL;
    if (!dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &text, DBUS_TYPE_INVALID))
        return dbus_message_new_error(call, DBUS_ERROR_INVALID_ARGS, "expected one string");
    return is_echo ? reply_with_string(call, text) : forward(bus, call, target, text);
}

int main(int argc, char **argv) {
    const char *name = "io.waypost.bench.Echo", *target = NULL;
    static const struct option options[] = {
        {"name", required_argument, NULL, 'n'},
        {"forward-to", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    for (int option; (option = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        if (option == 'n') name = optarg;
        else if (option == 'f') target = optarg;
        else fail("usage", "echo-server [--name NAME] [--forward-to TARGET]");
    }

    DBusError error = DBUS_ERROR_INIT;
    DBusConnection *bus = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (!bus) fail("cannot reach the session bus", error.message);
    int owner = dbus_bus_request_name(bus, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error);
    if (owner != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        fail(name, dbus_error_is_set(&error) ? error.message : "owned by another connection");
    printf("ready %s\n", name);
    fflush(stdout);

    /* Messages that are not calls (NameAcquired and the like) are read and dropped. */
    while (dbus_connection_read_write(bus, -1)) {
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(bus)) != NULL) {
            if (dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_METHOD_CALL) {
                DBusMessage *reply = answer(bus, message, target);
                if (!reply) fail("out of memory", "making an error reply");
                if (!dbus_message_get_no_reply(message)) dbus_connection_send(bus, reply, NULL);
                dbus_message_unref(reply);
            }
            dbus_message_unref(message);
        }
    }
    return 0;  /* the bus went away */
}
