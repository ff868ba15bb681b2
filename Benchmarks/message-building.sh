#!/usr/bin/env bash
# Instructions libdbus spends making one message of the shape the daemon sends most (an OpenURL
# call), built with libdbus's append iterators or read once from bytes (dbus_message_demarshal,
# how the DBus module builds every message with arguments), and one reply that carries nothing,
# made by libdbus (how the DBus module makes those) or read back from bytes; counted by callgrind
# as the difference between 2N and N messages so that start-up cancels out.
#
#   make bench-message-building
set -euo pipefail
command -v valgrind >/dev/null || { echo "message-building: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$(mktemp -d /tmp/message-building.XXXXXX)
trap 'rm -rf "$bin"' EXIT
make -s -C "$here/yardsticks" BIN="$bin" >/dev/null
count=1000
instructions() {  # instructions MODE N: the program's total under callgrind
    valgrind --tool=callgrind --callgrind-out-file="$bin/out" "$bin/message-building" "$1" "$2" 2>&1 \
        | sed -n 's/.*I *refs: *//p' | tr -d ','
}
for mode in iterators demarshal empty-reply-new empty-reply-demarshal; do
    once=$(instructions "$mode" "$count")
    twice=$(instructions "$mode" $((2 * count)))
    case $mode in empty-reply-*) what="empty reply" ;; *) what="OpenURL message" ;; esac
    echo "$mode: $(( (twice - once) / count )) instructions per $what"
done
