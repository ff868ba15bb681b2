# Sourced by the benchmark scripts: a throwaway desktop for the daemon under test, and waiting for
# what a private session bus shows. WAIT_SECONDS (default 60) bounds each wait; valgrind makes
# everything slow to start.

throwaway_desktop() {  # throwaway_desktop ROOT BENCH: `BENCH app`'s desktop entry under ROOT, and HOME
    # and the XDG directories there, exported: a daemon started next reads and writes none of the user's files.
    mkdir -p "$1/data/applications" "$1/config"
    printf '[Desktop Entry]\nType=Application\nName=Bench\nExec=%s app\nMimeType=x-scheme-handler/bench;\nX-Waypost=true\n' \
        "$2" > "$1/data/applications/bench.App.desktop"
    update-desktop-database "$1/data/applications"
    export HOME=$1/home XDG_DATA_HOME=$1/data XDG_CONFIG_HOME=$1/config XDG_CACHE_HOME=$1/cache \
        XDG_STATE_HOME=$1/state XDG_DATA_DIRS=/usr/share
}

has_owner() {  # has_owner NAME: whether NAME has an owner on $DBUS_SESSION_BUS_ADDRESS
    gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
        -m org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true
}

wait_for() {  # wait_for WHAT COMMAND…: COMMAND polled every 0.1 s, up to WAIT_SECONDS; exits naming WHAT
    local what=$1; shift
    for _ in $(seq $(( ${WAIT_SECONDS:-60} * 10 ))); do "$@" && return 0; sleep 0.1; done
    echo "$(basename "$0"): $what did not happen" >&2; exit 1
}
