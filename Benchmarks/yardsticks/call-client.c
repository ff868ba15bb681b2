/* call-client: the C caller Waypost's clients are measured against. It calls one method with one
 * string argument over libdbus, many times, and prints how long that took.
 *
 *   call-client [--calls N] [--to NAME] [--method MEMBER] [--in-flight W] [--warm-up K]
 *
 * Each call is MEMBER("myscheme://hello") on NAME (default io.waypost.bench.Echo) at echo-server's
 * path and interface. K untimed calls come first (default 200: the connection set up, caches warm),
 * then N timed ones (default 10000). With W = 1 (the default) each call waits for its reply before the
 * next is sent, so the time per call is one round trip's latency; with W > 1, W calls are kept in
 * flight and calls per second is the throughput.
 *
 * Prints one line of key=value fields; the benchmarks read us_per_call and calls_per_s. */
#include <dbus/dbus.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ECHO_PATH "/io/waypost/bench/Echo"
#define ECHO_INTERFACE "io.waypost.bench.Echo"
#define CALL_TIMEOUT_MS 5000

static const char *argument = "myscheme://hello";

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "call-client: %s: %s\n", what, detail ? detail : "");
    exit(1);
}

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static DBusMessage *new_call(const char *destination, const char *method) {
    DBusMessage *call = dbus_message_new_method_call(destination, ECHO_PATH, ECHO_INTERFACE, method);
    if (!call || !dbus_message_append_args(call, DBUS_TYPE_STRING, &argument, DBUS_TYPE_INVALID))
        fail("out of memory", "making a call");
    return call;
}

/* One call at a time, each waiting for its reply. */
static void call_in_turn(DBusConnection *bus, long count, const char *destination, const char *method) {
    DBusError error = DBUS_ERROR_INIT;
    for (long i = 0; i < count; i++) {
        DBusMessage *call = new_call(destination, method);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, call, CALL_TIMEOUT_MS, &error);
        dbus_message_unref(call);
        if (!reply) fail(method, error.message);
        dbus_message_unref(reply);
    }
}

/* `in_flight` calls outstanding at all times until `count` have been answered. Replies are counted,
 * not matched to their calls: every call here is the same, and any error ends the run. */
static void call_in_flight(DBusConnection *bus, long count, long in_flight, const char *destination, const char *method) {
    long sent = 0, answered = 0;
    while (answered < count) {
        for (; sent < count && sent - answered < in_flight; sent++) {
            DBusMessage *call = new_call(destination, method);
            if (!dbus_connection_send(bus, call, NULL)) fail("out of memory", "sending a call");
            dbus_message_unref(call);
        }
        if (!dbus_connection_read_write(bus, -1)) fail("disconnected", "the bus went away");
        DBusMessage *message;
        while ((message = dbus_connection_pop_message(bus)) != NULL) {
            int type = dbus_message_get_type(message);
            if (type == DBUS_MESSAGE_TYPE_ERROR) fail(method, dbus_message_get_error_name(message));
            if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN) answered++;
            dbus_message_unref(message);
        }
    }
}

int main(int argc, char **argv) {
    long calls = 10000, in_flight = 1, warm_up = 200;
    const char *destination = "io.waypost.bench.Echo", *method = "Echo";
    static const struct option options[] = {
        {"calls", required_argument, NULL, 'c'},
        {"to", required_argument, NULL, 't'},
        {"method", required_argument, NULL, 'm'},
        {"in-flight", required_argument, NULL, 'w'},
        {"warm-up", required_argument, NULL, 'k'},
        {NULL, 0, NULL, 0},
    };
    for (int option; (option = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        switch (option) {
        case 'c': calls = atol(optarg); break;
        case 't': destination = optarg; break;
        case 'm': method = optarg; break;
        case 'w': in_flight = atol(optarg); break;
        case 'k': warm_up = atol(optarg); break;
        default: fail("usage", "call-client [--calls N] [--to NAME] [--method MEMBER] [--in-flight W] [--warm-up K]");
        }
    }
    if (calls < 1 || in_flight < 1 || warm_up < 0) fail("usage", "N and W must be at least 1, K at least 0");

    DBusError error = DBUS_ERROR_INIT;
    DBusConnection *bus = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (!bus) fail("cannot reach the session bus", error.message);
    call_in_turn(bus, warm_up, destination, method);
    double started = seconds_now();
    if (in_flight == 1) call_in_turn(bus, calls, destination, method);
    else call_in_flight(bus, calls, in_flight, destination, method);
    double elapsed = seconds_now() - started;
    printf("to=%s method=%s calls=%ld in_flight=%ld warm_up=%ld seconds=%.4f us_per_call=%.2f calls_per_s=%.0f\n",
           destination, method, calls, in_flight, warm_up, elapsed, elapsed / (double)calls * 1e6, (double)calls / elapsed);
    return 0;
}
