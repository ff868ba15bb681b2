# Sourced by the valgrind scripts: waiting for what a private session bus shows.
# WAIT_SECONDS (default 60) bounds each wait; valgrind makes everything slow to start.

has_owner() {  # has_owner NAME: whether NAME has an owner on $DBUS_SESSION_BUS_ADDRESS
    gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
        -m org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true
}

wait_for() {  # wait_for WHAT COMMAND…: COMMAND polled every 0.1 s, up to WAIT_SECONDS; exits naming WHAT
    local what=$1; shift
    for _ in $(seq $(( ${WAIT_SECONDS:-60} * 10 ))); do "$@" && return 0; sleep 0.1; done
    echo "$(basename "$0"): $what did not happen" >&2; exit 1
}
