# Waypost — two commands on a fresh machine: `make demo` and `make test`.
SWIFT     ?= swift
PREFIX    ?= $(HOME)/.local
# Debian packages the build, the tests and the demo need; `deps` installs the missing ones.
DEB_PACKAGES := pkg-config libdbus-1-dev libglib2.0-dev dbus-daemon libglib2.0-bin \
                shared-mime-info xdg-utils desktop-file-utils python3-dbus python3-gi
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps build release test demo bench bench-routing bench-bus bench-dispatch bench-open install uninstall clean

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

release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product waypost

test: deps
	$(SWIFT) test

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
	cd Benchmarks && WAYPOST="$(CURDIR)/.build/release/waypost" $(SWIFT) run -c release dispatch-bench


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
