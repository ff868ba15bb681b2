# Waypost — two commands on a fresh machine: `make demo` and `make test`.
SWIFT     ?= swift
# `make install` puts Waypost below PREFIX (below DESTDIR/PREFIX when staging a package); each
# directory can be set on its own. Debian's zsh reads vendor completions from
# /usr/share/zsh/vendor-completions: a Debian package passes ZSH_COMPLETION_DIR=that.
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
DATADIR   ?= $(PREFIX)/share
MANDIR    ?= $(DATADIR)/man
SYSTEMD_USER_UNIT_DIR ?= $(PREFIX)/lib/systemd/user
BASH_COMPLETION_DIR   ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR    ?= $(DATADIR)/zsh/site-functions
FISH_COMPLETION_DIR   ?= $(DATADIR)/fish/vendor_completions.d
# Debian packages the build needs: `release`, `dist` and `install` check for these and stop naming
# the missing ones, never installing anything (a packager's build, a chroot, CI as root or not).
BUILD_PACKAGES := pkg-config libdbus-1-dev libglib2.0-dev libsqlite3-dev libcurl4-openssl-dev libwayland-dev
# Debian packages the build, the tests and the demo need; `deps` (run by `make demo` and `make test`)
# installs the missing ones.
DEB_PACKAGES := $(BUILD_PACKAGES) dbus-daemon libglib2.0-bin \
                shared-mime-info xdg-utils desktop-file-utils python3-dbus python3-gi
# Verifying associations: libcurl's headers (libcurl itself is dlopen'd) and the system's CA
# bundle; its tests make a throwaway CA with openssl and run a loopback HTTPS server in a network
# namespace (unshare and nsenter from util-linux, mount, ip).
DEB_PACKAGES += ca-certificates openssl mount iproute2
# The browser extension's end-to-end tests and benchmark: Debian's Chromium, driven under Xvfb.
DEB_PACKAGES += chromium xvfb
# The sample apps' real windows (GTK 4), tested and demonstrated under Xvfb with a window manager
# (openbox), looked at with xdotool, xprop and wmctrl, photographed with ImageMagick's import.
DEB_PACKAGES += libgtk-4-dev openbox xdotool x11-utils wmctrl imagemagick
# Handoff's tests and benchmark: two of Debian's kdeconnectd (KDE Connect 22.12) in network namespaces.
DEB_PACKAGES += kdeconnect
# ... and GNOME's side of it: GSConnect 54's service, run standalone under gjs, against a kdeconnectd.
DEB_PACKAGES += gnome-shell-extension-gsconnect gjs
# Notifications' tests click and close them on a real server: dunst (dunstctl), under Xvfb.
DEB_PACKAGES += dunst
# bench-open reads each opener's peak memory from GNU time.
DEB_PACKAGES += time
# Dock quicklists are read in the tests as Dash to Dock reads them: libdbusmenu's client through python3-gi.
DEB_PACKAGES += gir1.2-dbusmenu-glib-0.4
# Plasma's recent resources: a real kactivitymanagerd on the tests' bus, its database read with sqlite3.
DEB_PACKAGES += kactivitymanagerd sqlite3
# The desktop people run: the real portal (its GTK backend and permission store) on the tests' bus,
# and a real Flatpak app built offline into a throwaway installation.
DEB_PACKAGES += xdg-desktop-portal xdg-desktop-portal-gtk flatpak
# ... and the compositors people run, headless: GNOME Shell (with gjs, its notification server and
# extensions' runtime) and KWin, with the GTK 4 samples' windows on them (PyGObject's GTK 4 too).
DEB_PACKAGES += gnome-shell gjs kwin-wayland gir1.2-gtk-4.0
# ... and a session run by systemd's user manager (its bus, the daemon as a unit, apps in scopes),
# started by the tests in a mount namespace of its own.
DEB_PACKAGES += systemd
# `check-install`'s tools: groff renders the manual pages, desktop-file-validate the entry.
CHECK_INSTALL_PACKAGES := groff-base desktop-file-utils
DEB_PACKAGES += groff-base
# libdbus-1.a calls libsystemd, which only libsystemd-dev lets a program link (see `release`).
ifeq ($(STATIC_LIBDBUS),1)
BUILD_PACKAGES += libsystemd-dev
DEB_PACKAGES += libsystemd-dev
endif
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps check-build-deps check-install-deps build release test test-release demo bench bench-browser browser-extension bench-activities bench-routing bench-bus bench-dispatch bench-instructions bench-ab bench-stages bench-message-building bench-open dist install uninstall check-install clean

all: build

# The Debian packages of $(1) that are not installed, as one line.
missing_packages = $(shell for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || printf '%s ' $$p; done)

