# Waypost — two commands on a fresh machine: `make demo` and `make test`.
SWIFT     ?= swift
PREFIX    ?= $(HOME)/.local
# Debian packages the build, the tests and the demo need; `deps` installs the missing ones.
DEB_PACKAGES := pkg-config libdbus-1-dev libglib2.0-dev dbus-daemon libglib2.0-bin \
                shared-mime-info xdg-utils desktop-file-utils python3-dbus python3-gi patchelf
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release test test-release demo bench bench-routing bench-bus bench-dispatch bench-instructions bench-message-building bench-open install uninstall clean

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

# The release binary, built for a short `waypost open` (see "Start-up" in the README): the Swift
# runtime and libstdc++ linked in (a linker script in STATIC_CXX stands for libstdc++.so), not
# position-independent (its ~85,000 relocations cost a page fault each page at start), and GIO,
# which the Desktop layer opens with dlopen on first use, dropped from the needed libraries — after
# checking that nothing refers to a GIO, GObject or GLib symbol directly. libdbus is linked in from
# the libdbus-1.a that libdbus-1-dev ships, whole, so that its definitions take the place of the
# shared library's (pkg-config puts the directory holding libdbus-1.so first on the search path);
# the shared one would bring libsystemd and six more libraries into every start. Symbols are not
# exported (SwiftPM exports every public one, ~3,200 here, which the runtime's `dladdr` at start
# walks one by one and the loader pages in). Generic types are instantiated through accessors the
# compiler writes, not from mangled names: those are smaller, but the runtime demangles each on first
# use and checks its conformances by scanning all ~4,000 of the binary's records. Foundation (with
# CoreFoundation and ICU) must not be linked in at all: FoundationEssentials is what the binary may use.
STATIC_CXX := $(CURDIR)/.build/static-libstdc++
DBUS_ARCHIVE = $(shell p="$$(pkg-config --variable=libdir dbus-1)/libdbus-1.a"; [ -f "$$p" ] && echo "$$p")
# The toolchain's clang finds libstdc++.a where libstdc++-*-dev put it (no gcc needed).
CXX_ARCHIVE = $(shell for cc in clang gcc; do p=$$($$cc -print-file-name=libstdc++.a 2>/dev/null) && [ -f "$$p" ] && { echo "$$p"; break; }; done)
release: deps
	@archive="$(CXX_ARCHIVE)"; link_cxx=""; \
	if [ -n "$$archive" ]; then \
	  mkdir -p "$(STATIC_CXX)" && echo "INPUT($$archive)" > "$(STATIC_CXX)/libstdc++.so"; link_cxx="-Xswiftc -L$(STATIC_CXX)"; \
	else echo "note: no libstdc++.a found; linking libstdc++ as a shared library (a slower start)"; fi; \
	dbus_archive="$(DBUS_ARCHIVE)"; link_dbus=""; \
	if [ -n "$$dbus_archive" ]; then \
	  link_dbus="-Xswiftc -DWAYPOST_STATIC_LIBDBUS -Xlinker --whole-archive -Xlinker $$dbus_archive -Xlinker --no-whole-archive"; \
	else echo "note: no libdbus-1.a found; linking libdbus as a shared library (a slower start)"; fi; \
	$(SWIFT) build -c release --static-swift-stdlib --product waypost $$link_cxx $$link_dbus -Xswiftc -Xclang-linker -Xswiftc -no-pie \
	  -Xlinker --no-export-dynamic -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
	@bin="$$($(SWIFT) build -c release --show-bin-path)/waypost"; \
	if nm -D --undefined-only "$$bin" | grep -E ' g_[a-z_]+$$'; then \
	  echo "error: the symbols above are GLib/GIO functions called directly; call them through GIO." >&2; exit 1; \
	fi; \
	if [ -n "$(DBUS_ARCHIVE)" ]; then \
	  if nm -D --undefined-only "$$bin" | grep -E ' _?dbus_'; then \
	    echo "error: the symbols above still come from the shared libdbus." >&2; exit 1; \
	  fi; \
	  patchelf --remove-needed libdbus-1.so.3 "$$bin"; \
	fi; \
	if nm "$$bin" | grep -q ' \$$s10Foundation'; then \
	  echo "error: Foundation is linked into waypost; import FoundationEssentials, or nothing." >&2; exit 1; \
	fi; \
	patchelf --remove-needed libgio-2.0.so.0 --remove-needed libgobject-2.0.so.0 --remove-needed libglib-2.0.so.0 "$$bin"

test: deps
	$(SWIFT) test

# The daemon's and the desktop's end-to-end tests again, run against the release binary that
# `make install` installs (GIO opened on demand, not position-independent): what users run is tested.
test-release: release
	WAYPOST="$$($(SWIFT) build -c release --show-bin-path)/waypost" $(SWIFT) test --filter 'DispatcherTests|DesktopIntegrationTests'

# First where example scenarios would go (waypost explain), then the live demo: real gio open and
# xdg-open calls to the sample apps on a private session bus.
demo: deps build
	@./Examples/demo.sh "$$($(SWIFT) build --show-bin-path)/waypost"
	@echo
	@./Examples/demo-live.sh "$$($(SWIFT) build --show-bin-path)"

bench: bench-routing bench-bus bench-dispatch bench-open

bench-routing: deps
	cd Benchmarks && $(SWIFT) run -c release routing-bench

# Bus round trips through the DBus module beside libdbus in C (Benchmarks/yardsticks), on a private bus.
bench-bus: deps
	cd Benchmarks && $(SWIFT) run -c release bus-bench

# The dispatcher end to end (Open round trips, throughput, RSS, `waypost open` as a process) with the
# statically linked release binary, beside the C yardsticks (Benchmarks/yardsticks).
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

# libdbus's cost of making one OpenURL message: append iterators against one read of written bytes
# (how the DBus module builds messages); installs valgrind when it is missing.
bench-message-building: deps
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	Benchmarks/message-building.sh

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
