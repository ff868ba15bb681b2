#!/usr/bin/env bash
# The live demo: a private session bus and a throwaway XDG home, Waypost and the sample apps
# installed there, the dispatcher started by D-Bus activation, then real `gio open` calls that
# exercise every rule, and the same links through `xdg-open`. Prints one table row per link.
# Leaves nothing running and nothing behind (set WAYPOST_DEMO_KEEP=1 to keep the directory).
# Usage: Examples/demo-live.sh BINDIR   (the directory holding waypost and waypost-contacts …)
set -euo pipefail
bindir=$(cd "${1:?usage: $0 BINDIR}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
waypost=$bindir/waypost
for program in waypost waypost-contacts waypost-photos waypost-notes waypost-player; do
  [ -x "$bindir/$program" ] || { echo "demo: $bindir/$program is missing; run swift build" >&2; exit 1; }
done

root=$(mktemp -d "${TMPDIR:-/tmp}/waypost-demo.XXXXXX")
bus_pid=""
cleanup() {
  # The bus going away ends the dispatcher, the monitor and every app; anything still there is
  # stopped by pid. SIGKILL: a dbus-daemon with clients may ignore SIGTERM (or inherit it ignored).
  [ -n "$bus_pid" ] && kill -9 "$bus_pid" 2>/dev/null || true
  local pids; pids=$(grep -vx "$bus_pid" "$root/pids" 2>/dev/null || true)
  pids="$pids ${monitor_pid:-}"
  for _ in $(seq 50); do
    local alive=""
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive="$alive $pid"; done
    [ -z "$alive" ] && break
    sleep 0.1
  done
  for pid in ${alive:-}; do echo "demo: pid $pid outlived the bus; stopping it" >&2; kill -9 "$pid" 2>/dev/null || true; done
  if [ -n "${WAYPOST_DEMO_KEEP:-}" ]; then echo "demo: kept $root" >&2; else rm -rf "$root"; fi
}
trap cleanup EXIT

# A throwaway desktop: nothing of the user's is read or written.
mkdir -p "$root"/{home,data/applications,data/dbus-1/services,config,runtime,notes}
chmod 700 "$root/runtime"
export HOME=$root/home XDG_DATA_HOME=$root/data XDG_CONFIG_HOME=$root/config XDG_RUNTIME_DIR=$root/runtime
export XDG_DATA_DIRS=/usr/share XDG_CONFIG_DIRS=/etc/xdg WAYPOST_SAMPLE_LOG=$root/samples.log
unset XDG_CURRENT_DESKTOP DESKTOP_SESSION GNOME_DESKTOP_SESSION_ID KDE_FULL_SESSION BROWSER WAYLAND_DISPLAY
export DISPLAY=:waypost-demo   # xdg-open's generic mode wants a display; nothing draws on it
export GIO_USE_VFS=local
: > "$root/pids"

# The sample apps' desktop entries, with their programs' real paths.
for entry in "$here"/desktop/io.waypost.example.*.desktop; do
  sed "s|@BINDIR@|$bindir|g" "$entry" > "$XDG_DATA_HOME/applications/$(basename "$entry")"
done
# A stand-in browser: it notes each link it is started with (the demo opens no real browser).
cat > "$XDG_DATA_HOME/applications/io.waypost.example.Browser.desktop" <<ENTRY
[Desktop Entry]
Type=Application
Name=Browser (stand-in)
Exec=/bin/sh -c 'echo "\$1" >> $root/browser.log' sh %u
NoDisplay=true
MimeType=x-scheme-handler/http;x-scheme-handler/https;
ENTRY
# photos.example names the Photos sample in its association (universal links), as a package installs it.
mkdir -p "$XDG_DATA_HOME/waypost/associations"
cat > "$XDG_DATA_HOME/waypost/associations/photos.example.json" <<'JSON'
{"applinks": {"details": [{"appIDs": ["io.waypost.example.Photos"],
  "components": [{"/": "/show", "?": {"photoIdentifier": "?*"}}, {"/": "/show", "?": {"album": "?*"}}]}]}}
JSON
# Before Waypost: Notes is the user's Markdown editor (Waypost takes over only such types), and the
# stand-in is the user's browser.
printf '[Default Applications]\ntext/markdown=io.waypost.example.Notes.desktop\nx-scheme-handler/https=io.waypost.example.Browser.desktop\nx-scheme-handler/http=io.waypost.example.Browser.desktop\n' \
  > "$XDG_CONFIG_HOME/mimeapps.list"

# The private session bus. Services are activated from $XDG_DATA_HOME/dbus-1/services.
dbus-daemon --session --fork --print-address=1 --print-pid=1 > "$root/bus.info" 2>>"$root/bus.log"
address=$(sed -n 1p "$root/bus.info"); bus_pid=$(sed -n 2p "$root/bus.info")
export DBUS_SESSION_BUS_ADDRESS=$address
echo "$bus_pid" >> "$root/pids"

# Install Waypost for this user: handler entry, D-Bus service, defaults in mimeapps.list; with
# --web, http and https too (the stand-in browser recorded for every link no app owns).
"$waypost" install --user --web >"$root/install.log" 2>&1 || { cat "$root/install.log" >&2; exit 1; }
update-desktop-database "$XDG_DATA_HOME/applications"

# Every routed event, as the dispatcher reports it (its Routed signal), read line by line from a
# FIFO: its "watching" line says it subscribed, each later line that an event was routed.
mkfifo "$root/routed.fifo"
"$waypost" monitor > "$root/routed.fifo" 2>>"$root/bus.log" &
monitor_pid=$!
exec {routed}<"$root/routed.fifo"
next_routed() {  # the monitor's next line into routed.txt; -t is only a safety net
  local line
  read -r -t 30 line <&"$routed" || { echo "demo: the monitor said nothing for 30 s" >&2; exit 1; }
  printf '%s\n' "$line" >> "$root/routed.txt"
}
next_routed

# Apps the user started: Contacts with a window showing Ada and an empty one; the Player.
# An app's "registered as …" line on stdout says it is ready; all of it goes to its .out file.
start_app() {
  local app=$1 line fd; shift
  mkfifo "$root/$app.fifo"
  "$@" >"$root/$app.fifo" 2>>"$root/$app.out" &
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
start_app Contacts "$bindir/waypost-contacts" --window 0F3A-ADA --window -
start_app Player "$bindir/waypost-player"

note=$root/notes/todo.md
printf '# To do\n\n- show the demo\n' > "$note"
links=(
  "contacts://show?id=0F3A-ADA"
  "contacts://show?id=51C2-BOB"
  "contacts://show?id=51C2-BOB"
  "contacts://show?id=9E07-CAROL"
  "myphotos://show?photoIdentifier=IMG_0042"
  "myphotos://show?photoIdentifier=IMG_0042"
  "myphotos://show?album=Holidays"
  "myphotos://show?album=Summer"
  "file://$note"
  "tune://play?track=Clair-de-lune"
  "https://photos.example/show?photoIdentifier=IMG_0042"
  "https://photos.example/about"
  "https://news.example/today"
)
# What each row shows, for people reading the table.
notes=(
  "Ada's window prefers her id"
  "nobody prefers Bob; the empty window allows *"
  "that window now shows Bob, so it prefers him"
  "no window allows Carol: a new window"
  "Photos is not running: launched"
  "the new photo window prefers its photo"
  "no window takes albums yet: the default"
  "the browser window allows album="
  "a Markdown file: Notes launched"
  "a single-scene app takes every link"
  "universal link: photos.example names Photos, which claims it"
  "photos.example's association does not cover /about: the browser"
  "no app claims news.example: the browser"
)

# One opener run: its wall time, then the dispatcher's report of the same event.
steps=0
run() {
  local via=$1 link=$2 note=$3; shift 3
  local start end status=0
  start=$(date +%s%N)
  "$@" >>"$root/openers.log" 2>&1 || status=$?
  end=$(date +%s%N)
  steps=$((steps + 1))
  # gio open returns once the dispatcher answered; its Routed line follows on the monitor's FIFO.
  next_routed
  printf '%s\t%s\t%s\t%s\t%s\n' "$via" "$link" "$status" "$(( (end - start) / 1000 ))" "$note" >> "$root/steps.tsv"
}
for i in "${!links[@]}"; do
  link=${links[$i]}
  if [[ $link == file://* ]]; then run "gio open" "$link" "${notes[$i]}" gio open "${link#file://}"
  else run "gio open" "$link" "${notes[$i]}" gio open "$link"; fi
done
run "waypost continue" "activity:io.waypost.example.contact.show" "Handoff of Dan: a new window" \
  "$waypost" continue io.waypost.example.contact.show --target D41D-DAN
for link in "${links[@]}"; do
  run "xdg-open" "$link" "" xdg-open "$link"
done

# Who ran, so that cleanup can check they all ended with the bus.
grep -o '"pid":[0-9]*' "$WAYPOST_SAMPLE_LOG" | cut -d: -f2 | sort -u >> "$root/pids"
# gdbus prints "(uint32 4242,)": the number after the type name, not every digit (32 is the type's).
daemon_pid=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
  --method org.freedesktop.DBus.GetConnectionUnixProcessID io.waypost.Dispatcher 2>/dev/null \
  | sed -n 's/^(uint32 \([0-9][0-9]*\),)$/\1/p' || true)
[ -n "$daemon_pid" ] || { echo "demo: cannot tell the dispatcher's pid" >&2; exit 1; }
echo "$daemon_pid" >> "$root/pids"

# The stand-in browser writes its line a moment after it was started: wait for the four (bounded).
touch "$root/browser.log"
for _ in $(seq 100); do [ "$(wc -l < "$root/browser.log")" -ge 4 ] && break; sleep 0.05; done
python3 "$here/Examples/demo-table.py" "$root/steps.tsv" "$root/routed.txt" "$WAYPOST_SAMPLE_LOG" "$root/browser.log"