deps:
	@missing="$(strip $(call missing_packages,$(DEB_PACKAGES)))"; \
	if [ -n "$$missing" ]; then \
	  echo "Installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# What building needs, checked only: a build that installs packages is no build a packager can run.
check-build-deps:
	@missing="$(strip $(call missing_packages,$(BUILD_PACKAGES)))"; \
	if [ -n "$$missing" ]; then \
	  echo "error: the build needs these Debian packages, not installed: $$missing" >&2; \
	  echo "       install them (apt-get install $$missing), or run make deps" >&2; exit 1; \
	fi

check-install-deps:
	@missing="$(strip $(call missing_packages,$(CHECK_INSTALL_PACKAGES)))"; \
	if [ -n "$$missing" ]; then \
	  echo "error: make check-install needs these Debian packages, not installed: $$missing" >&2; \
	  echo "       install them (apt-get install $$missing), or run make deps" >&2; exit 1; \
	fi

build: deps
	$(SWIFT) build

# The release binary, built as a distribution builds one: a position-independent executable (the
# default), the Swift runtime linked in (--static-swift-stdlib: the toolchain's libswiftCore.so is
# in no system library path, so a binary needing it would not start once installed), and no $ORIGIN
# run path (--disable-local-rpath: nothing is installed beside it). It needs libdbus and libsqlite3;
# GIO, GObject and GLib are opened at run time by the Desktop layer's dlopen'd table
# (Sources/Desktop/Internals/GIOLibrary.swift), so they are not among its needed libraries. It checks
# that the Debian packages it builds with are there and installs nothing (`make deps` does).
# Checked after the build: no GLib/GIO function referenced directly; no source of ours importing
# Foundation (FoundationEssentials is what our code may use); and neither Foundation nor ICU linked
# in, whoever would bring them (a dependency importing Foundation links swift-corelibs-foundation
# and its private ICU statically: 35 MB of a 67 MB stripped binary once). Foundation is known by its
# Swift symbols ($s10Foundation, $s26FoundationInternationalization) and CoreFoundation's start
# (__CFInitialize: FoundationEssentials has __CFUniChar tables of its own, which are no sign); ICU
# by its C++ namespace (icu_NN) and its C functions, which that copy renames swift_u*.
# libcurl is not linked at all: AssociationSources opens it on the first verification
# (Internals/CurlLibrary.swift); the check refuses a direct reference to a curl_* function too.
# Nor is libwayland-client: Desktop opens it when the compositor is asked for a token
# (Internals/WaylandClient.swift); a direct wl_* reference is refused alike.
#
# STATIC_LIBDBUS=1 (opt-in) links libdbus-1.a from libdbus-1-dev into the binary, with the
# libsystemd it calls, as `pkg-config --static --libs dbus-1` lists it. Its cost: the binary carries
# its own copy of libdbus, so every libdbus security fix needs waypost rebuilt; the distribution's
# libdbus update does not reach it. libdbus-1.so.3 stays among the needed libraries (SwiftPM puts
# CDBus's -ldbus-1 ahead of any flag given here), so it saves no loading at start.
RELEASE_BIN   := .build/release/waypost
RELEASE_FLAGS := -c release --product waypost --static-swift-stdlib --disable-local-rpath
# Linked by the toolchain's lld, for two things gold cannot do. Relative relocations packed (DT_RELR,
# glibc 2.36 and later): 45,000 of them took a 1.1 MB table that every start read; packed, 9 KB. And
# the functions a `waypost open` runs, then those the daemon runs, placed side by side
# (release/startup.order, written by `make startup-order`; lld moves sections, and the Swift compiler
# gives each source file's functions one, so for our code it is their files): the kernel maps 64 KB
# of code around each page touched, so code spread over the binary made each `waypost open` map
# about 2 MB more of it, and the daemon keep more of it resident.
# No symbol of the binary is exported (--no-export-dynamic): the toolchain's static-stdlib link
# arguments export every global symbol of an executable's own code, 8,000 of them, whose 650 KB
# table each start mapped. No library or plugin looks a waypost symbol up, and Swift's crash
# backtracer names functions from the symbol table, which stays. With the daemon's functions in the
# order, the two took the daemon's RSS at 10,000 scenes from 29.8 to 27.4 MiB (bench-dispatch).
RELEASE_FLAGS += -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
                 -Xlinker --symbol-ordering-file=$(CURDIR)/release/startup.order -Xlinker --no-warn-symbol-ordering \
                 -Xlinker --no-export-dynamic
