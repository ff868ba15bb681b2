# Waypost — two commands on a fresh machine: `make demo` and `make test`.
SWIFT     ?= swift
PREFIX    ?= $(HOME)/.local
# Debian packages the build, the tests and the demo need; `deps` installs the missing ones.
DEB_PACKAGES := pkg-config libdbus-1-dev libglib2.0-dev dbus-daemon libglib2.0-bin \
                shared-mime-info xdg-utils desktop-file-utils python3-dbus python3-gi
# libdbus-1.a calls libsystemd, which only libsystemd-dev lets a program link (see `release`).
ifeq ($(STATIC_LIBDBUS),1)
DEB_PACKAGES += libsystemd-dev
endif
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release test test-release demo bench bench-routing bench-bus bench-dispatch bench-instructions bench-open install uninstall clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

# The release binary, built as a distribution builds one: a position-independent executable (the
# default), the Swift runtime linked in (--static-swift-stdlib: the toolchain's libswiftCore.so is
# in no system library path, so a binary needing it would not start once installed), and no $ORIGIN
# run path (--disable-local-rpath: nothing is installed beside it). It needs the libraries SwiftPM
# links from pkg-config: libdbus, and GIO, GObject and GLib, which the Desktop layer calls only
# through its dlopen'd table (Sources/Desktop/Internals/GIOLibrary.swift). Checked after the build:
# no GLib/GIO function referenced directly, and Foundation (with CoreFoundation and ICU) not linked
# in: FoundationEssentials is what the binary may use.
#
# STATIC_LIBDBUS=1 (opt-in) links libdbus-1.a from libdbus-1-dev into the binary, with the
# libsystemd it calls, as `pkg-config --static --libs dbus-1` lists it. Its cost: the binary carries
# its own copy of libdbus, so every libdbus security fix needs waypost rebuilt; the distribution's
# libdbus update does not reach it. libdbus-1.so.3 stays among the needed libraries (SwiftPM puts
# CDBus's -ldbus-1 ahead of any flag given here), so it saves no loading at start.
RELEASE_BIN   := .build/release/waypost
RELEASE_FLAGS := -c release --product waypost --static-swift-stdlib --disable-local-rpath
ifeq ($(STATIC_LIBDBUS),1)
RELEASE_FLAGS += -Xlinker --whole-archive -Xlinker $(shell pkg-config --variable=libdir dbus-1)/libdbus-1.a \
                 -Xlinker --no-whole-archive \
                 $(addprefix -Xlinker ,$(filter-out -ldbus-1,$(shell pkg-config --static --libs-only-l dbus-1)))
endif
release: deps
	$(SWIFT) build $(RELEASE_FLAGS)
	@if nm -D --undefined-only $(RELEASE_BIN) | grep -E ' g_[a-z_]+$$'; then \
	  echo "error: the symbols above are GLib/GIO functions called directly; call them through Desktop's gio table." >&2; exit 1; \
	fi
	@if [ "$(STATIC_LIBDBUS)" = 1 ] && nm -D --undefined-only $(RELEASE_BIN) | grep -E ' _?dbus_'; then \
	  echo "error: with STATIC_LIBDBUS=1 the symbols above still come from the shared libdbus." >&2; exit 1; \
	fi
	@if nm $(RELEASE_BIN) | grep -q ' \$$s10Foundation'; then \
	  echo "error: Foundation is linked into waypost; import FoundationEssentials, or nothing." >&2; exit 1; \
	fi

test: deps
	$(SWIFT) test

# The daemon's and the desktop's end-to-end tests again, run against the release binary that
# `make install` installs: what users run is tested. Then the DBus module's own tests, compiled
# optimised, in a build folder of their own so that -enable-testing does not rebuild that binary.
test-release: release
	WAYPOST="$(CURDIR)/$(RELEASE_BIN)" $(SWIFT) test --filter 'DispatcherTests|DesktopIntegrationTests'
	$(SWIFT) test -c release -Xswiftc -enable-testing --scratch-path .build/release-tests --filter DBusTests

# First where example scenarios would go (waypost explain), then the live demo: real gio open and
# xdg-open calls to the sample apps on a private session bus.
demo: deps build
	@./Examples/demo.sh "$$($(SWIFT) build --show-bin-path)/waypost"
	@echo
	@./Examples/demo-live.sh "$$($(SWIFT) build --show-bin-path)"

bench: bench-routing bench-bus bench-dispatch bench-open

bench-routing: deps
	cd Benchmarks && $(SWIFT) run -c release routing-bench

# Bus round trips through the DBus module beside libdbus in C (../shared/baselines), on a private bus.
bench-bus: deps
	cd Benchmarks && $(SWIFT) run -c release bus-bench

# The dispatcher end to end (Open round trips, throughput, RSS, `waypost open` as a process) with the
# statically linked release binary, beside the C baselines.
bench-dispatch: release
	cd Benchmarks && WAYPOST="$(CURDIR)/.build/release/waypost" \
	  $(SWIFT) run -c release dispatch-bench


# Instructions the daemon executes per Open under valgrind (steady from run to run, unlike time on a
# shared VM), beside the C router; installs valgrind when it is missing.
bench-instructions: release
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	cd Benchmarks && $(SWIFT) build -c release --product dispatch-bench
	Benchmarks/daemon-instructions.sh "$(CURDIR)/.build/release/waypost" \
	  "$$(cd Benchmarks && $(SWIFT) build -c release --show-bin-path)/dispatch-bench" $(or $(N),2000)

# gio open → the daemon → a running app, beside gio open straight to the app and to an Exec= entry.
bench-open: deps release
	cd Benchmarks && WAYPOST="$$(cd .. && $(SWIFT) build -c release --show-bin-path)/waypost" $(SWIFT) run -c release open-bench

# The binary (Swift runtime linked in, so it outlives the toolchain), then the desktop integration:
# entries with absolute paths, defaults for opted-in apps' schemes (`waypost uninstall` undoes it).
install: release
	install -D -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/waypost" "$(PREFIX)/bin/waypost"
	"$(PREFIX)/bin/waypost" install --user

uninstall:
	"$(PREFIX)/bin/waypost" uninstall --user
	rm -f "$(PREFIX)/bin/waypost"

clean:
	rm -rf .build Benchmarks/.build
