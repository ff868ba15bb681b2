#!/usr/bin/env bash
# The demo you can watch: the GTK samples' real windows, on a private session bus and a throwaway
# XDG home, brought to the front by real openers. With DISPLAY or WAYLAND_DISPLAY set the windows
# open on that screen; without (or with WAYPOST_DEMO_XVFB=1) on Xvfb with openbox, photographed
# after each step. Prints one line per step and where the screenshots are.
# Usage: Examples/demo-windows.sh BINDIR   (the directory holding waypost and the *-gtk samples)
set -euo pipefail
bindir=$(cd "${1:?usage: $0 BINDIR}" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
waypost=$bindir/waypost
for program in waypost waypost-contacts-gtk waypost-icecream-gtk; do
  [ -x "$bindir/$program" ] || { echo "demo: $bindir/$program is missing; run swift build" >&2; exit 1; }
done
shots=${WAYPOST_DEMO_SHOTS:-$here/.build/demo-windows}

root=$(mktemp -d "${TMPDIR:-/tmp}/waypost-windows.XXXXXX")
bus_pid="" xvfb_pid="" wm_pid=""
cleanup() {
  # The bus going away ends the dispatcher and the apps; then the window manager and Xvfb.
  [ -n "$bus_pid" ] && kill -9 "$bus_pid" 2>/dev/null || true
  [ -n "$wm_pid" ] && kill "$wm_pid" 2>/dev/null || true
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  if [ -n "${WAYPOST_DEMO_KEEP:-}" ]; then echo "demo: kept $root" >&2; else rm -rf "$root"; fi
}
trap cleanup EXIT

# A screen: the user's, or Xvfb with openbox (which keeps _NET_ACTIVE_WINDOW for xdotool).
if [ -z "${WAYPOST_DEMO_XVFB:-}" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  watched=1
else
  watched=""
  unset WAYLAND_DISPLAY
  # Xvfb writes the display it took to -displayfd once it accepts connections.
  Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$root/display" 2>"$root/xvfb.log" &
  xvfb_pid=$!
  for _ in $(seq 600); do grep -q '^[0-9]*$' "$root/display" 2>/dev/null && [ -s "$root/display" ] && break; sleep 0.05; done
  [ -s "$root/display" ] || { echo "demo: Xvfb did not start; see $root/xvfb.log" >&2; exit 1; }
  export DISPLAY=:$(cat "$root/display")
  export GSK_RENDERER=cairo   # Xvfb's OpenGL would be llvmpipe, on the CPU
  # openbox runs its --startup command once it manages windows and focuses new ones.
  openbox --sm-disable --startup "touch $root/openbox-ready" >"$root/openbox.log" 2>&1 &
  wm_pid=$!
  for _ in $(seq 200); do [ -e "$root/openbox-ready" ] && break; sleep 0.05; done
  rm -rf "$shots" && mkdir -p "$shots"
fi

# A throwaway desktop: nothing of the user's is read or written.
mkdir -p "$root"/{home,data/applications,config,runtime}
chmod 700 "$root/runtime"
export HOME=$root/home XDG_DATA_HOME=$root/data XDG_CONFIG_HOME=$root/config XDG_RUNTIME_DIR=$root/runtime
export XDG_DATA_DIRS=/usr/share XDG_CONFIG_DIRS=/etc/xdg WAYPOST_SAMPLE_LOG=$root/samples.log
unset XDG_CURRENT_DESKTOP DESKTOP_SESSION GNOME_DESKTOP_SESSION_ID KDE_FULL_SESSION BROWSER DESKTOP_STARTUP_ID XDG_ACTIVATION_TOKEN
export GIO_USE_VFS=local GTK_A11Y=none NO_AT_BRIDGE=1
for entry in "$here"/desktop/windows/*.desktop; do
  sed "s|@BINDIR@|$bindir|g" "$entry" > "$XDG_DATA_HOME/applications/$(basename "$entry")"
done
update-desktop-database "$XDG_DATA_HOME/applications"

dbus-daemon --session --fork --print-address=1 --print-pid=1 > "$root/bus.info" 2>>"$root/bus.log"
export DBUS_SESSION_BUS_ADDRESS=$(sed -n 1p "$root/bus.info")
bus_pid=$(sed -n 2p "$root/bus.info")
"$waypost" install --user >"$root/install.log" 2>&1 || { cat "$root/install.log" >&2; exit 1; }

# After each step: the window the step should bring to the front, then a screenshot (on Xvfb).
step=0
settle() {
  local title=$1 note=$2 active=""
  step=$((step + 1))
  if [ -n "$watched" ]; then
    # A person is watching: give them a moment to see the window come up.
    sleep "${WAYPOST_DEMO_PAUSE:-1.5}"
    printf '%2d  %s\n' "$step" "$note"
    return
  fi
  for _ in $(seq 300); do
    active=$(xdotool getactivewindow getwindowname 2>/dev/null || true)
    [ "$active" = "$title" ] && break
    sleep 0.05
  done
  # Active is not yet drawn: a new window is black until GTK's first frame, then mostly light grey.
  local window painted=0
  window=$(xdotool getactivewindow 2>/dev/null || true)
  for _ in $(seq 100); do
    painted=$(import -window "$window" png:- 2>/dev/null | convert - -format '%[fx:mean > 0.5 ? 1 : 0]' info: 2>/dev/null || echo 0)
    [ "$painted" = 1 ] && break
    sleep 0.05
  done
  local shot token; shot=$(printf '%s/%02d.png' "$shots" "$step")
  import -window root "$shot"
  # The token GTK presented the window with, as the window manager sees it.
  token=$(xprop -id "$(xdotool getactivewindow 2>/dev/null)" _NET_STARTUP_ID 2>/dev/null | sed -n 's/.*= "\(.*\)"$/\1/p')
  printf '%2d  %-52s active: %-26s token: %-22s %s\n' "$step" "$note" "\"$active\"" "${token:-(none)}" "$(basename "$shot")"
  [ "$active" = "$title" ] || echo "    (expected \"$title\")"
}

echo "Waypost's GTK samples: each link brings the right window to the front"
gio open 'contacts://show?id=0F3A-ADA'
settle "Ada Lovelace – Contacts" "gio open Ada: Contacts launched, her window"
DESKTOP_STARTUP_ID=waypost-demo-bob xdg-open 'contacts://show?id=51C2-BOB'
settle "Bob Kahn – Contacts" "xdg-open Bob: Ada's window takes only Ada, new one"
gdbus call --session --dest io.waypost.Dispatcher --object-path /io/waypost/Dispatcher \
  --method org.freedesktop.Application.Open "['contacts://show?id=0F3A-ADA']" "{'desktop-startup-id': <'waypost-demo-ada'>}" >/dev/null
settle "Ada Lovelace – Contacts" "a launcher opens Ada: her window to the front"
DESKTOP_STARTUP_ID=waypost-demo-dan "$waypost" continue io.waypost.example.contact.show --target D41D-DAN
settle "Dan Bricklin – Contacts" "Handoff of Dan: a new window"
if [ -z "$watched" ]; then
  bob=$(xdotool search --name '^Bob Kahn – Contacts$' | head -1)
  wmctrl -i -c "$(printf '0x%x' "$bob")"
  # Gone once openbox has given the focus to another window.
  for _ in $(seq 300); do
    now=$(xdotool getactivewindow getwindowname 2>/dev/null || true)
    ! wmctrl -l | grep -q 'Bob Kahn' && [ -n "$now" ] && [ "$now" != "Bob Kahn – Contacts" ] && break
    sleep 0.05
  done
  settle "$now" "Bob's window closed: its scene is gone"
fi
# Ice Cream: Handoff, then the desktop's search, continue the size chosen in a window.
continue_size() {
  DESKTOP_STARTUP_ID=$2 "$waypost" continue io.waypost.example.icecream-selection \
    --target "icecream/size/$1" --user-info "{\"sizeId\": $1}"
}
continue_size 3 waypost-demo-large
settle "Large Ice Cream" "Handoff of Large: Ice Cream launched"
continue_size 1 waypost-demo-small
settle "Small Ice Cream" "Handoff of Small: Large's window takes only Large"
# GNOME Shell's search for "large" finds the size Large's window published; picking it continues
# it there, with the startup id the shell's timestamp makes.
provider=(--dest io.waypost.Dispatcher --object-path /io/waypost/Dispatcher/SearchProvider)
result=""
for _ in $(seq 100); do  # until the published size is saved and found
  result=$(gdbus call --session "${provider[@]}" --method org.gnome.Shell.SearchProvider2.GetInitialResultSet "['large']" \
    | grep -o "'[^']*'" | head -1 | tr -d "'")
  [ -n "$result" ] && break
  sleep 0.05
done
[ -n "$result" ] || { echo "demo: the search for \"large\" found nothing" >&2; exit 1; }
gdbus call --session "${provider[@]}" --method org.gnome.Shell.SearchProvider2.ActivateResult "$result" "['large']" 1234 >/dev/null
settle "Large Ice Cream" "search \"large\", pick it: Large's window"
echo
"$waypost" status
if [ -z "$watched" ]; then
  echo
  echo "screenshots: $shots"
elif [ -t 0 ]; then
  # The windows go with the private bus: leave them up until the person watching is done.
  read -r -p "Press Enter to close the windows. " _
fi