# GIO's headers without its libraries: the Desktop layer opens GIO itself (dlopen), so linking
# gio-unix-2.0's libraries would only make every start load GIO, GObject and GLib and run GObject's
# constructors (about 1.8 ms of CPU of a `waypost open`, and 1.4 MB), for nothing. A pkg-config file of its own
# gives SwiftPM the same compiler flags and no libraries; the check below refuses a g_ function
# called directly, which would now fail the link anyway.
HEADERS_ONLY := .build/pkgconfig-headers-only
$(HEADERS_ONLY)/gio-unix-2.0.pc: check-build-deps
	@mkdir -p $(HEADERS_ONLY)
	@printf 'Name: gio-unix-2.0\nDescription: GIO headers only, for a binary that dlopens GIO\nVersion: %s\nCflags: %s\nLibs:\n' \
	  "$$(pkg-config --modversion gio-unix-2.0)" "$$(pkg-config --cflags gio-unix-2.0)" > $@
ifeq ($(STATIC_LIBDBUS),1)
RELEASE_FLAGS += -Xlinker --whole-archive -Xlinker $(shell pkg-config --variable=libdir dbus-1)/libdbus-1.a \
                 -Xlinker --no-whole-archive \
                 $(addprefix -Xlinker ,$(filter-out -ldbus-1,$(shell pkg-config --static --libs-only-l dbus-1)))
endif
release: check-build-deps $(HEADERS_ONLY)/gio-unix-2.0.pc
	PKG_CONFIG_PATH="$(CURDIR)/$(HEADERS_ONLY)$${PKG_CONFIG_PATH:+:$$PKG_CONFIG_PATH}" $(SWIFT) build $(RELEASE_FLAGS)
	@if nm -D --undefined-only $(RELEASE_BIN) | grep -E ' g_[a-z_]+$$'; then \
	  echo "error: the symbols above are GLib/GIO functions called directly; call them through Desktop's gio table." >&2; exit 1; \
	fi
	@if nm -D --undefined-only $(RELEASE_BIN) | grep -E ' curl_[a-z_]+$$'; then \
	  echo "error: the symbols above are libcurl functions called directly; call them through AssociationSources' curl table." >&2; exit 1; \
	fi
	@if nm -D --undefined-only $(RELEASE_BIN) | grep -E ' wl_[a-z_]+$$'; then \
	  echo "error: the symbols above are libwayland-client's, used directly; use them through Desktop's wayland table." >&2; exit 1; \
	fi
	@if nm -D --undefined-only $(RELEASE_BIN) | grep -E ' gtk_[a-z_]+$$|gdk_[a-z_]+$$' || readelf -d $(RELEASE_BIN) | grep -E 'lib(gtk|gdk)-'; then \
	  echo "error: GTK is linked into $(RELEASE_BIN); only \`waypost choose\` loads it, at run time, through Chooser's table." >&2; exit 1; \
	fi
	@if [ "$(STATIC_LIBDBUS)" = 1 ] && nm -D --undefined-only $(RELEASE_BIN) | grep -E ' _?dbus_'; then \
	  echo "error: with STATIC_LIBDBUS=1 the symbols above still come from the shared libdbus." >&2; exit 1; \
	fi
	@if grep -rlE '^\s*((public|internal|package|@_exported) )?import Foundation\b' Sources --include='*.swift'; then \
	  echo "error: the files above import Foundation; import FoundationEssentials, or nothing." >&2; exit 1; \
	fi
	@found="$$(nm $(RELEASE_BIN) | grep -cE ' [$$]s(10Foundation|26FoundationInternationalization)| __CFInitialize$$|[0-9]icu_[0-9]+| swift_u[a-z0-9]*_[A-Za-z]' || true)"; \
	if [ "$$found" != 0 ]; then \
	  nm $(RELEASE_BIN) | grep -E ' [$$]s(10Foundation|26FoundationInternationalization)| __CFInitialize$$|[0-9]icu_[0-9]+| swift_u[a-z0-9]*_[A-Za-z]' | head -20 >&2; \
	  echo "error: $$found symbols of Foundation or ICU are linked into $(RELEASE_BIN) (the first above); find what imports Foundation (swift build -c release -v, or nm on each module's objects)." >&2; exit 1; \
	fi

# release/startup.order anew, from runs of the release binary's `waypost open` and daemon (with
# Benchmarks' dispatch-bench app) under perf (release/startup-order.sh); installs linux-perf when it
# is missing.
.PHONY: startup-order
startup-order: deps
	@command -v perf >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq linux-perf; }
	release/startup-order.sh

