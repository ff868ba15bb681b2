#!/usr/bin/env bash
# The search demo: saved user activities found from the desktop's search, called exactly as GNOME
# Shell calls its search providers (org.gnome.Shell.SearchProvider2, through `gdbus`), and each
# picked result continued in the right window — an open one, or one of an app started for it.
# A private session bus and a throwaway XDG home; Waypost installed for the "system" of that home
# (GNOME reads search providers only from system data directories). Leaves nothing behind.
# Usage: Examples/demo-search.sh BINDIR   (the directory holding waypost and the samples)
set -euo pipefail
bindir=$(cd "${1:?usage: $0 BINDIR}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
waypost=$bindir/waypost
for program in waypost waypost-contacts waypost-icecream; do
  [ -x "$bindir/$program" ] || { echo "demo: $bindir/$program is missing; run swift build" >&2; exit 1; }
done

root=$(mktemp -d "${TMPDIR:-/tmp}/waypost-search-demo.XXXXXX")
bus_pid=""
cleanup() {
  [ -n "$bus_pid" ] && kill -9 "$bus_pid" 2>/dev/null || true
  for pid in $(grep -o '"pid": *[0-9]*' "$root/samples.log" 2>/dev/null | tr -dc '0-9\n' | sort -u); do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ -n "${WAYPOST_DEMO_KEEP:-}" ]; then echo "demo: kept $root" >&2; else rm -rf "$root"; fi
}
trap cleanup EXIT

mkdir -p "$root"/{home,data/applications,config,runtime,system/applications}
chmod 700 "$root/runtime"
export HOME=$root/home XDG_DATA_HOME=$root/data XDG_CONFIG_HOME=$root/config XDG_RUNTIME_DIR=$root/runtime
export XDG_DATA_DIRS=$root/system:/usr/share XDG_CONFIG_DIRS=/etc/xdg WAYPOST_SAMPLE_LOG=$root/samples.log
unset XDG_CURRENT_DESKTOP DESKTOP_SESSION WAYLAND_DISPLAY BROWSER
export GIO_USE_VFS=local
for app in Contacts IceCream; do
  sed "s|@BINDIR@|$bindir|g" "$here/desktop/io.waypost.example.$app.desktop" > "$XDG_DATA_HOME/applications/io.waypost.example.$app.desktop"
done

dbus-daemon --session --fork --print-address=1 --print-pid=1 > "$root/bus.info" 2>>"$root/bus.log"
export DBUS_SESSION_BUS_ADDRESS=$(sed -n 1p "$root/bus.info"); bus_pid=$(sed -n 2p "$root/bus.info")

# As a distribution's package would: the dispatcher's files, and the search provider, system-wide.
"$waypost" install --system --prefix "$root/system" >"$root/install.log" 2>&1 || { cat "$root/install.log" >&2; exit 1; }

# The apps the user has open; its "registered as" line says it registered and published.
start_app() {
  local app=$1 line fd; shift
  mkfifo "$root/$app.fifo"
  "$@" >"$root/$app.fifo" 2>>"$root/$app.out" &
  echo $! > "$root/$app.pid"
  disown $!  # the demo kills Ice Cream on purpose: no job report
  exec {fd}<"$root/$app.fifo"
  # Windows print as they open, before the app registers: wait for the line saying it did.
  local deadline=$((SECONDS + 30))
  while :; do
    if ! read -r -t $((deadline - SECONDS > 0 ? deadline - SECONDS : 1)) line <&"$fd" || ((SECONDS > deadline)); then
      echo "demo: $app did not register within 30 s; see $root/$app.out" >&2; exit 1
    fi
    printf '%s\n' "$line" >> "$root/$app.out"
    [[ $line == *"] registered as "* ]] && break
  done
  cat <&"$fd" >>"$root/$app.out" 2>/dev/null &
  exec {fd}<&-
}
start_app Contacts "$bindir/waypost-contacts" --window 0F3A-ADA --window 51C2-BOB
start_app IceCream "$bindir/waypost-icecream" --window 1 --window 3

python3 "$here/Examples/demo-search.py" "$root/system/gnome-shell/search-providers/io.waypost.Dispatcher.search-provider.ini" \
  "$WAYPOST_SAMPLE_LOG" "$root/IceCream.pid" "$waypost"
