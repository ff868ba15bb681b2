#!/bin/bash
# Builds the test runtime and app offline, as flatpak's own test suite does, and installs both into
# a throwaway installation. Nothing is fetched: the runtime is the host's python3 with the modules
# the app imports and every file they map, the app is Tests/Apps' scripts.
#
# Usage: build-flatpak-app.sh OUT APPS
#   OUT   an empty directory; gets repo/ (the local repository), flatpak/ (the installation, for
#         FLATPAK_USER_DIR; its exports/share holds the app's desktop entry) and the build trees.
#   APPS  Tests/Apps (sample_app.py, flatpak_app.py, flatpak_open.py).
set -euo pipefail
out=$1
apps=$2
runtime_id=io.waypost.test.Platform
app_id=io.waypost.test.FlatpakNotes
scheme=flatpak-notes

# Never the user's installation, home or buses: flatpak --user writes to FLATPAK_USER_DIR, and the
# rest of its state under this HOME.
export HOME=$out/build-home XDG_CACHE_HOME=$out/build-home/cache XDG_DATA_HOME=$out/build-home/data
export XDG_CONFIG_HOME=$out/build-home/config FLATPAK_USER_DIR=$out/flatpak
export DBUS_SESSION_BUS_ADDRESS=disabled: DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent
mkdir -p "$HOME"
flatpak() { /usr/bin/flatpak "$@" >> "$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }; }

# The runtime: /usr of the sandbox. What python3 needs for the app's imports, found by importing them
# on the host: the modules' files (whole packages for encodings, dbus and gi, which import lazily)
# and every file mapped once they are loaded (libraries, typelibs, the dynamic loader).
files=$out/runtime/files
mkdir -p "$files"
/usr/bin/python3 - > "$out/closure" <<'PYTHON'
import os, sys
import json, traceback, linecache, tokenize
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib
paths = {m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)}
for package in ("encodings", "dbus", "gi"):
    for root, dirs, names in os.walk(os.path.dirname(sys.modules[package].__file__)):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        paths.update(os.path.join(root, n) for n in names)
for line in open("/proc/self/maps"):
    fields = line.split()
    if len(fields) >= 6 and fields[5].startswith("/"):
        paths.add(fields[5])
paths.add("/usr/bin/python3")
print("\n".join(sorted(paths)))
PYTHON
while read -r path; do
    # Debian merged /lib into /usr/lib; the runtime's files are the sandbox's /usr.
    targets=$path
    [ -L "$path" ] && targets="$path $(readlink -f "$path")"
    for each in $targets; do
        case $each in /usr/*) ;; *) continue ;; esac
        mkdir -p "$(dirname "$files/${each#/usr/}")"
        cp -a "$each" "$files/${each#/usr/}"
    done
done < "$out/closure"
# The maps name the libraries' files; the loader looks for their sonames.
/usr/sbin/ldconfig -n "$files/lib/x86_64-linux-gnu"
# flatpak links /lib64 to the runtime's lib64, where programs' interpreter is. No ldconfig (flatpak
# 1.14 looks for bin/ldconfig to make a cache): Debian's loader searches /lib/x86_64-linux-gnu anyway.
mkdir -p "$files/lib64"
ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$files/lib64/ld-linux-x86-64.so.2"
cat > "$out/runtime/metadata" <<EOF
[Runtime]
name=$runtime_id
runtime=$runtime_id/x86_64/master
sdk=$runtime_id/x86_64/master
EOF
flatpak build-export --runtime --files=files "$out/repo" "$out/runtime" master
flatpak remote-add --user --no-gpg-verify waypost-test "file://$out/repo"
# build-init wants the runtime it names installed.
flatpak --user install -y --noninteractive waypost-test "$runtime_id"

# The app: the sample app as a participating app, filtered session bus (no --socket=session-bus).
app=$out/app
flatpak build-init "$app" "$app_id" "$runtime_id" "$runtime_id" master
mkdir -p "$app/files/bin" "$app/files/lib/waypost" "$app/files/share/applications"
install -m 755 "$apps/flatpak_app.py" "$app/files/bin/waypost-flatpak-app"
install -m 755 "$apps/flatpak_open.py" "$app/files/bin/waypost-flatpak-open"
install -m 644 "$apps/sample_app.py" "$app/files/lib/waypost/sample_app.py"
cat > "$app/files/share/applications/$app_id.desktop" <<EOF
[Desktop Entry]
Type=Application
Name=Flatpak Notes
Exec=waypost-flatpak-app %u
MimeType=x-scheme-handler/$scheme;
X-Waypost=true
EOF
flatpak build-finish --command=waypost-flatpak-app --talk-name=io.waypost.Dispatcher "$app"
flatpak build-export "$out/repo" "$app" master
flatpak --user install -y --noninteractive waypost-test "$app_id"