# The D-Bus contract's Swift (Sources/WaypostContract/Generated, checked in), written from dbus/*.xml
# by Sources/contract-generator: run after editing the XML (docs/dbus.md). `check-contract` writes it
# into a scratch directory and fails when that differs from the checked-in files: `make test` runs
# it first, so CI fails when the XML and the Swift disagree. Neither needs more than the toolchain.
.PHONY: contract check-contract
CONTRACT_GENERATED := Sources/WaypostContract/Generated
contract:
	$(SWIFT) build --product contract-generator
	"$$($(SWIFT) build --show-bin-path)/contract-generator" dbus $(CONTRACT_GENERATED)

check-contract:
	@$(SWIFT) build --quiet --product contract-generator
	@scratch="$$(mktemp -d)"; trap 'rm -rf "$$scratch"' EXIT; \
	"$$($(SWIFT) build --show-bin-path)/contract-generator" dbus "$$scratch" || exit 1; \
	if ! diff -ru $(CONTRACT_GENERATED) "$$scratch"; then \
	  echo "error: $(CONTRACT_GENERATED) is not what dbus/*.xml gives (the diff above, + is the XML's): run make contract" >&2; exit 1; \
	fi; \
	echo "check-contract: $(CONTRACT_GENERATED) is what dbus/*.xml gives"

# WAYPOST_REQUIRE_BROWSER=1: the Chromium tests fail rather than skip where Chromium is missing (and
# so on for the windows, Wayland compositors and Flatpak).
# The extension inside the binary must be browser/ as it is: checked before the tests. Chromium's
# tests run after the others, not beside them: a click waits at most 300 ms for the daemon's answer
# (then stays in the browser, by design), which a machine busy with the whole suite can exceed. The
# GTK samples' window tests run after the others too, one at a time: an app acknowledges an event
# within 5 s or it goes nowhere (docs/delivery.md), and a window drawn on a machine busy with the
# whole suite can take longer to be created.
test: deps
	@$(MAKE) --no-print-directory check-contract
	@mkdir -p .build && /usr/bin/python3 browser/embed.py .build/BrowserExtensionFiles.check.swift && \
	  cmp -s .build/BrowserExtensionFiles.check.swift Sources/Installation/BrowserExtensionFiles.swift || \
	  { echo "Sources/Installation/BrowserExtensionFiles.swift is not browser/'s copy: run make browser-extension" >&2; exit 1; }
	WAYPOST_REQUIRE_FLATPAK=1 $(SWIFT) test --skip BrowserExtensionTests --skip ChromiumTests --skip WindowTests --skip WaylandTests
	WAYPOST_REQUIRE_WINDOWS=1 WAYPOST_REQUIRE_WAYLAND=1 $(SWIFT) test --no-parallel --filter 'WindowTests|WaylandTests' --skip BrowserExtensionTests --skip ChromiumTests
	WAYPOST_REQUIRE_BROWSER=1 $(SWIFT) test --filter 'BrowserExtensionTests|ChromiumTests'

# The daemon's and the desktop's end-to-end tests again, run against the release binary that
# `make install` installs: what users run is tested. Then the DBus module's own tests, compiled
# optimised, in a build folder of their own so that -enable-testing does not rebuild that binary.
test-release: deps release
	WAYPOST="$(CURDIR)/$(RELEASE_BIN)" $(SWIFT) test --filter 'DispatcherTests|DesktopIntegrationTests' --skip BrowserExtensionTests
	WAYPOST_REQUIRE_BROWSER=1 WAYPOST="$(CURDIR)/$(RELEASE_BIN)" $(SWIFT) test --filter BrowserExtensionTests
	$(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path .build/release-tests --filter DBusTests

# First where example scenarios would go (waypost explain), then the live demo: real gio open and
# xdg-open calls to the sample apps on a private session bus; then saved activities found through
# GNOME Shell's search provider interface and continued in the right window; last, the GTK samples'
# windows brought to the front, on your screen, or on Xvfb with a screenshot after each step.
demo: deps build
	@./Examples/demo.sh "$$($(SWIFT) build --show-bin-path)/waypost"
	@echo
	@./Examples/demo-live.sh "$$($(SWIFT) build --show-bin-path)"
	@echo
	@./Examples/demo-search.sh "$$($(SWIFT) build --show-bin-path)"
	@echo
	@./Examples/demo-windows.sh "$$($(SWIFT) build --show-bin-path)"
	@echo
	@/usr/bin/python3 Examples/demo-handoff.py "$$($(SWIFT) build --show-bin-path)"

# libFuzzer on the parsers that take input from elsewhere (Fuzz/, a package of its own): each target for
# FUZZ_SECONDS (default 600), from the seeds in Fuzz/Corpus/<name> plus what earlier runs found
# (Fuzz/.build/corpus). A crash, an input that runs longer than FUZZ_TIMEOUT seconds, or one that
# takes the process past FUZZ_RSS_MB stops with the input in Fuzz/.build/artifacts and fails the target.
FUZZ_SECONDS ?= 600
FUZZ_TIMEOUT ?= 10
FUZZ_RSS_MB ?= 2048
FUZZERS := uri-grammar conditions scenario associations message-reader handoff-payload
.PHONY: fuzz
fuzz: deps
	cd Fuzz && $(SWIFT) build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing
	@set -e; bin="$$(cd Fuzz && $(SWIFT) build -c release --show-bin-path)"; \
	for name in $(FUZZERS); do \
	  mkdir -p Fuzz/.build/corpus/$$name Fuzz/.build/artifacts; \
	  echo "fuzz-$$name: $(FUZZ_SECONDS) s"; \
	  status=0; "$$bin/fuzz-$$name" -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_TIMEOUT) -rss_limit_mb=$(FUZZ_RSS_MB) -print_final_stats=1 -artifact_prefix=Fuzz/.build/artifacts/$$name- \
	    Fuzz/.build/corpus/$$name Fuzz/Corpus/$$name > Fuzz/.build/$$name.log 2>&1 || status=$$?; \
	  grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb|INFO: seed corpus|==[0-9]+== ?ERROR|SUMMARY)' Fuzz/.build/$$name.log || true; \
	  test $$status -eq 0 || { echo "fuzz-$$name found a crash, a slow input or one past the memory limit: see Fuzz/.build/$$name.log and Fuzz/.build/artifacts" >&2; exit 1; }; \
	done

