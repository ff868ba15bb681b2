/* map-watch: reports, from X events, the moment a top-level window with one of the given titles
 * becomes viewable (its client window and the window manager's frame both mapped), and the moment
 * it stops being so (Benchmarks/chooser-bench.py).
 *
 *   map-watch TITLE...   (DISPLAY set)
 *
 * Prints "ready" once it watches, then one line per change, flushed:
 *   mapped INDEX WINDOW NS      INDEX: which TITLE (0-based); NS: CLOCK_MONOTONIC in nanoseconds,
 *   gone INDEX WINDOW NS        read when the event was taken from the queue.
 *
 * It selects SubstructureNotify on the root (every top-level window's creation, and the frames'
 * maps), then StructureNotify on each new top-level window (its own map, unmap and destruction);
 * a window's title is read when it maps: GTK sets it before. No polling: it sleeps in XNextEvent.
 */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_WINDOWS 4096

static struct { Window window; int reported; int index; } windows[MAX_WINDOWS];
static int count;
static char **titles;
static int title_count;
static Atom net_wm_name, utf8_string;

static int ignore_errors(Display *display, XErrorEvent *error) { (void)display; (void)error; return 0; }

static long long now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The index of WINDOW's title among the titles, or -1. */
static int title_index(Display *display, Window window) {
    Atom type;
    int format, index = -1;
    unsigned long items, after;
    unsigned char *value = NULL;
    if (XGetWindowProperty(display, window, net_wm_name, 0, 1024, False, utf8_string, &type, &format, &items, &after, &value) != Success
        || value == NULL || type != utf8_string) {
        if (value) XFree(value);
        value = NULL;
        if (XGetWindowProperty(display, window, XA_WM_NAME, 0, 1024, False, AnyPropertyType, &type, &format, &items, &after, &value) != Success
            || value == NULL) return -1;
    }
    for (int i = 0; i < title_count; i++)
        if (strlen(titles[i]) == items && memcmp(titles[i], value, items) == 0) index = i;
    XFree(value);
    return index;
}

static int viewable(Display *display, Window window) {
    XWindowAttributes attributes;
    return XGetWindowAttributes(display, window, &attributes) && attributes.map_state == IsViewable;
}

/* After any map or unmap: each watched window whose state changed is reported. */
static void check(Display *display, long long at) {
    for (int i = 0; i < count; i++) {
        int is_viewable = viewable(display, windows[i].window);
        if (is_viewable && !windows[i].reported) {
            int index = title_index(display, windows[i].window);
            if (index < 0) continue;
            windows[i].reported = 1;
            windows[i].index = index;
            printf("mapped %d %lu %lld\n", index, windows[i].window, at);
            fflush(stdout);
        } else if (!is_viewable && windows[i].reported) {
            windows[i].reported = 0;
            printf("gone %d %lu %lld\n", windows[i].index, windows[i].window, at);
            fflush(stdout);
        }
    }
}

static void forget(Display *display, Window window, long long at) {
    for (int i = 0; i < count; i++) {
        if (windows[i].window != window) continue;
        if (windows[i].reported) {
            printf("gone %d %lu %lld\n", windows[i].index, window, at);
            fflush(stdout);
        }
        windows[i] = windows[--count];
        return;
    }
    (void)display;
}

int main(int argc, char **argv) {
    Display *display = XOpenDisplay(NULL);
    if (!display || argc < 2) {
        fprintf(stderr, "usage: map-watch TITLE... (with DISPLAY set)\n");
        return 2;
    }
    titles = argv + 1;
    title_count = argc - 1;
    XSetErrorHandler(ignore_errors);
    net_wm_name = XInternAtom(display, "_NET_WM_NAME", False);
    utf8_string = XInternAtom(display, "UTF8_STRING", False);
    Window root = DefaultRootWindow(display);
    XSelectInput(display, root, SubstructureNotifyMask);
    XSync(display, False);
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        XEvent event;
        XNextEvent(display, &event);
        long long at = now();
        switch (event.type) {
        case CreateNotify:
            if (event.xcreatewindow.parent == root && !event.xcreatewindow.override_redirect && count < MAX_WINDOWS) {
                windows[count].window = event.xcreatewindow.window;
                windows[count].reported = 0;
                count++;
                XSelectInput(display, event.xcreatewindow.window, StructureNotifyMask);
                check(display, at); /* mapped before it was watched */
            }
            break;
        case MapNotify:
        case UnmapNotify:
            check(display, at);
            break;
        case DestroyNotify:
            forget(display, event.xdestroywindow.window, at);
            break;
        default:
            break;
        }
    }
}
