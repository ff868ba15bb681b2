#!/bin/sh
# Runs association_site.py inside the private mount and network namespaces that
# `unshare --mount --net` made (inside a user namespace when not run as root), where the test's
# files stand in for the system's: its hosts file (the test domains on loopback), a resolver that
# answers nothing (unknown names fail at once), and a CA bundle holding only the test's CA, at the
# path Debian's libcurl reads (/etc/ssl/certs/ca-certificates.crt, the machine's other
# certificates hidden under a tmpfs).
# Nothing leaves the namespaces: unshare makes their mounts private.
#
# Usage: in_namespace.sh DIRECTORY (with hosts, resolv.conf, nsswitch.conf, ca.crt and the site's files)
set -eu
directory=$1
ip link set lo up
mount --bind "$directory/hosts" /etc/hosts
mount --bind "$directory/resolv.conf" /etc/resolv.conf
mount --bind "$directory/nsswitch.conf" /etc/nsswitch.conf
mount -t tmpfs -o mode=0755 tmpfs /etc/ssl/certs
cp "$directory/ca.crt" /etc/ssl/certs/ca-certificates.crt
exec /usr/bin/python3 "$(dirname "$0")/association_site.py" "$directory"