bench: bench-routing bench-bus bench-dispatch bench-open bench-associations

bench-routing: deps
	cd Benchmarks && $(SWIFT) run -c release routing-bench

# Bus round trips through the DBus module beside libdbus in C (Benchmarks/yardsticks), on a private bus.
bench-bus: deps
	cd Benchmarks && $(SWIFT) run -c release bus-bench

# The dispatcher end to end (Open round trips, throughput, RSS, `waypost open` as a process) with the
# release binary `make install` installs, beside the C yardsticks (Benchmarks/yardsticks).
bench-dispatch: deps release
	cd Benchmarks && WAYPOST="$(CURDIR)/.build/release/waypost" \
	  $(SWIFT) run -c release dispatch-bench


# Instructions the daemon executes per Open under valgrind (steady from run to run, unlike time on a
# shared VM), beside the C router; installs valgrind when it is missing. The daemon counted is the
# release binary's code: valgrind 3.19 cannot read lld's debug information, so it runs a copy with
# the debug sections removed (same code, same addresses), and it has no pidfd_open (ENOSYS, so the
# daemon would rightly refuse to register an app it cannot hold): Benchmarks/valgrind/native-pidfd.c,
# preloaded into that run only, makes that one call on the real CPU. No fallback in the daemon: a
# pid without a pidfd could be another process's by the time it is checked.
bench-instructions: deps release
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	cd Benchmarks && $(SWIFT) build -c release --product dispatch-bench
	Benchmarks/daemon-instructions.sh "$(CURDIR)/.build/release/waypost" \
	  "$$(cd Benchmarks && $(SWIFT) build -c release --show-bin-path)/dispatch-bench" $(or $(N),2000)

# Two daemon builds' CPU per Open, side by side on two private buses in alternating batches (A=, B=
# paths to `waypost` binaries; B defaults to this tree's release build).
bench-ab: deps release
	cd Benchmarks && $(SWIFT) build -c release --product dispatch-bench
	Benchmarks/daemon-ab.sh "$$(cd Benchmarks && $(SWIFT) build -c release --show-bin-path)/dispatch-bench" \
	  "$(or $(A),$(error A=path/to/waypost is needed))" "$(or $(B),$(CURDIR)/.build/release/waypost)"

# Where an Open's time goes, stage by stage, beside the C two hops: each process's part and each bus
# hop, timed from the kernel's record of their sendmsg and recvmsg calls (perf's syscall tracepoints
# on every CPU, so it runs as root); installs linux-perf when it is missing.
bench-stages: deps release
	@command -v perf >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq linux-perf; }
	cd Benchmarks && $(SWIFT) build -c release --product dispatch-bench
	$(SUDO) Benchmarks/open-stages.sh "$(CURDIR)/.build/release/waypost" \
	  "$$(cd Benchmarks && $(SWIFT) build -c release --show-bin-path)/dispatch-bench"

# libdbus's cost of making one OpenURL message: append iterators against one read of written bytes
# (how the DBus module builds messages with arguments); and of an empty reply, made by libdbus (how
# the DBus module makes those) against read back; installs valgrind when it is missing.
bench-message-building: deps
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	Benchmarks/message-building.sh

# The universal-link decision at 1,000 domains × 50 components beside a yardstick measured in the same
# run (a host lookup and SceneRouter.route), and the time to parse and compile 1,000 association files.
.PHONY: bench-associations
bench-associations: deps
	cd Benchmarks && $(SWIFT) run -c release association-bench
# User activities: a publish beside AddScene, the desktop's search over 100,000 saved activities,
# and what keeping them costs on disk and in the daemon.
# A handoff between two kdeconnectd in network namespaces (root): send → offer, accept beside a local continue.
.PHONY: bench-handoff
bench-handoff: deps release
	WAYPOST="$(CURDIR)/.build/release/waypost" /usr/bin/python3 Benchmarks/handoff-bench.py
# Send → offer through GSConnect and through kdeconnectd, interleaved, two pairs at once (root).
.PHONY: bench-handoff-transports
bench-handoff-transports: deps release
	WAYPOST="$(CURDIR)/.build/release/waypost" /usr/bin/python3 Benchmarks/handoff-transports-bench.py

bench-activities: deps release
	cd Benchmarks && WAYPOST="$(CURDIR)/.build/release/waypost" $(SWIFT) run -c release activity-bench

# A notification click (the server's ActionInvoked) → the scene, beside ContinueActivity and
# `waypost continue` of the same target to the same scene.
.PHONY: bench-notify
bench-notify: deps release
	cd Benchmarks && WAYPOST="$(CURDIR)/.build/release/waypost" $(SWIFT) run -c release notify-bench

# Instructions per publish beside AddScene in the daemon, the bus daemon and the app, under callgrind.
# The bench is linked statically (its own scratch path): valgrind 3.19 stops in the shared Swift
# runtime's libdispatch at start.
.PHONY: bench-activity-instructions
bench-activity-instructions: deps release
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	cd Benchmarks && $(SWIFT) build -c release --static-swift-stdlib --scratch-path .build-static --product activity-bench
	Benchmarks/activity-instructions.sh "$(CURDIR)/$(RELEASE_BIN)" \
	  "$$(cd Benchmarks && $(SWIFT) build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)/activity-bench" $(or $(N),1000)

# A click in Chromium on a link an app owns → the app acknowledged, beside `gio open` of the same link
# in the same run; and a click on a link no app owns with and without the extension (Benchmarks/README.md).
bench-browser: deps release
	WAYPOST="$(CURDIR)/$(RELEASE_BIN)" /usr/bin/python3 Benchmarks/browser-bench.py

# After editing browser/: the copy inside the binary (Sources/Installation/BrowserExtensionFiles.swift,
# which `waypost install --browser` writes out), and the packages a store or a user installs:
# .build/browser/waypost-chromium.zip and waypost-firefox.xpi (a zip with manifest.json at its root).
browser-extension:
	/usr/bin/python3 browser/embed.py Sources/Installation/BrowserExtensionFiles.swift
	@mkdir -p .build/browser
	cd browser && for browser in chromium firefox; do \
	  suffix=$$([ $$browser = firefox ] && echo xpi || echo zip); \
	  /usr/bin/python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED); z.write(sys.argv[2], "manifest.json"); [z.write(f) for f in sys.argv[3:]]' \
	    ../.build/browser/waypost-$$browser.$$suffix manifest.$$browser.json background.js content.js popup.html popup.js; \
	done
	@ls -l .build/browser

# gio open → the daemon → a running app, beside gio open straight to the app and to an Exec= entry.
bench-open: deps release
	cd Benchmarks && WAYPOST="$$(cd .. && $(SWIFT) build -c release --show-bin-path)/waypost" $(SWIFT) run -c release open-bench

# A click in Chromium with the real portal on the bus: through Waypost, beside the portal handing the
# link to a DBusActivatable app directly (Benchmarks/portal-bench.py; ROUNDS sets the rounds).
.PHONY: bench-portal
bench-portal: deps release
	WAYPOST="$(CURDIR)/$(RELEASE_BIN)" /usr/bin/python3 Benchmarks/portal-bench.py

# An ambiguous link → Waypost's chooser window mapped, beside the portal's own GTK chooser for the
# same two apps; a remembered choice beside a link one app alone declares (Benchmarks/chooser-bench.py;
# ROUNDS sets the rounds).
.PHONY: bench-chooser
bench-chooser: deps release
	WAYPOST="$(CURDIR)/$(RELEASE_BIN)" /usr/bin/python3 Benchmarks/chooser-bench.py

# On GNOME Shell headless (mutter): a link from a focused GTK app → the chosen window focused, beside
# the same app given the link directly (Benchmarks/wayland-focus-bench.py; ROUNDS sets the rounds).
.PHONY: bench-wayland-focus
bench-wayland-focus: deps release
	WAYPOST="$(CURDIR)/$(RELEASE_BIN)" /usr/bin/python3 Benchmarks/wayland-focus-bench.py

# The session's first link, dispatcher and app started cold, beside gio open straight to a
# DBusActivatable Python app (Benchmarks/cold-bench.py; ROUNDS, WARM, TRACE=DIR).
.PHONY: bench-cold
bench-cold: deps release
	WAYPOST="$(CURDIR)/$(RELEASE_BIN)" /usr/bin/python3 Benchmarks/cold-bench.py

# The opener of each event: the walk up a caller's ancestors, in process, and what waiting for it adds
# to an owned https link beside a custom-scheme link to the same app that does not wait.
.PHONY: bench-opener
bench-opener: deps release
	cd Benchmarks && WAYPOST="$(CURDIR)/.build/release/waypost" $(SWIFT) run -c release opener-bench

# What `make install` copies, built as yourself before installing (`sudo make install` then only
# copies: root's PATH seldom has the Swift toolchain): the release binary, shell completions, and
# manual pages from the argument parser's help by swift-argument-parser's generate-manual (the tool
# its GenerateManual plugin runs; called directly on this binary, since the plugin first rebuilds
# every product of the package): waypost(1) whole, and a page per subcommand (waypost.open(1), ...).
# The pages are dated by SOURCE_DATE_EPOCH, else the last commit, so that the same source gives the
# same pages.
DIST     := .build/dist
MAN_DATE  = $(shell epoch="$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null)}"; date -u -d "@$${epoch:-$$(date +%s)}" +%Y-%m-%d)
dist: release
	rm -rf $(DIST) && mkdir -p $(DIST)/man
	for shell in bash zsh fish; do $(RELEASE_BIN) --generate-completion-script $$shell > $(DIST)/completion.$$shell; done
	$(SWIFT) build --product generate-manual
	generate="$$($(SWIFT) build --show-bin-path)/generate-manual"; \
	"$$generate" $(RELEASE_BIN) --multi-page --date $(MAN_DATE) --authors "The Waypost authors" --output-directory $(DIST)/man && \
	"$$generate" $(RELEASE_BIN) --date $(MAN_DATE) --authors "The Waypost authors" --output-directory $(DIST)/man

# The program and the files that make it a link handler for everyone, without touching any user's
# files: each user who wants links routed through Waypost then runs `waypost install --user`. Runs no
# compiler: `make dist` comes first. The handler's files are written here, by the binary itself
# (`waypost handler-file`, the code `waypost install` writes them with, so the two cannot differ),
# naming $(BINDIR)/waypost.
install:
	@test -x $(RELEASE_BIN) && test -f $(DIST)/man/waypost.1 \
	  || { echo "error: nothing built to install; run \`make dist\` first (as yourself), then make install" >&2; exit 1; }
	install -D -m 0755 $(RELEASE_BIN) "$(DESTDIR)$(BINDIR)/waypost"
	install -d "$(DESTDIR)$(DATADIR)/dbus-1/services" "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)" "$(DESTDIR)$(DATADIR)/applications"
	$(RELEASE_BIN) handler-file dbus-service --program "$(BINDIR)/waypost" > "$(DESTDIR)$(DATADIR)/dbus-1/services/io.waypost.Dispatcher.service"
	$(RELEASE_BIN) handler-file systemd-unit --program "$(BINDIR)/waypost" > "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/waypost.service"
	$(RELEASE_BIN) handler-file desktop-entry --program "$(BINDIR)/waypost" > "$(DESTDIR)$(DATADIR)/applications/io.waypost.Dispatcher.desktop"
	chmod 0644 "$(DESTDIR)$(DATADIR)/dbus-1/services/io.waypost.Dispatcher.service" "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/waypost.service" \
	  "$(DESTDIR)$(DATADIR)/applications/io.waypost.Dispatcher.desktop"
	install -d "$(DESTDIR)$(MANDIR)/man1"
	install -m 0644 $(DIST)/man/*.1 "$(DESTDIR)$(MANDIR)/man1/"
	install -D -m 0644 $(DIST)/completion.bash "$(DESTDIR)$(BASH_COMPLETION_DIR)/waypost"
	install -D -m 0644 $(DIST)/completion.zsh "$(DESTDIR)$(ZSH_COMPLETION_DIR)/_waypost"
	install -D -m 0644 $(DIST)/completion.fish "$(DESTDIR)$(FISH_COMPLETION_DIR)/waypost.fish"

# Exactly what `install` put there; the manual pages are waypost.1 and waypost.SUBCOMMAND.1.
# Users' own files stay: each user undoes `waypost install --user` with `waypost uninstall --user`.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/waypost" \
	  "$(DESTDIR)$(DATADIR)/dbus-1/services/io.waypost.Dispatcher.service" \
	  "$(DESTDIR)$(SYSTEMD_USER_UNIT_DIR)/waypost.service" \
	  "$(DESTDIR)$(DATADIR)/applications/io.waypost.Dispatcher.desktop" \
	  "$(DESTDIR)$(MANDIR)/man1/waypost.1" "$(DESTDIR)$(MANDIR)/man1/"waypost.*.1 \
	  "$(DESTDIR)$(BASH_COMPLETION_DIR)/waypost" "$(DESTDIR)$(ZSH_COMPLETION_DIR)/_waypost" \
	  "$(DESTDIR)$(FISH_COMPLETION_DIR)/waypost.fish"

# What a packager would check, for CI: `make install` into a throwaway DESTDIR below /usr lists its
# files; the binary is position-independent, has no run path, and its needed libraries are shown;
# no file names the staging directory; the desktop entry, the systemd unit (where systemd-analyze
# exists) and every manual page pass their own tools; `make uninstall` then leaves no file behind.
check-install: check-install-deps dist
	@set -e; stage="$$(mktemp -d)"; trap 'rm -rf "$$stage"' EXIT; \
	$(MAKE) --no-print-directory install DESTDIR="$$stage" PREFIX=/usr >/dev/null; \
	echo "make install DESTDIR=$$stage PREFIX=/usr installed:"; \
	(cd "$$stage" && find . -type f | sed 's|^\.|  |' | sort); \
	bin="$$stage/usr/bin/waypost"; \
	readelf -h "$$bin" | grep -E '^ *Type:'; \
	readelf -h "$$bin" | grep -Eq '^ *Type: *DYN' || { echo "error: waypost is not position-independent" >&2; exit 1; }; \
	readelf -d "$$bin" | grep -E 'NEEDED|RPATH|RUNPATH'; \
	! readelf -d "$$bin" | grep -Eq 'RPATH|RUNPATH' || { echo "error: waypost has a run path" >&2; exit 1; }; \
	! grep -rl "$$stage" "$$stage" || { echo "error: the files above name the staging directory" >&2; exit 1; }; \
	grep -qx 'Exec=/usr/bin/waypost daemon' "$$stage/usr/share/dbus-1/services/io.waypost.Dispatcher.service" \
	  || { echo "error: the D-Bus service does not start /usr/bin/waypost" >&2; exit 1; }; \
	desktop-file-validate "$$stage/usr/share/applications/io.waypost.Dispatcher.desktop"; \
	echo "desktop-file-validate: io.waypost.Dispatcher.desktop passes"; \
	test -f "$$stage/usr/share/man/man1/waypost.1" || { echo "error: no waypost(1), which the unit's Documentation= names" >&2; exit 1; }; \
	if command -v systemd-analyze >/dev/null; then \
	  problems="$$(MANPATH="$$stage/usr/share/man" systemd-analyze verify --man=yes "$$stage/usr/lib/systemd/user/waypost.service" 2>&1 \
	    | grep -v 'Command /usr/bin/waypost is not executable' || true)"; \
	  if [ -n "$$problems" ]; then echo "$$problems" >&2; echo "error: systemd-analyze verify rejects waypost.service" >&2; exit 1; fi; \
	  echo "systemd-analyze verify: waypost.service passes (its ExecStart is checked above, in the stage)"; \
	else echo "note: no systemd-analyze here; waypost.service was not verified"; fi; \
	for page in "$$stage"/usr/share/man/man1/*.1; do \
	  warnings="$$(groff -mandoc -ww -z -Tutf8 "$$page" 2>&1)"; \
	  if [ -n "$$warnings" ]; then echo "$$warnings" >&2; echo "error: $$page does not render cleanly" >&2; exit 1; fi; \
	done; \
	echo "groff: the $$(ls "$$stage"/usr/share/man/man1 | wc -l) manual pages render without warnings"; \
	$(MAKE) --no-print-directory uninstall DESTDIR="$$stage" PREFIX=/usr >/dev/null; \
	left="$$(find "$$stage" -type f)"; \
	if [ -n "$$left" ]; then echo "$$left" >&2; echo "error: make uninstall left the files above" >&2; exit 1; fi; \
	echo "make uninstall removed every installed file"

clean:
	rm -rf .build Benchmarks/.build
